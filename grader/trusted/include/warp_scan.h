/**
 * @file warp_scan.h
 * @brief Lab 04: the warp scans students write (`skeletons/04-warp-scan/warp_scan.cu`), the
 *        operators they are tested with, and the batched launch the tests call.
 *
 * A warp scan combines the values held by the lanes of one warp: lane `i` ends with
 * `x_0 op x_1 op ... op x_i` (inclusive) or `x_0 op ... op x_(i-1)` (exclusive). Students
 * write three device templates, in their own file:
 *
 * | function            | how                                                       |
 * |---------------------|-----------------------------------------------------------|
 * | scanIncWarp()       | `__shfl_up_sync` in log2(32) = 5 steps, no shared memory  |
 * | scanExcWarp()       | derived from scanIncWarp() with one more shuffle          |
 * | scanIncWarpSmem()   | the same steps through shared memory, `__syncwarp` between |
 *
 * Worked example on a warp of 8 active lanes (mask `0xff`) with Add:
 *
 *     x               {3, 1, 7,  0,  4,  1,  6,  3}
 *     scanIncWarp     {3, 4, 11, 11, 15, 16, 22, 25}
 *     scanExcWarp(0)  {0, 3, 4,  11, 11, 15, 16, 22}
 *
 * **Design.** The scans are templates, so they must be instantiated where they are defined:
 * in the student's file. That file therefore also holds, outside its student regions, the
 * kit's batched kernel and the host function warpScanBatch(), explicitly instantiated for the
 * types and operators the tests use (int Add/Max/Min, float Add, Affine Compose). The tests
 * include only this header and call warpScanBatch(); they never see a template body. The
 * kernel gives each warp its own elements and passes each warp the mask of its live lanes.
 *
 * **The lane contract.** A warp scan is called by the lanes named in @p mask, and only by
 * them, all at the same call. The mask is always a prefix of the warp: lanes `0..k-1`, with
 * `1 <= k <= 32` (`k < 32` in the last warp of a block whose size is not a multiple of 32,
 * and in the warp that holds element `n-1`). Lanes `k..31` do not exist, or are still
 * running but do not call: in the tests' kernel they go on to a `__syncthreads()`. Use
 * @p mask, never a constant `0xffffffff`, in every `_sync` intrinsic: a mask that names a
 * running lane which never makes the same call is undefined behaviour on the GPU (a hang, or
 * garbage) and a deadlock the emu backend reports. Blocks are one-dimensional: the lane is
 * `threadIdx.x % 32`.
 */
#ifndef SCANLAB_WARP_SCAN_H
#define SCANLAB_WARP_SCAN_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** Threads per warp on every NVIDIA GPU the kit targets. */
#define WARP_SIZE 32
/** The mask naming all 32 lanes. */
#define WARP_FULL_MASK 0xffffffffu

/** @name Operators
 *  Function objects usable on the host and the device. Each is associative; Compose is not
 *  commutative, so a scan that swaps operands fails with it. The earlier value is always the
 *  left operand: `op(x_0..x_(i-1), x_i)`.
 *  @{ */

