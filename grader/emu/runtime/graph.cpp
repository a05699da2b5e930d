/**
 * @file graph.cpp
 * @brief Emulation backend: CUDA graphs, built node by node or captured from streams.
 *
 * A node holds what it does as a GraphStep: a kernel with its own copy of the arguments, a
 * copy, a memset, a host function, or a child graph. Work runs in program order here, so
 * launching an executable graph runs its steps one after another in a topological order of
 * the dependencies (among nodes ready at once, the one added first). Instantiating copies the
 * steps, so a later change to the graph leaves the executable graph as it was, as on a GPU;
 * cudaGraphExecKernelNodeSetParams and cudaGraphExecUpdate change it.
 *
 * Stream capture: cudaStreamBeginCapture makes a stream record instead of run. Launches,
 * copies, memsets and host functions issued to it become nodes, each depending on the one
 * before in that stream; an event recorded in a capturing stream and waited for by another
 * stream brings that stream into the capture (fork and join), and cudaStreamEndCapture on the
 * stream that began it returns the graph. What cannot be captured (a synchronization of the
 * stream, allocation in stream order) spoils the capture, as on a GPU.
 */
#include "emu_internal.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

struct CUgraphNode_st {
  cudaGraphNodeType type;
  CUgraph_st *graph;
  std::vector<CUgraphNode_st *> deps;
  scanlab_emu::GraphStep *step;
  cudaKernelNodeParams kernel; /* a kernel node's parameters, its arguments pointing at its copy */
  cudaHostNodeParams host;     /* a host node's */
};
struct CUgraph_st {
  std::vector<CUgraphNode_st *> nodes;
  ~CUgraph_st() {
    for (CUgraphNode_st *n : nodes) {
      delete n->step;
      delete n;
    }
  }
};
struct CUgraphExec_st {
  std::vector<scanlab_emu::GraphStep *> steps;
  std::vector<cudaGraphNodeType> types;
  std::vector<const CUgraphNode_st *> from; /* the graph's node each step was made from */
  ~CUgraphExec_st() {
    for (scanlab_emu::GraphStep *s : steps) delete s;
  }
};

