/**
 * @file cuda_runtime_api.h
 * @brief Emulation backend: the runtime API's host functions (C linkage, plain C11), under the
 *        toolkit's include guard. What is not emulated is declared unavailable: a call does not
 *        compile, and the message names the feature.
 */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
/// @cond EMU_INTERNAL
#include "builtin_types.h"
#include "host_defines.h"

#define CUDART_VERSION 12000
#define __CUDART_API_VERSION CUDART_VERSION

#ifdef __cplusplus
#define SCANLAB_EMU_EXTERN_C_BEGIN extern "C" {
#define SCANLAB_EMU_EXTERN_C_END }
#define SCANLAB_EMU_DEFAULT(v) = v
#else
#define SCANLAB_EMU_EXTERN_C_BEGIN
#define SCANLAB_EMU_EXTERN_C_END
#define SCANLAB_EMU_DEFAULT(v)
#endif

SCANLAB_EMU_EXTERN_C_BEGIN

/* ---- errors ---- */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);

/* ---- devices ---- */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaThreadExit(void);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *config);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *config);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaRuntimeGetVersion(int *version);

/* ---- memory ---- */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags SCANLAB_EMU_DEFAULT(cudaMemAttachGlobal));
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice, int device);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, cudaMemcpyKind kind, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                               size_t offset SCANLAB_EMU_DEFAULT(0),
                               cudaMemcpyKind kind SCANLAB_EMU_DEFAULT(cudaMemcpyHostToDevice));
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                 size_t offset SCANLAB_EMU_DEFAULT(0),
                                 cudaMemcpyKind kind SCANLAB_EMU_DEFAULT(cudaMemcpyDeviceToHost));
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);

/* ---- streams and events (synchronous: work runs in program order) ---- */
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                  unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream SCANLAB_EMU_DEFAULT(0),
                                     unsigned int flags SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* ---- kernels ---- */
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig config);
cudaError_t cudaFuncGetName(const char **name, const void *func);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                   int blockSize, size_t dynamicSMemSize,
                                                                   unsigned int flags);
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                                      int blockSize);
/* A kernel known only by its address: the emulator finds it among the kernels defined in
 * .cu files it built (not templates); from C++ the typed overloads in cuda_runtime.h take
 * any kernel. */
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t sharedMem SCANLAB_EMU_DEFAULT(0), cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t sharedMem SCANLAB_EMU_DEFAULT(0),
                                        cudaStream_t stream SCANLAB_EMU_DEFAULT(0));

/* ---- CUDA arrays, texture and surface objects (1D, 2D, 3D) ---- */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height SCANLAB_EMU_DEFAULT(0), unsigned int flags SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                cudaMemcpyKind kind);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);

/* ---- graphs and stream capture (run in program order, as the rest of the work is) ---- */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                     size_t numDependencies, void *dst, const void *src, size_t count,
                                     cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t numDependencies, const struct cudaMemsetParams *pMemsetParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                 size_t numDependencies, const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                  size_t numDependencies);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                       size_t numDependencies, cudaGraph_t childGraph);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t numDependencies);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         size_t *pNumDependencies);
cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                struct cudaGraphExecUpdateResultInfo *resultInfo);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                        size_t numDependencies, cudaEvent_t event)
    SCANLAB_EMU_UNSUPPORTED("event nodes of CUDA graphs");
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                      size_t numDependencies, cudaEvent_t event)
    SCANLAB_EMU_UNSUPPORTED("event nodes of CUDA graphs");
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                     size_t numDependencies, void *nodeParams)
    SCANLAB_EMU_UNSUPPORTED("memory nodes of CUDA graphs");

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out SCANLAB_EMU_DEFAULT(0),
                                     cudaGraph_t *graph_out SCANLAB_EMU_DEFAULT(0),
                                     const cudaGraphNode_t **dependencies_out SCANLAB_EMU_DEFAULT(0),
                                     size_t *numDependencies_out SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags);
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, size_t *numEdges);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
                                               const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);

/* ---- more of the runtime: stream attributes, memory pools, PCI ids ---- */
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length SCANLAB_EMU_DEFAULT(0),
                                     unsigned int flags SCANLAB_EMU_DEFAULT(cudaMemAttachSingle));
cudaError_t cudaCtxResetPersistingL2Cache(void);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     cudaMemcpyKind kind SCANLAB_EMU_DEFAULT(cudaMemcpyDeviceToDevice));
/* CUDA 12.2's forms with a memory location (CUDA 13's cudaMemPrefetchAsync and cudaMemAdvise;
 * C++ gets those names as overloads in scanlab_emu_device.h) */
cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count, struct cudaMemLocation location,
                                    unsigned int flags, cudaStream_t stream SCANLAB_EMU_DEFAULT(0));
cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, cudaMemoryAdvise advice,
                             struct cudaMemLocation location);

/* ---- not emulated: a use does not compile ---- */
cudaError_t cudaLaunchCooperativeKernelMultiDevice(void *launchParamsList, unsigned int numDevices,
                                                   unsigned int flags SCANLAB_EMU_DEFAULT(0))
    SCANLAB_EMU_UNSUPPORTED("multi-device cooperative launches");
cudaError_t cudaIpcGetMemHandle(void *handle, void *devPtr) SCANLAB_EMU_UNSUPPORTED("inter-process memory");
cudaError_t cudaIpcOpenMemHandle(void **devPtr, ...) SCANLAB_EMU_UNSUPPORTED("inter-process memory");

/* Not CUDA: bytes copied device->host and host->device through the runtime so far (the
 * kit's driver reads them around a student's call). */
void scanlab_emu_copy_counters(unsigned long long *d2h, unsigned long long *h2d);
/* Not CUDA: the kit's driver watches a call's outputs (n ranges); scanlab_emu_watch_changed()
 * says how many changed since the device last wrote them (by launch, copy or set), and ends
 * the watch. */
int scanlab_emu_watch(const void *const *ptrs, const size_t *bytes, int n);
int scanlab_emu_watch_changed(void);
/* Not CUDA: the kit's driver's: a shared memory file made device memory (api.cpp says how);
 * 0, or -1 where it cannot. */
int scanlab_emu_adopt(int fd, size_t bytes, int device, void **p);
/* Not CUDA: ends scanlab_emu_adopt's memory, which cudaFree refuses; 0, or -1. */
int scanlab_emu_release(void *p);
/* Not CUDA: the calls the calling host thread made so far that wait for the device (also
 * declared in scanlab_emu.h; README "Several devices"); *last, where last is not null, gets the
 * name of the latest, or null. */
unsigned long long scanlab_emu_host_syncs(const char **last);
/* Not CUDA: the memory counters of every probed launch so far (global load requests and
 * sectors, store requests and sectors, shared load wavefronts and bank conflicts, store
 * wavefronts and conflicts, shared load and store requests, global load sectors of volatile
 * loads); the number written, 0 without probes. */
int scanlab_emu_probe_counters(unsigned long long *out, int n);
/* Not CUDA: depth mode on (1) or off (0). The kit's driver turns it on around the calls of a
 * test that asks: each launch counts the bytes along its longest chain of global accesses that
 * wait on one another (the last of the counters above), and blocks in flight take turns by
 * how far each has got. */
void scanlab_emu_depth(int on);
/* Not CUDA: the thread ids of the threads the emu started (its helpers, its watchdog), at most
 * cap of them; the number written. */
int scanlab_emu_thread_ids(int *tids, int cap);

SCANLAB_EMU_EXTERN_C_END
/// @endcond
#endif /* __CUDA_RUNTIME_API_H__ */
