/**
 * @file nvToolsExt.h
 * @brief Emulation backend: NVTX's markers and ranges, which do nothing here (no profiler
 *        watches); plain C11, as the toolkit's header-only NVTX is.
 */
#ifndef SCANLAB_EMU_NVTOOLSEXT_H
#define SCANLAB_EMU_NVTOOLSEXT_H
/// @cond EMU_INTERNAL
#define NVTX_VERSION 3
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((unsigned short)sizeof(nvtxEventAttributes_t))
#define NVTX_COLOR_ARGB 1
#define NVTX_MESSAGE_TYPE_ASCII 1
#define NVTX_MESSAGE_TYPE_UNICODE 2
#define NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 1
typedef unsigned long long nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st *nvtxDomainHandle_t;
typedef struct {
  unsigned short version;
  unsigned short size;
  unsigned int category;
  int colorType;
  unsigned int color;
  int payloadType;
  int reserved0;
  union { unsigned long long ullValue; long long llValue; double dValue; } payload;
  int messageType;
  union { const char *ascii; const void *unicode; } message;
} nvtxEventAttributes_t;

static inline int nvtxRangePushA(const char *message) { (void)message; return 0; }
static inline int nvtxRangePushW(const void *message) { (void)message; return 0; }
static inline int nvtxRangePushEx(const nvtxEventAttributes_t *a) { (void)a; return 0; }
static inline int nvtxRangePop(void) { return 0; }
static inline nvtxRangeId_t nvtxRangeStartA(const char *message) { (void)message; return 1; }
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *a) { (void)a; return 1; }
static inline void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
static inline void nvtxMarkA(const char *message) { (void)message; }
static inline void nvtxMarkEx(const nvtxEventAttributes_t *a) { (void)a; }
static inline void nvtxNameOsThreadA(unsigned int threadId, const char *name) { (void)threadId; (void)name; }
static inline void nvtxNameCategoryA(unsigned int category, const char *name) { (void)category; (void)name; }
static inline nvtxDomainHandle_t nvtxDomainCreateA(const char *name) { (void)name; return 0; }
static inline void nvtxDomainDestroy(nvtxDomainHandle_t d) { (void)d; }
static inline int nvtxDomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  (void)d;
  (void)a;
  return 0;
}
static inline int nvtxDomainRangePop(nvtxDomainHandle_t d) { (void)d; return 0; }
/// @endcond
#endif /* SCANLAB_EMU_NVTOOLSEXT_H */
