/**
 * @file cooperative_groups.h
 * @brief Emulation backend: cooperative groups (`namespace cooperative_groups`), built on the
 *        emulator's barriers and warp collectives.
 *
 * Thread blocks (`this_thread_block()`), tiles of 1 to 32 threads (`tiled_partition<N>()` and
 * `tiled_partition(parent, n)`) with their shuffles, votes, matches and `sync()`, coalesced
 * groups (`coalesced_threads()`, `labeled_partition`, `binary_partition`), grid groups
 * (`this_grid()`, whose `sync()` needs a launch by `cudaLaunchCooperativeKernel`),
 * and, as in the toolkit, each from its own header: `cg::reduce` (cooperative_groups/reduce.h),
 * `cg::inclusive_scan` and `cg::exclusive_scan` (cooperative_groups/scan.h), both with
 * `cg::plus`, `cg::less`, `cg::greater`, `cg::bit_and`, `cg::bit_or` and `cg::bit_xor`, and
 * `cg::memcpy_async` with `cg::wait` (cooperative_groups/memcpy_async.h): a program that uses
 * one without its header fails to build here as it does with nvcc. Each collective reports its misuse as the warp intrinsic under it does, at the
 * line of the call. What is not emulated (multi-grid and cluster groups, tiles larger than a
 * warp made at compile time) does not compile, and the message names it. See @ref emu.
 */
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_
/// @cond EMU_INTERNAL
#include "cuda_runtime.h"

namespace cooperative_groups {
namespace details {

inline unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane_id() { return linear_tid() & 31u; }
/* The lanes of the tile of n threads (a power of two up to 32) that holds this lane. */
inline unsigned tile_mask(unsigned n) {
  return n >= 32 ? 0xffffffffu : ((1u << n) - 1u) << (lane_id() & ~(n - 1u));
}
/* The lane of the warp holding the k-th lane (from 0) of mask. */
inline int nth_lane(unsigned mask, unsigned k) {
  for (unsigned m = mask; m; m &= m - 1, k--)
    if (k == 0) return __builtin_ctz(m);
  return -1;
}
template <class T>
struct always_false : std::false_type {};

/* A shuffle of a value of any size (the warp intrinsics move at most 8 bytes at a time). */
template <class T>
inline T shuffle(int kind, unsigned mask, const T &var, int param, int width, const char *file, int line) {
  static_assert(std::is_trivially_copyable<T>::value, "cooperative groups shuffle trivially copyable values only");
  T out;
  const unsigned char *src = reinterpret_cast<const unsigned char *>(&var);
  unsigned char *dst = reinterpret_cast<unsigned char *>(&out);
  for (size_t off = 0; off < sizeof(T); off += 8) {
    const size_t n = sizeof(T) - off < 8 ? sizeof(T) - off : 8;
    unsigned long long bits = 0;
    __builtin_memcpy(&bits, src + off, n);
    bits = ::scanlab_emu::collective(kind, mask, bits, param, width, file, line);
    __builtin_memcpy(dst + off, &bits, n);
  }
  return out;
}

}  // namespace details

/* What a group is; thread_group holds any of them (as a real thread_group does). */
enum class group_kind { block, tile, coalesced, grid };

class thread_group {
 protected:
  group_kind kind_;
  unsigned mask_;  /* tile and coalesced groups: the lanes of the warp in the group */
  unsigned size_;  /* tile: its size */
  thread_group(group_kind k, unsigned mask, unsigned size) : kind_(k), mask_(mask), size_(size) {}