/** Addition (identity 0). Integer sums wrap modulo 2^32 on the GPU. */
struct Add {
  /** `a + b` */
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};
/** Maximum (identity: the lowest value of the type, `INT32_MIN` for int). */
struct Max {
  /** the larger of @p a and @p b */
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
/** Minimum (identity: the highest value of the type, `INT32_MAX` for int). */
struct Min {
  /** the smaller of @p a and @p b */
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};

/** An affine map `x -> a*x + b` on 32-bit unsigned integers (arithmetic modulo 2^32). */
struct Affine {
  uint32_t a; /**< slope */
  uint32_t b; /**< offset */
};

/**
 * @brief Composition of affine maps, in order: `Compose()(f, g)` is "f, then g",
 * `x -> g.a*(f.a*x + f.b) + g.b`. Associative, not commutative; identity `{1, 0}`.
 *
 * A scan with Compose gives lane `i` the map that applies `x_0`, then `x_1`, ..., then `x_i`.
 */
struct Compose {
  /** "@p f, then @p g" */
  __host__ __device__ Affine operator()(Affine f, Affine g) const {
    Affine r;
    r.a = g.a * f.a;
    r.b = g.a * f.b + g.b;
    return r;
  }
};
/** @} */

/** @name Helpers for the device code
 *  @{ */

/** @cond WS_SITE */
#ifdef SCANLAB_EMU
/* On the emu a shuffle names the line that called it in its messages (a deadlock, a lane that
 * never comes); these helpers take their caller's line and hand it on, so a message names the
 * line of the student's code that called the helper, not a line of this header. */
#define WS_CALLER , SCANLAB_EMU_SITE
#define WS_AT , warpSize, scanlab_emu_file, scanlab_emu_line
#else
#define WS_CALLER
#define WS_AT
#endif
/** @endcond */

/**
 * @brief `__shfl_up_sync` for a value of any trivially copyable type whose size is a multiple
 * of 4 bytes (int, float, Affine, ...): each 32-bit word is shuffled on its own.
 *
 * The CUDA intrinsic takes only built-in types; use this one in templates. Lane `i` receives
 * @p v of lane `i - delta`; lanes `i < delta` get their own @p v back. Every lane of @p mask
 * must call it, with the same @p mask and @p delta.
 */
template <typename T>
__device__ inline T shflUpAny(unsigned mask, T v, unsigned delta WS_CALLER) {
  static_assert(sizeof(T) % 4 == 0, "shflUpAny: the size of T must be a multiple of 4 bytes");
  unsigned words[sizeof(T) / 4];
  memcpy(words, &v, sizeof(T));
  for (unsigned k = 0; k < sizeof(T) / 4; k++) words[k] = __shfl_up_sync(mask, words[k], delta WS_AT);
  memcpy(&v, words, sizeof(T));
  return v;
}

/** `__shfl_down_sync` for any type as shflUpAny(): lane `i` receives @p v of lane `i + delta`
 *  (its own where that lane is past the warp). */
template <typename T>
__device__ inline T shflDownAny(unsigned mask, T v, unsigned delta WS_CALLER) {
  static_assert(sizeof(T) % 4 == 0, "shflDownAny: the size of T must be a multiple of 4 bytes");
  unsigned words[sizeof(T) / 4];
  memcpy(words, &v, sizeof(T));
  for (unsigned k = 0; k < sizeof(T) / 4; k++) words[k] = __shfl_down_sync(mask, words[k], delta WS_AT);
  memcpy(&v, words, sizeof(T));
  return v;
}

/** `__shfl_sync` for any type as shflUpAny(): every lane receives @p v of lane @p src. */
template <typename T>
__device__ inline T shflAny(unsigned mask, T v, int src WS_CALLER) {
  static_assert(sizeof(T) % 4 == 0, "shflAny: the size of T must be a multiple of 4 bytes");
  unsigned words[sizeof(T) / 4];
  memcpy(words, &v, sizeof(T));
  for (unsigned k = 0; k < sizeof(T) / 4; k++) words[k] = __shfl_sync(mask, words[k], src WS_AT);
  memcpy(&v, words, sizeof(T));
  return v;
}

/** The mask of lanes `0..k-1` (`k` from 0 to 32). */
__host__ __device__ inline unsigned warpPrefixMask(int k) {
  return k >= WARP_SIZE ? WARP_FULL_MASK : (k <= 0 ? 0u : (1u << k) - 1u);
}
/** @} */

/** @name What students write (in warp_scan.cu)
 *  @{ */

/**
 * @brief Inclusive scan across the lanes of @p mask: lane `i` returns
 * `x_0 op x_1 op ... op x_i`, where `x_j` is the @p x passed by lane `j`.
 *
 * Algorithm (Kogge-Stone on registers), for `d = 1, 2, 4, 8, 16`:
 * 1. every lane fetches the running value `y` of lane `i - d` with `__shfl_up_sync`;
 * 2. lanes with `i >= d` set `x = op(y, x)` (the earlier value on the left).
 *
 * No shared memory, no barrier: the shuffle is the synchronisation.
 *
 * @param x    this lane's value
 * @param op   associative operator, such as Add, Max, Min or Compose
 * @param mask the calling lanes, a prefix `0..k-1` of the warp (see the lane contract above)
 * @return     the inclusive scan at this lane
 */
template <typename T, typename Op>
__device__ T scanIncWarp(T x, Op op, unsigned mask = WARP_FULL_MASK);

/**
 * @brief Exclusive scan across the lanes of @p mask: lane 0 returns @p identity and lane
 * `i > 0` returns `x_0 op ... op x_(i-1)`.
 *
 * Algorithm: call scanIncWarp(), then shift its results up by one lane with one more
 * shuffle; lane 0 takes @p identity.
 *
 * @param x        this lane's value
 * @param op       associative operator
 * @param identity the identity of @p op (`op(identity, v) == v`)
 * @param mask     the calling lanes, a prefix of the warp
 * @return         the exclusive scan at this lane
 */
template <typename T, typename Op>
__device__ T scanExcWarp(T x, Op op, T identity, unsigned mask = WARP_FULL_MASK);

/**
 * @brief Inclusive scan across the lanes of @p mask through shared memory, the way warp
 * scans were written before shuffles: the same five steps as scanIncWarp(), each reading
 * and writing @p s, with `__syncwarp(mask)` wherever one lane's write must be seen by
 * another lane's read (or a read must happen before an overwrite).
 *
 * @param x    this lane's value
 * @param op   associative operator
 * @param s    this warp's 32 elements of shared memory (the caller passes `&buf[warp * 32]`);
 *             the function may overwrite all of them
 * @param mask the calling lanes, a prefix of the warp
 * @return     the inclusive scan at this lane
 */
template <typename T, typename Op>
__device__ T scanIncWarpSmem(T x, Op op, T *s, unsigned mask = WARP_FULL_MASK);
/** @} */

/** @name The batched launch the tests call
 *  @{ */

/** Which warp scan warpScanBatch() runs. */
enum WarpScanVariant {
  WARP_SCAN_INC = 0,      /**< scanIncWarp() */
  WARP_SCAN_EXC = 1,      /**< scanExcWarp() */
  WARP_SCAN_INC_SMEM = 2  /**< scanIncWarpSmem() */
};

/**
 * @brief Runs one warp scan on every warp of a grid: element `j` belongs to thread
 * `j % block` of block `j / block`, and each warp scans the elements of its own lanes.
 *
 * Equivalently, the array is cut into blocks of @p block elements and each block into runs
 * of 32 (the last run of a block is shorter when @p block is not a multiple of 32, and the
 * run holding element `n-1` ends there); every run is scanned on its own.
 *
 * Defined in the student's file (kit code outside the student regions) and instantiated
 * there for `<int32_t, Add>`, `<int32_t, Max>`, `<int32_t, Min>`, `<float, Add>` and
 * `<Affine, Compose>`.
 *
 * @param variant  which scan
 * @param d_in     @p n device elements
 * @param d_out    @p n device elements, not overlapping @p d_in
 * @param n        number of elements (0: nothing is launched)
 * @param block    threads per block, 1 to 1024 (need not be a multiple of 32)
 * @param op       the operator
 * @param identity its identity (used by WARP_SCAN_EXC)
 * @return the launch's error (`cudaGetLastError()`), cudaSuccess when nothing was launched
 */
template <typename T, typename Op>
cudaError_t warpScanBatch(WarpScanVariant variant, const T *d_in, T *d_out, size_t n, int block,
                          Op op, T identity);
/** @} */

#endif /* SCANLAB_WARP_SCAN_H */
