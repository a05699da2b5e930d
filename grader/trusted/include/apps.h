/**
 * @file apps.h
 * @brief Lab 07: scan as a building block (`skeletons/07-applications/apps.cu`): stream
 *        compaction and stable partition, line of sight, the sparse matrix-vector product with
 *        a segmented sum, and string comparison.
 *
 * Every application here is a scan with something around it: a map that makes the values the
 * scan combines, and a step after it that uses each element's prefix. The lab gives the scan
 * machinery of labs 05 and 06 as one reusable toolkit (in `apps.cu`, outside the student
 * regions): a block scan of APP_ITEMS values per thread for any associative operator, a
 * decoupled look-back that gives each tile the combination of every tile before it, and a
 * device-wide exclusive sum appScanExc(). Students write the maps, the operators and the
 * kernels that put them together. The applications come from G. E. Blelloch's *Prefix Sums
 * and Their Applications* ("Blelloch"), M. Harris, S. Sengupta and J. D. Owens's
 * *Parallel Prefix Sum (Scan) with CUDA* ("Harris et al.") and S. Sengupta, M. Harris,
 * M. Garland et al.'s *Efficient Parallel Scan Algorithms for Many-core GPUs* ("Sengupta et al."):
 *
 * 1. **Stream compaction** (Blelloch; Harris et al.): keep the elements greater than a pivot, in order.
 *    (a) flags, an exclusive sum of the flags, a scatter: three passes (compactScan());
 *    (b) one pass: each tile counts its kept elements, looks back for the count before it, and
 *    stages its kept elements in shared memory so that the writes stay coalesced
 *    (compactSinglePass()). **Partition** (partitionStable()) puts the kept elements first and
 *    the others after them, both in their input order; partitionSinglePass() does it in one
 *    pass by writing the others from the end backwards, in reverse order, as CUB does.
 * 2. **Split and radix sort** (Blelloch; Harris et al.): the stable split by one bit, 32 of them as a sort,
 *    and an LSD radix sort by 8-bit digits in one sweep a digit: one count of every digit, then
 *    per pass a look-back over each digit's counts and a stable scatter (radixSortKeys(),
 *    radixSortPairs()).
 * 3. **Line of sight** (Blelloch): from altitudes along a ray, each point's slope from the observer,
 *    an exclusive max-scan of the slopes, and a point is visible when its slope is greater than
 *    every slope before it; one pass that reads the altitudes once and writes one byte per
 *    point (lineOfSight()).
 * 4. **Sparse matrix-vector product** (CSR; Blelloch's segmented sum, Sengupta et al. §1.9): the
 *    products, head flags where rows start, a segmented sum, each row's total at its last
 *    element; one pass that balances work by non-zeros, not by rows (spmvCsr()).
 * 5. **String comparison** (Blelloch): the lexicographic order of two byte strings from an
 *    associative, non-commutative "first difference wins" operator (FirstDiff,
 *    strCompare()).
 *
 * Sizes are `size_t`; the single passes take tiles of APP_TILE elements.
 */
#ifndef SCANLAB_APPS_H
#define SCANLAB_APPS_H

#include <math.h> /* fmaxf (MaxF) */
#include <stddef.h>
#include <stdint.h>

/** Threads in a warp. */
#define APP_WARP 32
/* The tile shape (overridable with -D only by the tuning script of the instructors' kit; the
 * tests' sizes assume a tile of 4096). */
#ifndef APP_THREADS
/** Threads per block of every tile kernel. */
#define APP_THREADS 128
#endif
#ifndef APP_ITEMS
/** Elements per thread of a tile (a multiple of 4). */
#define APP_ITEMS 32
#endif
/** Elements per tile: one block handles one tile. */
#define APP_TILE (APP_THREADS * APP_ITEMS)

/** @name The operators of this lab
 *  @{ */

