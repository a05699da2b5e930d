/**
 * @file hx_proto.h
 * @brief The wire format between a test (the trusted side) and the driver that runs the
 *        student's code (the untrusted side).
 *
 * Both processes are kit code, but the driver shares its address space with the student's
 * file, so the test treats every reply as a claim to check, never as a verdict: it reads the
 * outputs itself, from memory it owns, and decides. Messages are fixed-size records on a
 * `SOCK_SEQPACKET` socket, one reply to each request, in order: every request carries a
 * sequence number its reply repeats, and a reply the test did not ask for (early, extra,
 * repeated, malformed) fails the test as tampering.
 *
 * A buffer is `guard | n * elem bytes | guard`, guards HXP_GUARD_BYTES each, and the test owns
 * it. Two kinds travel with HXP_BUF_NEW as an `SCM_RIGHTS` descriptor:
 *  - **device memory** (`cuda`): the test allocates it with CUDA's virtual memory API and
 *    exports it as a POSIX file descriptor; the driver maps it into its own context and calls
 *    the student's code on it in place. The test fills the inputs, poisons the outputs and
 *    guards, and checks everything on the device itself; the driver copies nothing.
 *  - **host memory** (`emu`, `cpu`): a memfd both map. On `emu` the driver keeps a device copy
 *    of the whole region and copies it from and to the mapping around a call, as the
 *    argument's flags say; on `cpu` the call works on the mapping in place.
 * No input of a call is generated in the driver: the driver never learns what a timed call's
 * input will be before the call runs.
 */
#ifndef SCANLAB_HX_PROTO_H
#define SCANLAB_HX_PROTO_H

#include <stdint.h>

/** First word of every message ("SCAN"). */
#define HXP_MAGIC 0x5343414Eu
/** Version of this format. */
#define HXP_VERSION 5u
/** Most arguments of a call. */
#define HXP_MAX_ARGS 40
/** Longest name in a call table, with its terminating zero. */
#define HXP_NAME_MAX 64
/** Longest text of a reply. */
#define HXP_TEXT_MAX 1024
/** Most devices a buffer may name. */
#define HXP_DEVICES_MAX 64
/** Call slots: the most calls one timed batch holds. */
#define HXP_MAX_SLOTS 16
/** Guard band on each side of a shared buffer, in bytes (16384 words). */
#define HXP_GUARD_BYTES ((uint64_t)65536)
/** Poison word of guards and of outputs before a call. */
#define HXP_POISON 0xDEADBEEFu
/** The control socket's descriptor in the driver. */
#define HXP_CONTROL_FD 3

/** Requests, test to driver. */
enum hxp_type {
  HXP_HELLO = 1,   /**< reply: backend, device name, L2 and free memory; also a ping */
  HXP_BUF_NEW,     /**< a buffer: id, elements, element size, memory kind; host memory: its memfd
                        attached; device memory: mapping `map`, its descriptor attached unless the
                        driver still holds that mapping */
  HXP_BUF_FREE,    /**< forget buffer id (device memory: its mapping stays, for the next buffer) */
  HXP_PREP,        /**< prepare call slot `slot`: copy in (host memory); nothing of the student's runs */
  HXP_RUN,         /**< call slots [slot, slot + count) back to back, then wait for the device */
  HXP_FINISH,      /**< copy slot `slot`'s buffers back to the shared mappings (host memory) */
  HXP_EXIT,        /**< end the driver (no reply) */
  HXP_UNMAP        /**< device memory: unmap mapping `map` (and forget any buffer on it) */
};

/** Argument kinds. */
enum hxp_kind {
  HXA_NONE = 0, /**< no argument */
  HXA_BUF,      /**< a shared buffer */
  HXA_I64,      /**< an integer */
  HXA_F64,      /**< a number */
  HXA_BYTES     /**< up to 32 raw bytes */
};

/** What the driver does with a buffer argument in host memory (device memory needs nothing). */
enum hxp_flags {
  HXF_UPLOAD = 1u,   /**< copy the shared region (guards included) to the device before */
  HXF_DOWNLOAD = 8u  /**< copy the device region back to the shared mapping after */
};

/** Where a buffer lives (HXP_BUF_NEW). */
enum hxp_mem {
  HXM_HOST = 0,  /**< a memfd, mapped by both sides */
  HXM_DEVICE = 1 /**< device memory the test exported (a CUDA POSIX file descriptor handle) */
};

/** One argument of a call. */
typedef struct {
  uint32_t kind;   /**< hxp_kind */
  uint32_t flags;  /**< hxp_flags, for HXA_BUF */
  uint32_t buf;    /**< buffer id, for HXA_BUF */
  uint32_t nbytes; /**< for HXA_BYTES */
  int64_t i;       /**< HXA_I64 */
  double d;        /**< HXA_F64 */
  uint8_t bytes[32]; /**< HXA_BYTES */
} hxp_arg;