 public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    switch (kind_) {
      case group_kind::block: return details::block_threads();
      case group_kind::tile: return size_;
      case group_kind::coalesced: return (unsigned)__builtin_popcount(mask_);
      case group_kind::grid: return (unsigned long long)details::block_threads() * gridDim.x * gridDim.y * gridDim.z;
    }
    return 0;
  }
  unsigned long long thread_rank() const {
    switch (kind_) {
      case group_kind::block: return details::linear_tid();
      case group_kind::tile: return details::linear_tid() & (size_ - 1u);
      case group_kind::coalesced: return (unsigned)__builtin_popcount(mask_ & ((1u << details::lane_id()) - 1u));
      case group_kind::grid:
        return (unsigned long long)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) *
                   details::block_threads() + details::linear_tid();
    }
    return 0;
  }
  void sync(SCANLAB_EMU_SITE) const {
    switch (kind_) {
      case group_kind::block: ::scanlab_emu::barrier(::scanlab_emu::BAR_SYNC, 1, SCANLAB_EMU_AT); break;
      case group_kind::tile:
      case group_kind::coalesced: __syncwarp(mask_, SCANLAB_EMU_AT); break;
      case group_kind::grid: ::scanlab_emu::grid_sync(SCANLAB_EMU_AT); break;
    }
  }
  bool is_valid() const { return kind_ != group_kind::grid || ::scanlab_emu::grid_is_cooperative(); }
  unsigned get_type() const { return (unsigned)kind_; }
};

/* ---- thread blocks ---- */
class thread_block : public thread_group {
  friend thread_block this_thread_block();
  thread_block() : thread_group(group_kind::block, 0, 0) {}

 public:
  static void sync(SCANLAB_EMU_SITE) { ::scanlab_emu::barrier(::scanlab_emu::BAR_SYNC, 1, SCANLAB_EMU_AT); }
  static unsigned thread_rank() { return details::linear_tid(); }
  static unsigned long long size() { return details::block_threads(); }
  static unsigned num_threads() { return details::block_threads(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};
inline thread_block this_thread_block() { return thread_block(); }
/* The shared memory that tiles larger than a warp need: such tiles are not emulated, and
 * naming it says so when compiling (rather than "does not name a template type"). */
template <unsigned A = 1024, unsigned B = 0> /* <MaxBlockSize>, or CUDA 11's <CommSize, MaxBlockSize> */
struct block_tile_memory {
  static_assert(A != A,
                "cg::block_tile_memory: thread block tiles larger than a warp (tiled_partition<64> and up) are "
                "not supported by the ScanLab CPU emulator (emu)");
};
template <unsigned A, unsigned B>
thread_block this_thread_block(block_tile_memory<A, B> &);

/* ---- grids (sync needs a cooperative launch) ---- */
class grid_group : public thread_group {
  friend grid_group this_grid();
  grid_group() : thread_group(group_kind::grid, 0, 0) {}

 public:
  static void sync(SCANLAB_EMU_SITE) { ::scanlab_emu::grid_sync(SCANLAB_EMU_AT); }
  static bool is_valid() { return ::scanlab_emu::grid_is_cooperative(); }
  static unsigned long long thread_rank() {
    return (unsigned long long)block_rank() * details::block_threads() + details::linear_tid();
  }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long num_threads() { return (unsigned long long)num_blocks() * details::block_threads(); }
  static unsigned long long block_rank() { return blockIdx.x + gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z); }
  static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  static dim3 group_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};
inline grid_group this_grid() { return grid_group(); }

/* ---- the collectives of a group inside one warp (a tile or coalesced lanes) ---- */
class coalesced_group;

namespace details {
/* Members shared by tiles and coalesced groups; `rank_lane` maps a rank to its lane. */
class warp_group : public thread_group {
 protected:
  warp_group(group_kind k, unsigned mask, unsigned size) : thread_group(k, mask, size) {}
  int lane_of_rank(unsigned r) const {
    if (kind_ == group_kind::tile) return (int)((lane_id() & ~(size_ - 1u)) + (r & (size_ - 1u)));
    return nth_lane(mask_, r);
  }
  unsigned compact(unsigned bits) const {
    if (kind_ == group_kind::tile) return size_ >= 32 ? bits : (bits >> (lane_id() & ~(size_ - 1u))) & ((1u << size_) - 1u);
    unsigned out = 0, k = 0;
    for (unsigned m = mask_; m; m &= m - 1, k++)
      if (bits & (m & (0u - m))) out |= 1u << k;
    return out;
  }

