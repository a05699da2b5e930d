/**
 * @file seg_scan.h
 * @brief Lab 06: segmented scans (`skeletons/06-segmented-scan/seg_scan.cu`): the segmented
 *        operator, two warp forms, the block form, and a single pass over any length.
 *
 * A segmented scan scans many independent runs of one array at once. The runs (*segments*)
 * are given by **head flags**, one byte per element: a non-zero byte (any value, 1, 0x80 or
 * 0xFF alike) starts a segment there, and element 0 always starts one, flagged or not. Each
 * element's result combines only the elements of its own segment:
 *
 *     values     {3, 1, 7, 0, 4, 1, 6, 3}
 *     flags      {1, 0, 1, 0, 0, 1, 0, 1}      segments [3 1] [7 0 4] [1 6] [3]
 *     inclusive  {3, 4, 7, 7, 11, 1, 7, 3}
 *     exclusive  {0, 3, 0, 7, 7,  0, 1, 0}     (a head's exclusive result is the identity)
 *
 * The lab builds the same levels as labs 04 and 05, each from the one below:
 * 1. the **segmented operator** Segmented: any associative operator on values becomes one on
 *    (flag, value) pairs, and lab 04's warp scan, unchanged, scans the pairs
 *    (segScanIncWarpOp(), segScanExcWarpOp());
 * 2. the **direct warp form**: every lane finds the lane of its segment's head
 *    (segHeadLane()), then five shuffle steps that never reach across a head
 *    (segScanIncWarp(), segScanExcWarp());
 * 3. the **block form** from warp scans (segScanIncBlock(), segScanExcBlock());
 * 4. a **single pass over any length** with decoupled look-back, where a tile that holds a head
 *    publishes its inclusive prefix at once (segScanIncGlobal(), segScanExcGlobal()).
 *
 * The figures cited as [Sengupta et al., fig 1.N] are those of S. Sengupta, M. Harris,
 * M. Garland et al., *Efficient Parallel Scan Algorithms for Many-core GPUs* (2011), whose
 * section 1.5 this lab follows.
 *
 * **Design.** As in lab 04 the scans are templates, instantiated in the student's file for the
 * element types and operators the tests use: `<int32_t, Add>`, `<int32_t, Max>`,
 * `<int32_t, Min>`, `<float, Add>` and `<Affine16, Compose16>` (associative, not commutative).
 * That file also holds, outside its student regions, the kernels the tests launch
 * (segScanBatch(), segHeadLaneBatch(), segOpApply()) and the host functions of the single
 * pass. The tests include none of this: they call those functions through the lab's call
 * table, by name.
 *
 * Operators, helpers and lane rules come from lab 04 (warp_scan.h): Add, Max, Min, shflUpAny(),
 * shflDownAny(), shflAny(),
 * warpPrefixMask(), and the lane contract (a warp function is called by the lanes of @p mask,
 * a prefix `0..k-1` of the warp, and only by them).
 */
#ifndef SCANLAB_SEG_SCAN_H
#define SCANLAB_SEG_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "warp_scan.h"

/** Threads in a warp. */
#define SS_WARP 32
/** Largest block the block scans handle (32 warps: the warp totals fit in one warp). */
#define SS_BLOCK_MAX 1024
/* The single pass's tile shape (overridable with -D only by the tuning program of the
 * instructors' kit; the tests' sizes assume these values). */
#ifndef SS_GLOBAL_THREADS
/** Threads per block of the single pass. */
#define SS_GLOBAL_THREADS 128
#endif
#ifndef SS_GLOBAL_ITEMS
/** Elements per thread of the single pass; a multiple of 4 (16-byte accesses). */
#define SS_GLOBAL_ITEMS 64
#endif
#ifndef SS_GLOBAL_MIN_BLOCKS
/** Blocks of the single pass that must fit on one SM at once (`__launch_bounds__`: caps the
 *  registers per thread at 65536 / (4 * 128) = 128; labs/06-segmented-scan/PERF.md). */
#define SS_GLOBAL_MIN_BLOCKS 4
#endif
/** Elements per tile of the single pass: one block scans one tile. */
#define SS_GLOBAL_TILE (SS_GLOBAL_THREADS * SS_GLOBAL_ITEMS)

/** @name The lab's own non-commutative operator
 *  Lab 04's Affine is 8 bytes; the single pass packs a value and a tag into one 64-bit word, so
 *  this lab uses 4-byte affine maps.
 *  @{ */