/** Sum of unsigned counts (identity 0). */
struct AddU {
  /** @p a + @p b (wraps modulo 2^32) */
  __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a + b; }
};
/** Sum of floats (identity 0.0f). */
struct AddF {
  /** @p a + @p b */
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
/** Maximum of floats (identity -infinity); the inputs hold no NaN. fmaxf is one instruction
 *  on the GPU (`a > b ? a : b` is a compare and a select: NaN makes them differ). */
struct MaxF {
  /** the larger of @p a and @p b */
  __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/** Maximum of ints (identity INT32_MIN). */
struct MaxI {
  /** the larger of @p a and @p b */
  __host__ __device__ int32_t operator()(int32_t a, int32_t b) const { return a > b ? a : b; }
};

/**
 * "The first difference wins": on comparison codes -1, 0, +1 of consecutive ranges of
 * positions, @p a (the earlier range) decides unless it is 0 (its positions are all equal).
 * Associative, not commutative; identity 0. Written by you in `apps.cu`.
 */
struct FirstDiff {
  /** @p a unless it is 0, then @p b (@p a the earlier range) */
  __host__ __device__ int32_t operator()(int32_t a, int32_t b) const;
};

/** A (flag, value) pair of a segmented scan: `flag` non-zero means a segment starts in it. */
template <typename T>
struct FlagVal {
  uint32_t flag; /**< head flag */
  T value;       /**< the value */
};

/** Lab 06's segmented operator on FlagVal pairs (given): @p b's value alone when @p b holds a
 *  head, otherwise `op(a.value, b.value)`; the flag is the OR of both. */
template <typename Op>
struct Seg {
  Op op; /**< the operator on values */
  /** @p a, then @p b (the earlier range on the left) */
  template <typename T>
  __host__ __device__ FlagVal<T> operator()(FlagVal<T> a, FlagVal<T> b) const {
    FlagVal<T> r;
    r.flag = a.flag | b.flag;
    r.value = b.flag ? b.value : op(a.value, b.value);
    return r;
  }
};
/** @} */

/** @name Predicates of the partition kernels
 *  @{ */

/** Keeps `x > pivot` (compaction and partition). */
struct KeepAbove {
  int32_t pivot; /**< the bound */
  /** whether @p x is kept */
  __host__ __device__ bool operator()(int32_t x) const { return x > pivot; }
};
/** Keeps the keys whose bit @p bit is clear (the split of a radix sort). */
struct BitClear {
  int bit; /**< 0 .. 31 */
  /** whether @p k is kept (its bit is 0) */
  __host__ __device__ bool operator()(uint32_t k) const { return ((k >> bit) & 1u) == 0; }
};
/** @} */

/** @name Part 1: stream compaction and partition (keep the elements greater than a pivot)
 *  @{ */

/**
 * Compaction in three passes: compactFlagsKernel() writes 1 where `in[i] > pivot`, the given
 * appScanExc() sums the flags, compactScatterKernel() writes each kept element at its sum.
 * Writes the kept elements of @p d_in to @p d_out in order and returns how many.
 */
size_t compactScan(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot);

/** The same in one pass with decoupled look-back (compactKernel()). */
size_t compactSinglePass(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot);

/**
 * compactSinglePass() without the wait: queues the pass on the default stream and returns
 * without waiting for it (a first call, or a longer array than before, may still wait while
 * the scratch memory grows); the count kept lands in @p d_kept (one 64-bit word of device
 * memory) when the pass completes, where CUB's `DeviceSelect` leaves it too. The timing test and `make bench` time
 * this form: a host that waits for every count leaves the GPU idle between calls.
 */
void compactSinglePassAsync(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot,
                            unsigned long long *d_kept);

/**
 * Stable partition: the elements `> pivot` first, then the others, each group in its input
 * order, all n of them in @p d_out. Returns the size of the first group. A counting pass
 * (partitionCountKernel()) finds the first group's size, then one pass with look-back
 * (partitionKernel()) writes both groups.
 */
size_t partitionStable(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot);

/** partitionStable() without the wait, as compactSinglePassAsync(): the size of the first group
 *  lands in @p d_kept on the device (what `make bench` times beside CUB's partition). */
void partitionStableAsync(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot,
                          unsigned long long *d_kept);

/**
 * Partition in one pass, as CUB's `DevicePartition::If`: the elements `> pivot` first in their
 * input order, then the others in reverse input order (the first one not kept at
 * `d_out[n - 1]`), all n of them in @p d_out. Returns the size of the first group. Written
 * from the end backwards, the others need no count first: the look-back pass alone
 * (partitionKernel() not STABLE) reads each element once and writes it once.
 */
size_t partitionSinglePass(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot);

/** partitionSinglePass() without the wait, as compactSinglePassAsync(): the size of the first
 *  group lands in @p d_kept on the device (what `make bench` times). */
void partitionSinglePassAsync(const int32_t *d_in, int32_t *d_out, size_t n, int32_t pivot,
                              unsigned long long *d_kept);

/**
 * @brief compactSinglePass(), the look-back pass of partitionStable() or partitionSinglePass()
 * over the last elements
 * of a longer array, with only those in memory: element indices past 2^31 and 2^32 without
 * 16 GiB of memory. The kernel runs with the tile counter at `start / APP_TILE`, the tile before
 * published as a PREFIX of @p kept_before, and the pointers offset back.
 *
 * @param d_in        elements `[start, n)` of the input
 * @param d_out       the tail's kept elements, then (partition) its others (in reverse order
 *                    for partitionSinglePass())
 * @param start       a multiple of APP_TILE, above 0
 * @param n           the whole array's length
 * @param pivot       elements greater than it are kept
 * @param kept_before the elements before @p start that are kept
 * @param kept_total  partition: the first group's size, given on the device where the counting
 *                    pass leaves it; the kernel places the others from it on. With
 *                    @p kept_before `start / 2` and this the tail's own kept count, the tail's
 *                    others follow its kept ones at once (the arithmetic is the same for any
 *                    sizes)
 * @param partition   0: compaction, 1: stable partition, 2: partition in one pass (it ignores
 *                    @p kept_total: its others are placed from the end of the whole array)
 * @return the count word after the kernel: the kept total (compaction and the one-pass
 *         partition), @p kept_total (stable partition); 0 for arguments out of range
 */
size_t appSelectTail(const int32_t *d_in, int32_t *d_out, size_t start, size_t n, int32_t pivot,
                     size_t kept_before, size_t kept_total, int partition);
/** @} */

/** @name Part 1b: split and radix sort (32-bit unsigned keys, ascending, stable)
 *  @{ */

/** Bits of a digit of radixSortKeys(): 4 passes of 8 bits. */
#define APP_RADIX_BITS 8
/** Digits: 256 counters per tile. */
#define APP_RADIX_DIGITS (1 << APP_RADIX_BITS)

/**
 * The split of Blelloch and of Harris et al.: the keys whose bit @p bit is 0 first, then those where it is
 * 1, both in input order (the partition kernels with BitClear). Returns the number of the
 * first group.
 */
size_t splitBit(const uint32_t *d_in, uint32_t *d_out, size_t n, int bit);

/** A radix sort by 32 splits, bit 0 first (each split stable, so the last one finishes the
 *  sort): @p d_out holds the keys of @p d_in in ascending order. */
void radixSortSplit(const uint32_t *d_in, uint32_t *d_out, size_t n);

/**
 * LSD radix sort by digits of APP_RADIX_BITS bits in one sweep a digit: one read counts every
 * digit of the 4 passes (radixHistogramKernel()), and each pass reads the keys once
 * (radixOnesweepKernel(), on tiles of its own: 6144 keys, 24 a thread): a tile publishes its count of each digit, ranks its keys by digit
 * (warp by warp, the lanes of one digit found by a mask set with atomicOr), looks back over the
 * earlier tiles' counts digit by digit and writes each digit's run contiguously. @p d_out may
 * equal @p d_in; n below 2^32.
 */
void radixSortKeys(const uint32_t *d_in, uint32_t *d_out, size_t n);

/** radixSortKeys() with a 32-bit value carried beside each key (stable: equal keys keep the
 *  order of their values' input positions). */
void radixSortPairs(const uint32_t *d_keys_in, const uint32_t *d_vals_in, uint32_t *d_keys_out,
                    uint32_t *d_vals_out, size_t n);
/** @} */

/** @name Part 2: line of sight
 *  @{ */

/**
 * The observer stands at point 0, at altitude `alt[0]`; point i lies at distance i along the
 * ray. Its slope is `(alt[i] - alt[0]) / i` computed in float (the tangent of its angle of
 * elevation: the arctangent is increasing, so comparing slopes decides as comparing angles
 * does, without a transcendental function). Point i >= 1 is visible (`vis[i] = 1`) when its
 * slope is strictly greater than the slope of every point 1..i-1 (an exclusive max-scan with
 * identity -infinity), otherwise `vis[i] = 0`; `vis[0] = 0` (the observer's own point). One
 * pass (lineOfSightKernel()): 4 bytes read and 1 written per point.
 */
void lineOfSight(const float *d_alt, uint8_t *d_vis, size_t n);
/** @} */

/** @name Part 3: sparse matrix-vector product
 *  @{ */

/**
 * `y = A x` for A in CSR form with @p rows rows and @p nnz non-zeros: row r holds the entries
 * `row_ptr[r] .. row_ptr[r+1]-1` of @p col and @p val (`row_ptr[0] = 0`, `row_ptr[rows] =
 * nnz`, non-decreasing). Empty rows (several rows may start at one offset, and trailing rows
 * at nnz) get 0. One pass over the non-zeros (spmvKernel()): the products, the heads where
 * rows start, a segmented sum (Seg<AddF>) with look-back, each row's total stored once.
 */
void spmvCsr(const int32_t *d_row_ptr, const int32_t *d_col, const float *d_val, const float *d_x,
             float *d_y, int32_t rows, int32_t nnz);
/** @} */

/** @name Part 4: string comparison
 *  @{ */

/**
 * The lexicographic order of byte strings @p d_a (@p len_a bytes) and @p d_b (@p len_b), bytes
 * compared as unsigned: -1 when a < b, 0 when equal, +1 when a > b; a proper prefix is the
 * smaller. Each position below `min(len_a, len_b)` makes a code (-1, 0, +1), FirstDiff
 * reduces them (strTileKernel() per tile, strFinishKernel() over the tiles), and the lengths
 * decide a tie.
 */
int strCompare(const uint8_t *d_a, size_t len_a, const uint8_t *d_b, size_t len_b);

/**
 * Many comparisons at once: pair p compares `a[off_a[p] .. off_a[p+1])` with
 * `b[off_b[p] .. off_b[p+1])` and writes -1, 0 or +1 to `result[p]`, for p < @p pairs (the
 * strings packed back to back; offsets non-decreasing, below 2^32). A segmented reduction over
 * the bytes of @p d_a: a head where each non-empty string of a starts, each position's code
 * against b at the same place in its pair (+1 where b has ended), Seg<FirstDiff> with
 * look-back, and each pair's result at its last byte; the lengths decide a tie, and an empty a
 * gives -1 or 0 (strBatchKernel()). Work follows the bytes, not the pairs: one pair of a
 * gigabyte and a million pairs of ten bytes take the same time per byte.
 */
void strCompareBatch(const uint8_t *d_a, const uint32_t *d_off_a, const uint8_t *d_b, const uint32_t *d_off_b,
                     int32_t *d_result, uint32_t pairs);
/** @} */

/** @name Given: the toolkit's host side
 *  @{ */

/** Device-wide exclusive sum of @p n counts (the kit's single pass; @p d_out may equal
 *  @p d_in). */
void appScanExc(const uint32_t *d_in, uint32_t *d_out, size_t n);

/** ab[i] = FirstDiff()(a[i], b[i]) and ba[i] = FirstDiff()(b[i], a[i]) for i < n, on the
 *  device (for the tests: the operator is not commutative, so both orders are checked). */
void firstDiffApply(const int32_t *d_a, const int32_t *d_b, int32_t *d_ab, int32_t *d_ba, size_t n);

/** Frees the device memory the lab keeps between calls (safe to call any time). */
void appRelease(void);
/** @} */

#endif /* SCANLAB_APPS_H */