 public:
  unsigned long long num_threads() const { return thread_group::num_threads(); }
  unsigned long long size() const { return thread_group::num_threads(); }
  unsigned thread_rank() const { return (unsigned)thread_group::thread_rank(); }
  void sync(SCANLAB_EMU_SITE) const { __syncwarp(mask_, SCANLAB_EMU_AT); }

  template <class T>
  T shfl(T var, int srcRank, SCANLAB_EMU_SITE) const {
    if (kind_ == group_kind::tile)
      return shuffle(::scanlab_emu::COLL_SHFL, mask_, var, srcRank, (int)size_, SCANLAB_EMU_AT);
    const int lane = lane_of_rank((unsigned)srcRank % (unsigned)__builtin_popcount(mask_));
    return shuffle(::scanlab_emu::COLL_SHFL, mask_, var, lane, 32, SCANLAB_EMU_AT);
  }
  template <class T>
  T shfl_down(T var, unsigned delta, SCANLAB_EMU_SITE) const {
    if (kind_ == group_kind::tile)
      return shuffle(::scanlab_emu::COLL_SHFL_DOWN, mask_, var, (int)delta, (int)size_, SCANLAB_EMU_AT);
    const unsigned r = thread_rank(), n = (unsigned)__builtin_popcount(mask_);
    const int lane = r + delta < n ? lane_of_rank(r + delta) : (int)lane_id();
    return shuffle(::scanlab_emu::COLL_SHFL, mask_, var, lane, 32, SCANLAB_EMU_AT);
  }
  template <class T>
  T shfl_up(T var, unsigned delta, SCANLAB_EMU_SITE) const {
    if (kind_ == group_kind::tile)
      return shuffle(::scanlab_emu::COLL_SHFL_UP, mask_, var, (int)delta, (int)size_, SCANLAB_EMU_AT);
    const unsigned r = thread_rank();
    const int lane = r >= delta ? lane_of_rank(r - delta) : (int)lane_id();
    return shuffle(::scanlab_emu::COLL_SHFL, mask_, var, lane, 32, SCANLAB_EMU_AT);
  }
  template <class T>
  T shfl_xor(T var, unsigned laneMask, SCANLAB_EMU_SITE) const {
    if (kind_ == group_kind::tile)
      return shuffle(::scanlab_emu::COLL_SHFL_XOR, mask_, var, (int)laneMask, (int)size_, SCANLAB_EMU_AT);
    const unsigned r = thread_rank() ^ laneMask, n = (unsigned)__builtin_popcount(mask_);
    const int lane = r < n ? lane_of_rank(r) : (int)lane_id();
    return shuffle(::scanlab_emu::COLL_SHFL, mask_, var, lane, 32, SCANLAB_EMU_AT);
  }
  int any(int pred, SCANLAB_EMU_SITE) const { return __any_sync(mask_, pred, SCANLAB_EMU_AT); }
  int all(int pred, SCANLAB_EMU_SITE) const { return __all_sync(mask_, pred, SCANLAB_EMU_AT); }
  unsigned ballot(int pred, SCANLAB_EMU_SITE) const { return compact(__ballot_sync(mask_, pred, SCANLAB_EMU_AT)); }
  template <class T>
  unsigned match_any(T value, SCANLAB_EMU_SITE) const { return compact(__match_any_sync(mask_, value, SCANLAB_EMU_AT)); }
  template <class T>
  unsigned match_all(T value, int &pred, SCANLAB_EMU_SITE) const {
    return compact(__match_all_sync(mask_, value, &pred, SCANLAB_EMU_AT));
  }
  /* the lanes of the warp in the group (not CUDA: for cg::labeled_partition) */
  unsigned scanlab_emu_mask() const { return mask_; }
};
}  // namespace details

/* ---- tiles of a block: 1 to 32 threads, a power of two ---- */
template <unsigned int Size, typename ParentT = void>
class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void> : public details::warp_group {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "thread_block_tile: the ScanLab CPU emulator (emu) supports tiles of 1, 2, 4, 8, 16 or 32 threads "
                "(tiles larger than a warp, with block_tile_memory, are not supported)");
  unsigned parent_size_;