/** An affine map `x -> a*x + b` on 16-bit unsigned integers (arithmetic modulo 2^16). */
struct Affine16 {
  uint16_t a; /**< slope */
  uint16_t b; /**< offset */
};

/**
 * @brief Composition of 16-bit affine maps, in order: `Compose16()(f, g)` is "f, then g",
 * `x -> g.a*(f.a*x + f.b) + g.b` modulo 2^16. Associative, not commutative; identity `{1, 0}`.
 */
struct Compose16 {
  /** "@p f, then @p g" */
  __host__ __device__ Affine16 operator()(Affine16 f, Affine16 g) const {
    Affine16 r;
    r.a = (uint16_t)((unsigned)g.a * f.a);
    r.b = (uint16_t)((unsigned)g.a * f.b + g.b);
    return r;
  }
};
/** @} */

/** @name Part 1: the segmented operator
 *  @{ */

/** A (flag, value) pair: `flag` non-zero means "a segment starts at or inside this range". */
template <typename T>
struct FlagValue {
  uint32_t flag; /**< head flag (any non-zero value is a head) */
  T value;       /**< the value */
};

/**
 * @brief The segmented form of an associative operator @p Op, on (flag, value) pairs
 * [Sengupta et al., fig 1.9]:
 *
 *     (fa, a) (+)s (fb, b) = (fa | fb,  fb ? b : a (+) b)
 *
 * A pair stands for a range of elements: its flag says whether a segment starts inside the
 * range, its value is the combination of the range's last segment (from its last head, or
 * from the range's start when there is none). Combining two neighbouring ranges keeps the
 * right one's value when a segment starts in it, and otherwise extends the left one's.
 * The operator is associative whenever @p Op is, and not commutative even when @p Op is.
 *
 * Example with Add: `(1, 3) (+)s (0, 1) = (1, 4)`; `(0, 4) (+)s (1, 7) = (1, 7)`.
 */
template <typename Op>
struct Segmented {
  Op op; /**< the operator on values */
  /** @p a, then @p b (the earlier range on the left); written by you in `seg_scan.cu`. */
  template <typename T>
  __host__ __device__ FlagValue<T> operator()(FlagValue<T> a, FlagValue<T> b) const;
};
/** @} */

/** @name What students write (in seg_scan.cu)
 *  Warp functions follow lab 04's lane contract; block functions need a block of whole warps.
 *  A lane's @p head is its element's flag (the caller turns the byte into a bool). The first
 *  lane (or thread) of the calling group starts a segment whether or not its @p head is set.
 *  @{ */

/**
 * @brief Inclusive segmented scan across the lanes of @p mask by operator transformation: the
 * lanes' (head, x) pairs scanned with lab 04's scanIncWarp() and Segmented<Op>.
 *
 * Example on 8 lanes with Add: x `{3,1,7,0,4,1,6,3}`, heads `{1,0,1,0,0,1,0,1}` give
 * `{3,4,7,7,11,1,7,3}`.
 *
 * @param x    this lane's value
 * @param head whether this lane's element starts a segment
 * @param op   associative operator
 * @param mask the calling lanes, a prefix of the warp
 * @return the combination of this lane's segment up to and including this lane
 */
template <typename T, typename Op>
__device__ T segScanIncWarpOp(T x, bool head, Op op, unsigned mask = WARP_FULL_MASK);

/** Exclusive form of segScanIncWarpOp(): @p identity at heads (and at lane 0), otherwise the
 *  inclusive result of the lane below. Example: `{0,3,0,7,7,0,1,0}` for the data above. */
template <typename T, typename Op>
__device__ T segScanExcWarpOp(T x, bool head, Op op, T identity, unsigned mask = WARP_FULL_MASK);

/**
 * @brief The lane of this lane's segment head: the highest lane `h <= lane` of @p mask whose
 * @p head is set, or 0 when there is none (the segment is open at the warp's start). This is
 * `mindex` of [Sengupta et al., fig 1.11], computed with one `__ballot_sync` and `__clz` instead of a
 * max-scan of lane indices.
 *
 * Example on 8 lanes: heads `{0,0,1,0,0,1,1,0}` give `{0,0,2,2,2,5,6,6}`.
 */
__device__ unsigned segHeadLane(bool head, unsigned mask = WARP_FULL_MASK);

/**
 * @brief Inclusive segmented scan across the lanes of @p mask, directly [Sengupta et al., fig 1.11]: take
 * `mindex = segHeadLane(head)`, then for `d = 1, 2, 4, 8, 16` fetch `y` from lane `lane - d`
 * with a shuffle, and combine `x = op(y, x)` only when `lane >= mindex + d` (the lane `d`
 * below is in the same segment). Parameters and result as segScanIncWarpOp().
 */
