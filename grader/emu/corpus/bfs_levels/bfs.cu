// Breadth-first search, level by level, in the style of the benchmark suites' graph kernels: a
// node array of (first edge, edge count) structs over an edge list, boolean masks for the
// frontier and the visited nodes, and a host loop that launches two kernels per level and
// copies a flag back to learn whether the next level holds anyone. The graph is a long strip
// (a grid 512 nodes long and 8 wide, with some diagonal edges), so the search takes about 500
// levels: a thousand small launches, and as many flag copies. The expansion pulls
// (each unvisited node looks for a neighbour in the frontier) so that every thread writes only
// its own node. Written for the emu's corpus; it checks each node's level against a serial
// search and prints PASSED.
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <vector>

#define BLOCK_SIZE 256

struct Node {
  int firstEdge;
  int edgeCount;
};

#define CUDA_CALL(call)                                                                        \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                                      \
    }                                                                                          \
  } while (0)

// An unvisited node with a neighbour in the frontier joins the next level.
__global__ void pullLevel(const Node *nodes, const int *edges, const bool *frontier, const bool *visited,
                          bool *next, int *level, int depth, int nodeCount) {
  const int id = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (id >= nodeCount || visited[id]) return;
  const Node me = nodes[id];
  for (int e = me.firstEdge; e < me.firstEdge + me.edgeCount; e++)
    if (frontier[edges[e]]) {
      level[id] = depth + 1;
      next[id] = true;
      return;
    }
}

// The next level becomes the frontier; a block that saw anyone raises the flag once.
__global__ void advanceLevel(bool *frontier, bool *visited, bool *next, int *anyone, int nodeCount) {
  const int id = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  bool joined = false;
  if (id < nodeCount) {
    joined = next[id];
    frontier[id] = joined;
    if (joined) visited[id] = true;
    next[id] = false;
  }
  if (__syncthreads_or(joined) && threadIdx.x == 0) atomicOr(anyone, 1);
}

int main() {
  const int length = 512, width = 8, nodeCount = length * width;
  std::vector<std::vector<int>> adj(nodeCount);
  auto link = [&](int a, int b) {
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  unsigned state = 2024u;
  for (int x = 0; x < length; x++)
    for (int y = 0; y < width; y++) {
      const int id = x * width + y;
      if (y + 1 < width) link(id, id + 1);
      if (x + 1 < length) link(id, id + width);
      state = state * 1664525u + 1013904223u;
      if (x + 1 < length && y + 1 < width && (state >> 28) == 0) link(id, id + width + 1);
    }
  std::vector<Node> nodes(nodeCount);
  std::vector<int> edges;
  for (int i = 0; i < nodeCount; i++) {
    nodes[i].firstEdge = (int)edges.size();
    nodes[i].edgeCount = (int)adj[i].size();
    edges.insert(edges.end(), adj[i].begin(), adj[i].end());
  }
  const int source = width / 2;
  std::vector<char> startMask(nodeCount, 0);
  startMask[source] = 1;
  std::vector<int> level(nodeCount, -1);
  level[source] = 0;

  Node *dNodes;
  int *dEdges, *dLevel, *dAnyone;
  bool *dFrontier, *dVisited, *dNext;
  CUDA_CALL(cudaMalloc(&dNodes, sizeof(Node) * nodeCount));
  CUDA_CALL(cudaMalloc(&dEdges, sizeof(int) * edges.size()));
  CUDA_CALL(cudaMalloc(&dLevel, sizeof(int) * nodeCount));
  CUDA_CALL(cudaMalloc(&dAnyone, sizeof(int)));
  CUDA_CALL(cudaMalloc(&dFrontier, nodeCount));
  CUDA_CALL(cudaMalloc(&dVisited, nodeCount));
  CUDA_CALL(cudaMalloc(&dNext, nodeCount));
  CUDA_CALL(cudaMemcpy(dNodes, nodes.data(), sizeof(Node) * nodeCount, cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(dEdges, edges.data(), sizeof(int) * edges.size(), cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(dLevel, level.data(), sizeof(int) * nodeCount, cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(dFrontier, startMask.data(), nodeCount, cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(dVisited, startMask.data(), nodeCount, cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemset(dNext, 0, nodeCount));

  const int blocks = (nodeCount + BLOCK_SIZE - 1) / BLOCK_SIZE;
  int depth = 0, anyone = 1, launches = 0;
  while (anyone) {
    anyone = 0;
    CUDA_CALL(cudaMemcpy(dAnyone, &anyone, sizeof(int), cudaMemcpyHostToDevice));
    pullLevel<<<blocks, BLOCK_SIZE>>>(dNodes, dEdges, dFrontier, dVisited, dNext, dLevel, depth, nodeCount);
    advanceLevel<<<blocks, BLOCK_SIZE>>>(dFrontier, dVisited, dNext, dAnyone, nodeCount);
    CUDA_CALL(cudaGetLastError());
    launches += 2;
    CUDA_CALL(cudaMemcpy(&anyone, dAnyone, sizeof(int), cudaMemcpyDeviceToHost));
    if (anyone) depth++;
  }
  std::vector<int> got(nodeCount);
  CUDA_CALL(cudaMemcpy(got.data(), dLevel, sizeof(int) * nodeCount, cudaMemcpyDeviceToHost));

  std::vector<int> want(nodeCount, -1);
  std::queue<int> todo;
  want[source] = 0;
  todo.push(source);
  while (!todo.empty()) {
    const int u = todo.front();
    todo.pop();
    for (int v : adj[u])
      if (want[v] < 0) {
        want[v] = want[u] + 1;
        todo.push(v);
      }
  }
  int wrong = 0, firstWrong = -1, deepest = 0;
  for (int i = 0; i < nodeCount; i++) {
    if (got[i] != want[i] && wrong++ == 0) firstWrong = i;
    if (want[i] > deepest) deepest = want[i];
  }
  printf("bfs: %d nodes, %zu edge ends, %d levels in %d launches\n", nodeCount, edges.size(), depth + 1, launches);
  cudaFree(dNodes);
  cudaFree(dEdges);
  cudaFree(dLevel);
  cudaFree(dAnyone);
  cudaFree(dFrontier);
  cudaFree(dVisited);
  cudaFree(dNext);
  if (wrong || depth != deepest) {
    if (wrong)
      printf("FAILED: %d nodes at the wrong level, the first node %d at %d, expected %d\n", wrong, firstWrong,
             got[firstWrong], want[firstWrong]);
    else
      printf("FAILED: the search stopped at depth %d, the graph's deepest node is at %d\n", depth, deepest);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