namespace scanlab_emu {

struct Capture {
  cudaStream_t origin;
  CUgraph_st *graph;
  std::vector<cudaStream_t> streams; /* the origin and every stream that joined */
  std::vector<cudaEvent_t> events;   /* recorded in it: they forget it when it ends */
  bool spoilt;
};

static cudaError_t fail(cudaError_t e, const char *fmt, const char *what) {
  char msg[300];
  snprintf(msg, sizeof msg, fmt, what);
  diag("emu: %s (%s)", msg, cudaGetErrorName(e));
  set_error(e);
  return e;
}

/* ---- steps ---- */

/* A kernel launched by <<<>>> or the typed cudaLaunchKernel: the call, copied. */
struct DeferredKernel : GraphStep {
  LaunchInfo info;
  Deferred d;
  DeferredKernel(const LaunchInfo &i, const Deferred &d_) : info(i), d(d_) {}
  ~DeferredKernel() override { d.destroy(d.closure); }
  cudaError_t run(cudaStream_t s) override {
    LaunchInfo i = info;
    i.stream = s;
    return run_kernel(i, d.thunk, d.closure);
  }
  GraphStep *clone() const override {
    Deferred c = d;
    c.closure = d.clone(d.closure);
    return new DeferredKernel(info, c);
  }
};

/* A kernel known by its address (a kernel node, cudaLaunchKernel with a void pointer), with its
 * own copy of the arguments. */
struct ArgsKernel : GraphStep {
  const char *name;
  const void *func;
  PackedCall call;
  PackedCopy copy;
  PackedFree free_;
  void **args;
  dim3 grid, block;
  size_t smem;
  unsigned flags;
  ArgsKernel(const char *n, const void *f, PackedCall c, PackedCopy cp, PackedFree fr, void *const *a, dim3 g, dim3 b,
             size_t sm, unsigned fl)
      : name(n), func(f), call(c), copy(cp), free_(fr), args(cp(a)), grid(g), block(b), smem(sm), flags(fl) {}
  ~ArgsKernel() override { free_(args); }
  cudaError_t run(cudaStream_t s) override { return launch_args(name, func, call, args, grid, block, smem, s, flags); }
  GraphStep *clone() const override {
    return new ArgsKernel(name, func, call, copy, free_, args, grid, block, smem, flags);
  }
};

/* A child graph: its steps, copied. */
struct ChildGraph : GraphStep {
  std::vector<GraphStep *> steps;
  ~ChildGraph() override {
    for (GraphStep *s : steps) delete s;
  }
  cudaError_t run(cudaStream_t s) override {
    for (GraphStep *st : steps) {
      const cudaError_t e = st->run(s);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  }
  GraphStep *clone() const override {
    ChildGraph *c = new ChildGraph();
    for (const GraphStep *s : steps) c->steps.push_back(s->clone());
    return c;
  }
};

struct EmptyStep : GraphStep {
  cudaError_t run(cudaStream_t) override { return cudaSuccess; }
  GraphStep *clone() const override { return new EmptyStep(); }
};

static GraphStep *memcpy1d_step(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  return make_step([=](cudaStream_t) { return cudaMemcpy(dst, src, count, kind); });
}
static GraphStep *host_step(cudaHostFn_t fn, void *data) {
  return make_step([fn, data](cudaStream_t) {
    fn(data);
    return cudaSuccess;
  });
}
/* A memset node: rows of width elements of 1, 2 or 4 bytes, pitch bytes apart. */
static GraphStep *memset_step(const cudaMemsetParams &m) {
  return make_step([m](cudaStream_t) {
    const size_t rows = m.height ? m.height : 1, pitch = rows > 1 ? m.pitch : 0;
    for (size_t r = 0; r < rows; r++) {
      unsigned char *row = (unsigned char *)m.dst + r * pitch;
      if (m.elementSize == 1) {
        const cudaError_t e = cudaMemset(row, (int)m.value, m.width);
        if (e != cudaSuccess) return e;
        continue;
      }
      if (!range_is_device(row, m.width * m.elementSize)) return cudaErrorInvalidValue;
      std::vector<unsigned char> v(m.width * m.elementSize);
      for (size_t i = 0; i < m.width; i++) memcpy(&v[i * m.elementSize], &m.value, m.elementSize);
      const cudaError_t e = cudaMemcpy(row, v.data(), v.size(), cudaMemcpyHostToDevice);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  });
}

/* ---- graphs ---- */

static CUgraphNode_st *add_node(CUgraph_st *g, cudaGraphNodeType type, GraphStep *step, const cudaGraphNode_t *deps,
                                size_t n) {
  CUgraphNode_st *node = new CUgraphNode_st();
  node->type = type;
  node->graph = g;
  node->step = step;
  node->kernel = cudaKernelNodeParams{};
  for (size_t i = 0; i < n; i++)
    if (deps[i] && std::find(node->deps.begin(), node->deps.end(), deps[i]) == node->deps.end())
      node->deps.push_back(deps[i]);
  g->nodes.push_back(node);
  return node;
}

/* The nodes in a topological order, the earliest added first among those ready; false where
 * the dependencies make a cycle. */
static bool topo_order(const CUgraph_st *g, std::vector<const CUgraphNode_st *> &out) {
  const size_t n = g->nodes.size();
  std::vector<int> waiting(n, 0);
  std::vector<bool> done(n, false);
  for (size_t i = 0; i < n; i++) waiting[i] = (int)g->nodes[i]->deps.size();
  out.clear();
  while (out.size() < n) {
    size_t pick = n;
    for (size_t i = 0; i < n && pick == n; i++)
      if (!done[i] && waiting[i] == 0) pick = i;
    if (pick == n) return false;
    done[pick] = true;
    out.push_back(g->nodes[pick]);
    for (size_t j = 0; j < n; j++)
      for (const CUgraphNode_st *d : g->nodes[j]->deps)
        if (d == g->nodes[pick]) waiting[j]--;
  }
  return true;
}

static bool in_graph(const CUgraph_st *g, const CUgraphNode_st *node) {
  return node && std::find(g->nodes.begin(), g->nodes.end(), node) != g->nodes.end();
}
static bool deps_ok(const CUgraph_st *g, const cudaGraphNode_t *deps, size_t n) {
  if (n && !deps) return false;
  for (size_t i = 0; i < n; i++)
    if (!in_graph(g, deps[i])) return false;
  return true;
}

static GraphStep *kernel_step(const cudaKernelNodeParams *p, const char *fn, cudaError_t *err) {
  const char *name = nullptr;
  PackedCall call = nullptr;
  PackedCopy copy = nullptr;
  PackedFree free_ = nullptr;
  if (p->extra) {
    *err = fail(cudaErrorInvalidValue, "%s: kernel arguments through `extra` are not supported by the emulator",
                fn);
    return nullptr;
  }
  if (!kernel_by_address(p->func, &name, &call, &copy, &free_)) {
    *err = fail(cudaErrorInvalidDeviceFunction,
                "%s: the kernel is not one the emulator knows by its address (a template's instance is not)", fn);
    return nullptr;
  }
  return new ArgsKernel(name, p->func, call, copy, free_, p->kernelParams, p->gridDim, p->blockDim,
                        p->sharedMemBytes, 0);
}

static GraphStep *child_of(const CUgraph_st *g) {
  std::vector<const CUgraphNode_st *> order;
  if (!topo_order(g, order)) return nullptr;
  ChildGraph *c = new ChildGraph();
  for (const CUgraphNode_st *n : order) c->steps.push_back(n->step->clone());
  return c;
}

/* ---- capture ---- */

bool capturing(cudaStream_t s) { return (uintptr_t)s > 2 && s->capture; }

cudaError_t capture_step(cudaStream_t s, int node_type, GraphStep *step) {
  Capture *c = s->capture;
  if (c->spoilt) {
    delete step;
    return cudaErrorStreamCaptureInvalidated;
  }
  std::vector<cudaGraphNode_t> deps = s->joined;
  if (s->last) deps.insert(deps.begin(), s->last);
  s->last = add_node(c->graph, (cudaGraphNodeType)node_type, step, deps.data(), deps.size());
  s->joined.clear();
  return cudaSuccess;
}

cudaError_t capture_refuse(cudaStream_t s, const char *fn) {
  s->capture->spoilt = true;
  return fail(cudaErrorStreamCaptureUnsupported,
              "%s on a stream that is capturing a graph: not allowed during capture, and the capture is now "
              "invalidated", fn);
}

cudaError_t capture_record(cudaStream_t s, cudaEvent_t e) {
  e->capture = s->capture;
  s->capture->events.push_back(e);
  e->node = s->last;
  e->recorded = true;
  return cudaSuccess;
}

cudaError_t capture_wait(cudaStream_t s, cudaEvent_t e) {
  Capture *c = e->capture;
  if ((uintptr_t)s <= 2) {
    c->spoilt = true;
    return fail(cudaErrorStreamCaptureImplicit, "%s: the default stream waits for an event of a capture",
                "cudaStreamWaitEvent");
  }
  if (s->capture && s->capture != c) {
    c->spoilt = true;
    return fail(cudaErrorStreamCaptureMerge, "%s: the stream joins a second capture", "cudaStreamWaitEvent");
  }
  if (!s->capture) {
    s->capture = c;
    s->last = nullptr;
    s->joined.clear();
    c->streams.push_back(s);
  }
  if (e->node) s->joined.push_back(e->node);
  return cudaSuccess;
}

cudaError_t capture_kernel_args(cudaStream_t s, const char *name, const void *func, PackedCall call, PackedCopy copy,
                                PackedFree free, void **args, dim3 grid, dim3 block, size_t smem, unsigned flags) {
  return capture_step(s, cudaGraphNodeTypeKernel,
                      new ArgsKernel(name, func, call, copy, free, args, grid, block, smem, flags));
}

bool stream_capturing(cudaStream_t s) { return capturing(s); }

cudaError_t capture_kernel(const LaunchInfo &info, const Deferred &d) {
  return capture_step(info.stream, cudaGraphNodeTypeKernel, new DeferredKernel(info, d));
}

/* ---- executable graphs ---- */

static cudaError_t instantiate(CUgraphExec_st **out, const CUgraph_st *g) {
  std::vector<const CUgraphNode_st *> order;
  if (!topo_order(g, order))
    return fail(cudaErrorInvalidValue, "%s: the graph's dependencies make a cycle", "cudaGraphInstantiate");
  CUgraphExec_st *x = new CUgraphExec_st();
  for (const CUgraphNode_st *n : order) {
    x->steps.push_back(n->step->clone());
    x->types.push_back(n->type);
    x->from.push_back(n);
  }
  *out = x;
  return cudaSuccess;
}

}  // namespace scanlab_emu

using namespace scanlab_emu;

#define GRAPH_ARGS_CHECK(fn, graph, deps, n)                                                              \
  do {                                                                                                    \
    if (!pGraphNode || !(graph)) return fail(cudaErrorInvalidValue, "%s: a null node or graph", fn);      \
    if (!deps_ok(graph, deps, n))                                                                         \
      return fail(cudaErrorInvalidValue, "%s: a dependency is not a node of this graph", fn);             \
  } while (0)

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  (void)flags;
  if (!pGraph) return cudaErrorInvalidValue;
  *pGraph = new CUgraph_st();
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  if (!graph) return cudaErrorInvalidValue;
  delete graph;
  return cudaSuccess;
}
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t n, const cudaKernelNodeParams *p) {
  GRAPH_ARGS_CHECK("cudaGraphAddKernelNode", graph, deps, n);
  if (!p) return cudaErrorInvalidValue;
  cudaError_t e = cudaSuccess;
  GraphStep *step = kernel_step(p, "cudaGraphAddKernelNode", &e);
  if (!step) return e;
  CUgraphNode_st *node = add_node(graph, cudaGraphNodeTypeKernel, step, deps, n);
  node->kernel = *p;
  node->kernel.kernelParams = static_cast<ArgsKernel *>(step)->args;
  *pGraphNode = node;
  return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
  if (!node || !p || node->type != cudaGraphNodeTypeKernel || !node->kernel.func) return cudaErrorInvalidValue;
  *p = node->kernel;
  return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams *p) {
  if (!node || !p || node->type != cudaGraphNodeTypeKernel) return cudaErrorInvalidValue;
  cudaError_t e = cudaSuccess;
  GraphStep *step = kernel_step(p, "cudaGraphKernelNodeSetParams", &e);
  if (!step) return e;
  delete node->step;
  node->step = step;
  node->kernel = *p;
  node->kernel.kernelParams = static_cast<ArgsKernel *>(step)->args;
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t n, const cudaMemcpy3DParms *p) {
  GRAPH_ARGS_CHECK("cudaGraphAddMemcpyNode", graph, deps, n);
  if (!p) return cudaErrorInvalidValue;
  const cudaMemcpy3DParms copy = *p;
  *pGraphNode = add_node(graph, cudaGraphNodeTypeMemcpy,
                         make_step([copy](cudaStream_t) { return cudaMemcpy3D(&copy); }), deps, n);
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                     size_t n, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  GRAPH_ARGS_CHECK("cudaGraphAddMemcpyNode1D", graph, deps, n);
  *pGraphNode = add_node(graph, cudaGraphNodeTypeMemcpy, memcpy1d_step(dst, src, count, kind), deps, n);
  return cudaSuccess;
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t n, const cudaMemsetParams *p) {
  GRAPH_ARGS_CHECK("cudaGraphAddMemsetNode", graph, deps, n);
  if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
    return fail(cudaErrorInvalidValue, "%s: elementSize must be 1, 2 or 4", "cudaGraphAddMemsetNode");
  *pGraphNode = add_node(graph, cudaGraphNodeTypeMemset, memset_step(*p), deps, n);
  return cudaSuccess;
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                 size_t n, const cudaHostNodeParams *p) {
  GRAPH_ARGS_CHECK("cudaGraphAddHostNode", graph, deps, n);
  if (!p || !p->fn) return cudaErrorInvalidValue;
  CUgraphNode_st *node = add_node(graph, cudaGraphNodeTypeHost, host_step(p->fn, p->userData), deps, n);
  node->host = *p;
  *pGraphNode = node;
  return cudaSuccess;
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                  size_t n) {
  GRAPH_ARGS_CHECK("cudaGraphAddEmptyNode", graph, deps, n);
  *pGraphNode = add_node(graph, cudaGraphNodeTypeEmpty, new EmptyStep(), deps, n);
  return cudaSuccess;
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                       size_t n, cudaGraph_t childGraph) {
  GRAPH_ARGS_CHECK("cudaGraphAddChildGraphNode", graph, deps, n);
  if (!childGraph) return cudaErrorInvalidValue;
  GraphStep *step = child_of(childGraph);
  if (!step) return fail(cudaErrorInvalidValue, "%s: the child graph's dependencies make a cycle",
                         "cudaGraphAddChildGraphNode");
  *pGraphNode = add_node(graph, cudaGraphNodeTypeGraph, step, deps, n);
  return cudaSuccess;
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t n) {
  if (!graph || (n && (!from || !to))) return cudaErrorInvalidValue;
  for (size_t i = 0; i < n; i++) {
    if (!in_graph(graph, from[i]) || !in_graph(graph, to[i]))
      return fail(cudaErrorInvalidValue, "%s: a node is not in this graph", "cudaGraphAddDependencies");
    if (std::find(to[i]->deps.begin(), to[i]->deps.end(), from[i]) == to[i]->deps.end())
      to[i]->deps.push_back(from[i]);
  }
  return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
  if (!graph || !numNodes) return cudaErrorInvalidValue;
  if (nodes) {
    const size_t k = std::min(*numNodes, graph->nodes.size());
    for (size_t i = 0; i < k; i++) nodes[i] = graph->nodes[i];
    for (size_t i = k; i < *numNodes; i++) nodes[i] = nullptr;
  }
  if (!nodes || *numNodes > graph->nodes.size()) *numNodes = graph->nodes.size();
  return cudaSuccess;
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num) {
  if (!graph || !num) return cudaErrorInvalidValue;
  std::vector<cudaGraphNode_t> roots;
  for (CUgraphNode_st *n : graph->nodes)
    if (n->deps.empty()) roots.push_back(n);
  if (nodes)
    for (size_t i = 0; i < *num; i++) nodes[i] = i < roots.size() ? roots[i] : nullptr;
  if (!nodes || *num > roots.size()) *num = roots.size();
  return cudaSuccess;
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type) {
  if (!node || !type) return cudaErrorInvalidValue;
  *type = node->type;
  return cudaSuccess;
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps, size_t *num) {
  if (!node || !num) return cudaErrorInvalidValue;
  if (deps)
    for (size_t i = 0; i < *num; i++) deps[i] = i < node->deps.size() ? node->deps[i] : nullptr;
  if (!deps || *num > node->deps.size()) *num = node->deps.size();
  return cudaSuccess;
}
cudaError_t cudaGraphClone(cudaGraph_t *pClone, cudaGraph_t graph) {
  if (!pClone || !graph) return cudaErrorInvalidValue;
  CUgraph_st *c = new CUgraph_st();
  for (CUgraphNode_st *n : graph->nodes) {
    CUgraphNode_st *m = new CUgraphNode_st(*n);
    m->graph = c;
    m->step = n->step->clone();
    if (m->type == cudaGraphNodeTypeKernel && m->kernel.func)
      m->kernel.kernelParams = static_cast<ArgsKernel *>(m->step)->args;
    c->nodes.push_back(m);
  }
  for (CUgraphNode_st *m : c->nodes) /* dependencies point at the clone's own nodes */
    for (CUgraphNode_st *&d : m->deps) d = c->nodes[std::find(graph->nodes.begin(), graph->nodes.end(), d) - graph->nodes.begin()];
  *pClone = c;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  (void)flags;
  if (!pGraphExec || !graph) return cudaErrorInvalidValue;
  return instantiate(pGraphExec, graph);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  if (!graphExec) return cudaErrorInvalidValue;
  delete graphExec;
  return cudaSuccess;
}
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  (void)stream;
  return graphExec ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  SyncCall quiet(nullptr); /* its copies and memsets are in stream order, not host synchronisations */
  if (!graphExec) return cudaErrorInvalidValue;
  if (sticky_error() != cudaSuccess) return sticky_error();
  if (capturing(stream)) {
    ChildGraph *c = new ChildGraph();
    for (const GraphStep *s : graphExec->steps) c->steps.push_back(s->clone());
    return capture_step(stream, cudaGraphNodeTypeGraph, c);
  }
  for (GraphStep *s : graphExec->steps) {
    const cudaError_t e = s->run(stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
/* The step an executable graph made from `node`, or -1. */
static long exec_index(cudaGraphExec_t x, cudaGraphNode_t node, cudaGraphNodeType type) {
  for (size_t i = 0; i < x->from.size(); i++)
    if (x->from[i] == node) return x->types[i] == type ? (long)i : -1;
  return -1;
}
static cudaError_t exec_replace(cudaGraphExec_t x, cudaGraphNode_t node, cudaGraphNodeType type, GraphStep *step,
                                const char *fn) {
  const long i = x && node ? exec_index(x, node, type) : -1;
  if (i < 0) {
    delete step;
    return fail(cudaErrorInvalidValue, "%s: the node is not a node of that type in the graph this was instantiated from",
                fn);
  }
  delete x->steps[i];
  x->steps[i] = step;
  return cudaSuccess;
}
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node, const cudaHostNodeParams *p) {
  if (!p || !p->fn) return cudaErrorInvalidValue;
  return exec_replace(x, node, cudaGraphNodeTypeHost, host_step(p->fn, p->userData), "cudaGraphExecHostNodeSetParams");
}
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t x, cudaGraphNode_t node, void *dst, const void *src,
                                               size_t count, cudaMemcpyKind kind) {
  return exec_replace(x, node, cudaGraphNodeTypeMemcpy, memcpy1d_step(dst, src, count, kind),
                      "cudaGraphExecMemcpyNodeSetParams1D");
}
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node, const cudaMemsetParams *p) {
  if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)) return cudaErrorInvalidValue;
  return exec_replace(x, node, cudaGraphNodeTypeMemset, memset_step(*p), "cudaGraphExecMemsetNodeSetParams");
}
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams *p) {
  if (!node || !p || node->type != cudaGraphNodeTypeHost || !node->host.fn) return cudaErrorInvalidValue;
  *p = node->host;
  return cudaSuccess;
}
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *p) {
  if (!node || !p || !p->fn || node->type != cudaGraphNodeTypeHost) return cudaErrorInvalidValue;
  delete node->step;
  node->step = host_step(p->fn, p->userData);
  node->host = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, size_t *numEdges) {
  if (!graph || !numEdges) return cudaErrorInvalidValue;
  std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> edges;
  for (CUgraphNode_st *n : graph->nodes)
    for (CUgraphNode_st *d : n->deps) edges.push_back({d, n});
  if (from && to)
    for (size_t i = 0; i < *numEdges; i++) {
      from[i] = i < edges.size() ? edges[i].first : nullptr;
      to[i] = i < edges.size() ? edges[i].second : nullptr;
    }
  if (!from || !to || *numEdges > edges.size()) *numEdges = edges.size();
  return cudaSuccess;
}
/* The graph in Graphviz's DOT language: a node a line, named by its type (a kernel by name). */
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags) {
  (void)flags;
  if (!graph || !path) return cudaErrorInvalidValue;
  FILE *f = fopen(path, "w");
  if (!f) return fail(cudaErrorInvalidValue, "cudaGraphDebugDotPrint: cannot write %s", path);
  static const char *const kinds[] = {"kernel", "memcpy", "memset", "host", "graph", "empty", "wait event",
                                      "record event"};
  fprintf(f, "digraph cudaGraph {\n");
  for (size_t i = 0; i < graph->nodes.size(); i++) {
    const CUgraphNode_st *n = graph->nodes[i];
    const ArgsKernel *k = n->type == cudaGraphNodeTypeKernel ? dynamic_cast<const ArgsKernel *>(n->step) : nullptr;
    const DeferredKernel *dk = n->type == cudaGraphNodeTypeKernel ? dynamic_cast<const DeferredKernel *>(n->step) : nullptr;
    const char *name = k ? k->name : dk && dk->info.name ? dk->info.name : kinds[n->type <= 7 ? n->type : 5];
    fprintf(f, "  n%zu [label=\"%zu: %s\"];\n", i, i, name ? name : "kernel");
  }
  for (size_t i = 0; i < graph->nodes.size(); i++)
    for (const CUgraphNode_st *d : graph->nodes[i]->deps)
      fprintf(f, "  n%zu -> n%zu;\n",
              (size_t)(std::find(graph->nodes.begin(), graph->nodes.end(), d) - graph->nodes.begin()), i);
  fprintf(f, "}\n");
  fclose(f);
  return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *status, unsigned long long *id,
                                     cudaGraph_t *graph, const cudaGraphNode_t **deps, size_t *numDeps) {
  if (!status) return cudaErrorInvalidValue;
  const bool on = capturing(stream);
  *status = !on ? cudaStreamCaptureStatusNone
           : stream->capture->spoilt ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  if (id) *id = on ? (unsigned long long)(uintptr_t)stream->capture : 0;
  if (graph) *graph = on ? stream->capture->graph : nullptr;
  if (deps) *deps = on && stream->last ? &stream->last : nullptr;
  if (numDeps) *numDeps = on && stream->last ? 1 : 0;
  return cudaSuccess;
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *p) {
  if (!graphExec || !node || !p) return cudaErrorInvalidValue;
  for (size_t i = 0; i < graphExec->from.size(); i++)
    if (graphExec->from[i] == node) {
      if (graphExec->types[i] != cudaGraphNodeTypeKernel) return cudaErrorInvalidValue;
      cudaError_t e = cudaSuccess;
      GraphStep *step = kernel_step(p, "cudaGraphExecKernelNodeSetParams", &e);
      if (!step) return e;
      delete graphExec->steps[i];
      graphExec->steps[i] = step;
      return cudaSuccess;
    }
  return fail(cudaErrorInvalidValue, "%s: the node is not in the graph this was instantiated from",
              "cudaGraphExecKernelNodeSetParams");
}
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t graphExec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info) {
  if (!graphExec || !graph) return cudaErrorInvalidValue;
  std::vector<const CUgraphNode_st *> order;
  bool same = topo_order(graph, order) && order.size() == graphExec->steps.size();
  for (size_t i = 0; same && i < order.size(); i++) same = order[i]->type == graphExec->types[i];
  if (info) {
    info->result = same ? cudaGraphExecUpdateSuccess : cudaGraphExecUpdateErrorTopologyChanged;
    info->errorNode = info->errorFromNode = nullptr;
  }
  if (!same) return cudaErrorGraphExecUpdateFailure;
  for (size_t i = 0; i < order.size(); i++) {
    delete graphExec->steps[i];
    graphExec->steps[i] = order[i]->step->clone();
    graphExec->from[i] = order[i];
  }
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  (void)mode;
  if ((uintptr_t)stream <= 2)
    return fail(cudaErrorStreamCaptureUnsupported, "%s: the default stream cannot capture; capture into a stream of "
                "your own (cudaStreamCreate)", "cudaStreamBeginCapture");
  if (stream->capture) return fail(cudaErrorIllegalState, "%s: the stream is capturing already", "cudaStreamBeginCapture");
  Capture *c = new Capture();
  c->origin = stream;
  c->graph = new CUgraph_st();
  c->streams.push_back(stream);
  c->spoilt = false;
  stream->capture = c;
  stream->last = nullptr;
  stream->joined.clear();
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
  if (!capturing(stream)) return fail(cudaErrorIllegalState, "%s: the stream is not capturing", "cudaStreamEndCapture");
  Capture *c = stream->capture;
  if (c->origin != stream)
    return fail(cudaErrorStreamCaptureUnmatched, "%s: the capture began in another stream", "cudaStreamEndCapture");
  for (cudaStream_t s : c->streams) {
    s->capture = nullptr;
    s->last = nullptr;
    s->joined.clear();
  }
  for (cudaEvent_t e : c->events)
    if (e->capture == c) e->capture = nullptr;
  const bool spoilt = c->spoilt;
  CUgraph_st *g = c->graph;
  delete c;
  if (spoilt) {
    delete g;
    if (pGraph) *pGraph = nullptr;
    return cudaErrorStreamCaptureInvalidated;
  }
  if (pGraph) *pGraph = g;
  else delete g;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status) {
  if (!status) return cudaErrorInvalidValue;
  *status = !capturing(stream) ? cudaStreamCaptureStatusNone
            : stream->capture->spoilt ? cudaStreamCaptureStatusInvalidated
                                      : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
  return mode ? cudaSuccess : cudaErrorInvalidValue;
}

}  /* extern "C" */