template <typename T, typename Op>
__device__ T segScanIncWarp(T x, bool head, Op op, unsigned mask = WARP_FULL_MASK);

/** Exclusive form of segScanIncWarp(): @p identity at heads and at lane 0, otherwise the
 *  inclusive result of the lane below. */
template <typename T, typename Op>
__device__ T segScanExcWarp(T x, bool head, Op op, T identity, unsigned mask = WARP_FULL_MASK);

/** Shared-memory scratch of the block scans: one (flag, value) entry per warp. */
template <typename T>
struct SegBlockTemp {
  T value[SS_WARP];        /**< each warp's total (the value of its last segment), then their scan */
  uint32_t flag[SS_WARP];  /**< whether each warp holds a head */
};

/**
 * @brief Inclusive segmented scan across a block [Sengupta et al., fig 1.13, 1.14]: thread `t` returns the
 * combination of its segment up to and including thread `t`.
 *
 * Four steps: (1) every warp scans its own lanes (segScanIncWarp()) and notes whether it holds
 * a head (the OR of its flags) and which lanes lie before its first head; (2) the last lane of
 * warp `w` writes the warp's total and flag to @p temp; (3) warp 0 scans those (flag, total)
 * pairs, segmented; (4) in warp `w > 0`, only the lanes before the warp's first head combine
 * the scanned total of warp `w - 1` on their left.
 *
 * Example with 64 threads, Add, every x 1, heads only at threads 0 and 40: threads 0..39 get
 * 1..40, threads 40..63 get 1..24 (warp 1's lanes 0..7 add warp 0's total, 32; lanes 8..31
 * start again at its head).
 *
 * @param x     this thread's value
 * @param head  whether this thread's element starts a segment (thread 0 starts one anyway)
 * @param op    associative operator
 * @param temp  shared memory; free to reuse when the call returns (it ends with a barrier)
 * @return the inclusive segmented result of this thread
 *
 * Every thread of the block must call it; the block size is a multiple of 32, at most
 * SS_BLOCK_MAX.
 */
template <typename T, typename Op>
__device__ T segScanIncBlock(T x, bool head, Op op, SegBlockTemp<T> *temp);

/** Exclusive form of segScanIncBlock(): @p identity at heads and at thread 0. */
template <typename T, typename Op>
__device__ T segScanExcBlock(T x, bool head, Op op, T identity, SegBlockTemp<T> *temp);
/** @} */

/** @name The single pass (host functions, given)
 *  Arrays are device pointers; element counts are `size_t` (more than 2^31 elements included).
 *  Calls are asynchronous on the default stream, like a kernel launch. The tile counter and
 *  status words belong to `seg_scan.cu`: allocated on first use, grown when needed, kept
 *  between calls, freed by segScanGlobalRelease(). T must be 4 bytes.
 *  @{ */

/**
 * @brief Inclusive segmented scan of any length in one pass: tiles of SS_GLOBAL_TILE elements,
 * tile ids from an atomic counter, decoupled look-back in which a tile that holds a head
 * publishes its inclusive prefix at once, and a look-back that stops at the first tile that
 * holds one. Reads 4 + 1 bytes per element and writes 4: 9 bytes per element.
 *
 * @param d_in    @p n values on the device
 * @param d_flags @p n head flags on the device (a non-zero byte starts a segment)
 * @param d_out   @p n values on the device; may equal @p d_in, must not overlap it otherwise
 * @param n       element count (0: nothing is launched)
 * @param op      associative operator
 */
template <typename T, typename Op>
void segScanIncGlobal(const T *d_in, const uint8_t *d_flags, T *d_out, size_t n, Op op);

/** Exclusive form of segScanIncGlobal(): @p identity at every head and at element 0. */
template <typename T, typename Op>
void segScanExcGlobal(const T *d_in, const uint8_t *d_flags, T *d_out, size_t n, Op op, T identity);

/** Frees the device memory the single pass keeps between calls (safe to call any time). */
void segScanGlobalRelease(void);
/** @} */

/** @name The launches the tests call (kit code in seg_scan.cu)
 *  @{ */