/** A request, test to driver. */
typedef struct {
  uint32_t magic;      /**< HXP_MAGIC */
  uint32_t version;    /**< HXP_VERSION */
  uint32_t type;       /**< hxp_type */
  uint32_t seq;        /**< this request's number: its reply repeats it */
  uint32_t id;         /**< HXP_BUF_NEW / HXP_BUF_FREE: buffer id */
  uint32_t mem;        /**< HXP_BUF_NEW: hxp_mem */
  uint64_t n;          /**< HXP_BUF_NEW: elements */
  uint64_t elem;       /**< HXP_BUF_NEW: bytes per element */
  uint64_t mapped;     /**< HXP_BUF_NEW, device memory: bytes to map (the region, rounded up to the
                            allocation granularity) */
  uint32_t map;        /**< HXP_BUF_NEW (device memory), HXP_UNMAP: the mapping's number */
  uint32_t device;     /**< HXP_BUF_NEW: the device the buffer belongs to (host memory: the device
                            the driver keeps its copy on); 0 but for a lab of several devices */
  uint32_t slot;       /**< HXP_PREP, HXP_FINISH: the call slot; HXP_RUN: the first slot */
  uint32_t count;      /**< HXP_RUN: slots to run */
  uint32_t spin;       /**< poll, do not sleep, while waiting for the next request (timing) */
  uint32_t depth;      /**< HXP_RUN, emu: run the calls in depth mode (scanlab_emu_depth) */
  uint32_t nargs;      /**< HXP_PREP: arguments */
  char fn[HXP_NAME_MAX];        /**< HXP_PREP: the call table's name */
  hxp_arg args[HXP_MAX_ARGS];   /**< HXP_PREP: the arguments */
} hxp_request;

/** Reply status. */
enum hxp_status {
  HXS_OK = 0,      /**< done */
  HXS_ERROR = 1,   /**< the request failed: `text` says why (a CUDA error, an unknown name...) */
  HXS_FATAL = 2    /**< as HXS_ERROR, and the driver cannot go on (a sticky CUDA error) */
};

/** Memory counters a reply carries (the emu's probes): global ld requests and sectors, st
 *  requests and sectors, shared ld wavefronts and bank conflicts, st wavefronts and conflicts,
 *  shared ld and st requests, the global ld sectors of volatile loads, of those the ones that
 *  read a sector again (polling), and the atomic operations on shared and on global memory,
 *  then the rest of harness.h's HX_C_* (the work of blocks, global load bytes, plain re-polls,
 *  the launches whose accesses the probes did not all keep, the blocks' store sectors and their
 *  squares, and in depth mode the bytes along the launches' longest chains). */
#define HXP_COUNTERS 24

/** A reply, driver to test: a claim the test checks, never a verdict. */
typedef struct {
  uint32_t magic;        /**< HXP_MAGIC */
  uint32_t type;         /**< the request's hxp_type */
  uint32_t status;       /**< hxp_status */
  uint32_t seq;          /**< the request's sequence number */
  int64_t ret;           /**< HXP_RUN: the last call's return value */
  uint64_t d2h;          /**< HXP_RUN: bytes copied device to host during the calls */
  uint64_t h2d;          /**< HXP_RUN: bytes copied host to device during the calls */
  uint32_t counted;      /**< HXP_RUN: counters[] holds this many counts (0: no probes, a GPU) */
  uint32_t devices;      /**< HXP_HELLO: the devices the driver sees */
  uint32_t host_wrote;   /**< HXP_RUN: outputs changed by other means than the device's (emu) */
  uint32_t pad_;         /**< keeps the counters 8-byte aligned */
  uint64_t counters[HXP_COUNTERS]; /**< HXP_RUN: the emu's memory counters over the calls */
  uint64_t l2_bytes;     /**< HXP_HELLO: L2 cache size */
  uint64_t free_bytes;   /**< HXP_HELLO: free device memory */
  uint64_t total_bytes;  /**< HXP_HELLO: device memory */
  char backend[16];      /**< HXP_HELLO: "cuda", "emu" or "cpu" */
  char device[96];       /**< HXP_HELLO: the device's name */
  char text[HXP_TEXT_MAX];  /**< why a request failed */
} hxp_reply;

/** Element @p i of a generated input (splitmix64 of the seed and the index, scaled to the
 *  range [lo, hi] by a multiply and a shift: no division, so billions of elements are quick to
 *  recompute); computed the same way on the host and, on a GPU, by the test's own kernels. */
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline int32_t hxp_gen_value(uint64_t seed, uint64_t i, int64_t lo, int64_t hi) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const uint64_t span = (uint64_t)(hi - lo) + 1u; /* 1 .. 2^32 */
  return (int32_t)(lo + (int64_t)(((z >> 32) * span) >> 32));
}

#endif /* SCANLAB_HX_PROTO_H */