 public:
  /* made by tiled_partition<Size>(parent), which gives the parent's size */
  explicit thread_block_tile(unsigned parent_size)
      : details::warp_group(group_kind::tile, details::tile_mask(Size), Size), parent_size_(parent_size) {}
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned long long size() { return Size; }
  unsigned meta_group_rank() const { return (details::linear_tid() % parent_size_) / Size; }
  unsigned meta_group_size() const { return (parent_size_ + Size - 1) / Size; }
};

template <unsigned int Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  explicit thread_block_tile(unsigned parent_size) : thread_block_tile<Size, void>(parent_size) {}
};

namespace details {
inline unsigned parent_threads(const thread_block &) { return block_threads(); }
template <unsigned M, class P>
inline unsigned parent_threads(const thread_block_tile<M, P> &) { return M; }
}  // namespace details

/* tiled_partition<N>(block) and tiled_partition<N>(tile of M >= N threads) */
template <unsigned N, class P>
inline thread_block_tile<N, P> tiled_partition(const P &parent) {
  static_assert(std::is_same<P, thread_block>::value || std::is_base_of<details::warp_group, P>::value,
                "tiled_partition<N>: the ScanLab CPU emulator (emu) partitions thread blocks and their tiles");
  return thread_block_tile<N, P>(details::parent_threads(parent));
}

/* tiled_partition(parent, n): a tile whose size is known when running (a power of two up to
 * 32, or the whole block). */
inline thread_group tiled_partition(const thread_group &parent, unsigned tilesz, SCANLAB_EMU_SITE) {
  const unsigned long long n = parent.num_threads();
  if (tilesz >= n && parent.get_type() == (unsigned)group_kind::block) return parent;
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)))
    ::scanlab_emu::unsupported_at_run_time("tiled_partition(parent, n) with n not a power of two up to 32", SCANLAB_EMU_AT);
  struct tile_group : thread_group {
    explicit tile_group(unsigned n) : thread_group(group_kind::tile, details::tile_mask(n), n) {}
  };
  return tile_group(tilesz);
}

/* ---- coalesced groups ---- */
class coalesced_group : public details::warp_group {
 public:
  explicit coalesced_group(unsigned mask) : details::warp_group(group_kind::coalesced, mask, 0) {}
  unsigned meta_group_rank() const { return 0; }
  unsigned meta_group_size() const { return 1; }
};

/* The lanes of this warp that reach this call together (the emulator waits until no thread
 * of the block can run before it forms the group). */
inline coalesced_group coalesced_threads(SCANLAB_EMU_SITE) {
  return coalesced_group(::scanlab_emu::coalesced_mask(SCANLAB_EMU_AT));
}
template <class G, class L>
inline coalesced_group labeled_partition(const G &g, L label, SCANLAB_EMU_SITE) {
  static_assert(std::is_base_of<details::warp_group, G>::value,
                "labeled_partition: the ScanLab CPU emulator (emu) partitions tiles and coalesced groups");
  return coalesced_group(__match_any_sync(g.scanlab_emu_mask(), label, SCANLAB_EMU_AT));
}
template <class G>
inline coalesced_group binary_partition(const G &g, bool pred, SCANLAB_EMU_SITE) {
  return labeled_partition(g, (int)pred, SCANLAB_EMU_AT);
}

template <class G>
inline void sync(const G &g, SCANLAB_EMU_SITE) {
  g.sync(SCANLAB_EMU_AT);
}

/* ---- not emulated ---- */
template <class T = void>
inline void this_multi_grid() {
  static_assert(details::always_false<T>::value,
                "cooperative_groups::this_multi_grid: multi-device groups are not supported by the ScanLab CPU "
                "emulator (emu)");
}
template <class T = void>
inline void this_cluster() {
  static_assert(details::always_false<T>::value,
                "cooperative_groups::this_cluster: thread block clusters are not supported by the ScanLab CPU "
                "emulator (emu)");
}

}  // namespace cooperative_groups
/// @endcond
#endif /* _COOPERATIVE_GROUPS_H_ */