/** Which scan segScanBatch() runs. */
enum SegScanVariant {
  SEG_WARP_OP_INC = 0, /**< segScanIncWarpOp() */
  SEG_WARP_OP_EXC = 1, /**< segScanExcWarpOp() */
  SEG_WARP_INC = 2,    /**< segScanIncWarp() */
  SEG_WARP_EXC = 3,    /**< segScanExcWarp() */
  SEG_BLOCK_INC = 4,   /**< segScanIncBlock() */
  SEG_BLOCK_EXC = 5,   /**< segScanExcBlock() */
  SEG_BLOCK_INC_TWICE = 6, /**< segScanIncBlock() twice in a row on the same @p temp, the second
                                call scanning the first one's results (temp reused at once) */
  SEG_BLOCK_EXC_TWICE = 7  /**< segScanExcBlock() twice in a row likewise */
};

/**
 * @brief Runs one warp or block segmented scan on every warp or block of a grid: element `j`
 * belongs to thread `j % block` of block `j / block`. Warp variants scan each warp's live
 * lanes on their own (as lab 04's warpScanBatch()); block variants scan each block's elements
 * on their own. Either way the first element of each group starts a segment.
 *
 * @param variant  which scan
 * @param d_in     @p n device values
 * @param d_flags  @p n device head flags
 * @param d_out    @p n device values, not overlapping the inputs
 * @param n        element count (0: nothing is launched)
 * @param block    threads per block: 1 to 1024 for warp variants, a multiple of 32 up to
 *                 SS_BLOCK_MAX for block variants
 * @param op       the operator
 * @param identity its identity (used by the exclusive variants)
 * @return the launch's error, cudaSuccess when nothing was launched
 */
template <typename T, typename Op>
cudaError_t segScanBatch(SegScanVariant variant, const T *d_in, const uint8_t *d_flags, T *d_out,
                         size_t n, int block, Op op, T identity);

/** Writes segHeadLane() of every element to @p d_out, warps laid out as in segScanBatch(). */
cudaError_t segHeadLaneBatch(const uint8_t *d_flags, int32_t *d_out, size_t n, int block);

/** `d_out[i] = Segmented<Op>{op}(d_a[i], d_b[i])` for every `i < n`, on the device. */
template <typename T, typename Op>
cudaError_t segOpApply(const FlagValue<T> *d_a, const FlagValue<T> *d_b, FlagValue<T> *d_out, size_t n,
                       Op op);

/**
 * @brief The look-back alone, on status words the test chooses: one warp publishes, for each
 * tile `j < tile`, @p d_states[j] with the value @p d_values[j], then calls lookbackWarp() for
 * tile @p tile, a tile whose first element is not a head. A look-back that spans several
 * windows of 32 tiles, whatever the emu's schedules make.
 *
 * @param d_values  the earlier tiles' values, @p tile of them
 * @param d_states  their flags: 1 (AGGREGATE) or 2 (PREFIX), @p tile of them
 * @param d_status  scratch for tile + 1 status words of 32 bytes
 * @param d_out     3 words: the carry lookbackWarp() returned, then the value and the flag
 *                  (0 nothing, 1 AGGREGATE, 2 PREFIX) tile @p tile published
 * @param tile      the tile that looks back
 * @param has_head  whether a segment starts inside it
 * @param aggregate its own value (the value of its last segment)
 * @param op        the operator
 * @return the launch's error
 */
template <typename T, typename Op>
cudaError_t segLookbackProbe(const T *d_values, const int32_t *d_states, void *d_status, uint32_t *d_out,
                             unsigned tile, bool has_head, T aggregate, Op op);

/**
 * @brief The single pass over the last elements of an array whose first @p start elements are
 * already scanned, their last segment left open: element indices past 2^31 or 2^32 without
 * 16 GiB of memory. The kernel runs as in segScanIncGlobal() or segScanExcGlobal(), with the
 * tile counter starting at tile `start / SS_GLOBAL_TILE`, the tile before it published as a
 * PREFIX of @p carry, and the array pointers offset back by @p start.
 *
 * @param d_in      elements `[start, n)` of the values
 * @param d_flags   their head flags; the first is 0 (the open segment goes on)
 * @param d_out     elements `[start, n)` of the result
 * @param start     a multiple of SS_GLOBAL_TILE, above 0
 * @param n         the whole array's length
 * @param op        the operator
 * @param identity  its identity (exclusive)
 * @param carry     the inclusive result of element `start - 1`
 * @param exclusive the exclusive scan, else the inclusive
 */
template <typename T, typename Op>
void segScanGlobalTail(const T *d_in, const uint8_t *d_flags, T *d_out, size_t start, size_t n, Op op, T identity,
                       T carry, bool exclusive);
/** @} */

#endif /* SCANLAB_SEG_SCAN_H */
