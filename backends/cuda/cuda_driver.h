/*
 * backends/cuda/cuda_driver.h - the part of the CUDA driver API the cuda backend
 * uses, declared here (no CUDA toolkit is needed to build aclrt), and the
 * loader that opens the driver at run time.
 *
 *   - Types, constants and prototypes follow cuda.h: handles are pointers to
 *     the same incomplete structs (CUctx_st, CUstream_st, CUevent_st),
 *     CUresult and the enums are unsigned int (the type GCC and Clang give
 *     an enum without negative values), CUdeviceptr is unsigned long long.
 *     tests/cuda_fake/check_decls.c compares every declaration with the
 *     toolkit's cuda.h when one is installed.
 *   - The driver is libcuda.so.1, opened with dlopen when the backend opens
 *     (ACLRT_CUDA_LIBRARY names another file: the test double of
 *     tests/cuda_fake/). Each entry point is looked up by its versioned
 *     name, the one cuda.h's macros select (cuMemAlloc_v2,
 *     cuStreamDestroy_v2, cuStreamWriteValue64_v2, ...), then by the older
 *     name where a driver may lack the newer one. The optional ones (CUDA
 *     graphs) may be missing: the backend then does without.
 *
 * Self-contained (the benchmark calls the driver through it too): it needs
 * no file of impl/.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_DRIVER_H
#define ACLRT_BACKENDS_CUDA_CUDA_DRIVER_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned int aclrt_CUresult;
typedef int aclrt_CUdevice;
typedef unsigned int aclrt_CUdevice_attribute;
typedef unsigned int aclrt_CUpointer_attribute;
typedef unsigned long long aclrt_CUdeviceptr;
typedef struct CUctx_st *aclrt_CUcontext;
typedef struct CUstream_st *aclrt_CUstream;
typedef struct CUevent_st *aclrt_CUevent;
typedef struct CUmod_st *aclrt_CUmodule;
typedef struct CUfunc_st *aclrt_CUfunction;
typedef struct CUgraph_st *aclrt_CUgraph;
typedef struct CUgraphExec_st *aclrt_CUgraphExec;
typedef unsigned int aclrt_CUstreamCaptureMode;
typedef unsigned int aclrt_CUfunction_attribute;
typedef void (*aclrt_CUhostFn)(void *userData);
/*
 * An interprocess memory handle, passed by value: cuda.h's own type where
 * cuda.h was included first (tests/cuda_fake/check_decls.c), else a struct
 * of the same tag and layout.
 */
#ifdef CUDA_VERSION
typedef CUipcMemHandle aclrt_CUipcMemHandle;
#else
typedef struct CUipcMemHandle_st {
    char reserved[64];
} aclrt_CUipcMemHandle;
#endif

/* CUresult values the backend tells apart. */
#define ACLRT_CUDA_SUCCESS 0u
#define ACLRT_CUDA_ERROR_INVALID_VALUE 1u
#define ACLRT_CUDA_ERROR_OUT_OF_MEMORY 2u
#define ACLRT_CUDA_ERROR_NOT_INITIALIZED 3u
#define ACLRT_CUDA_ERROR_DEINITIALIZED 4u
#define ACLRT_CUDA_ERROR_STUB_LIBRARY 34u
#define ACLRT_CUDA_ERROR_NO_DEVICE 100u
#define ACLRT_CUDA_ERROR_INVALID_DEVICE 101u
#define ACLRT_CUDA_ERROR_INVALID_IMAGE 200u
#define ACLRT_CUDA_ERROR_INVALID_CONTEXT 201u
#define ACLRT_CUDA_ERROR_NO_BINARY_FOR_GPU 209u
#define ACLRT_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED 217u
#define ACLRT_CUDA_ERROR_INVALID_PTX 218u
#define ACLRT_CUDA_ERROR_INVALID_SOURCE 300u
#define ACLRT_CUDA_ERROR_FILE_NOT_FOUND 301u
#define ACLRT_CUDA_ERROR_INVALID_HANDLE 400u
#define ACLRT_CUDA_ERROR_ILLEGAL_STATE 401u
#define ACLRT_CUDA_ERROR_NOT_FOUND 500u
#define ACLRT_CUDA_ERROR_NOT_READY 600u
#define ACLRT_CUDA_ERROR_ILLEGAL_ADDRESS 700u
#define ACLRT_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704u
#define ACLRT_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED 705u
#define ACLRT_CUDA_ERROR_MISALIGNED_ADDRESS 716u
#define ACLRT_CUDA_ERROR_INVALID_ADDRESS_SPACE 717u
#define ACLRT_CUDA_ERROR_LAUNCH_FAILED 719u
#define ACLRT_CUDA_ERROR_NOT_PERMITTED 800u
#define ACLRT_CUDA_ERROR_NOT_SUPPORTED 801u
#define ACLRT_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803u
#define ACLRT_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900u
#define ACLRT_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901u
#define ACLRT_CUDA_ERROR_UNKNOWN 999u

/* Flags and attributes (cuda.h's names without the prefix ACLRT_). */
#define ACLRT_CU_STREAM_NON_BLOCKING 0x1u
#define ACLRT_CU_EVENT_DEFAULT 0x0u
#define ACLRT_CU_EVENT_BLOCKING_SYNC 0x1u
#define ACLRT_CU_EVENT_DISABLE_TIMING 0x2u
#define ACLRT_CU_MEMHOSTALLOC_PORTABLE 0x01u
#define ACLRT_CU_MEMHOSTALLOC_DEVICEMAP 0x02u
#define ACLRT_CU_MEMHOSTREGISTER_PORTABLE 0x01u
#define ACLRT_CU_MEMHOSTREGISTER_DEVICEMAP 0x02u
#define ACLRT_CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2u
#define ACLRT_CU_MEMORYTYPE_DEVICE 2u
#define ACLRT_CU_STREAM_WAIT_VALUE_GEQ 0x0u
#define ACLRT_CU_STREAM_WAIT_VALUE_EQ 0x1u
#define ACLRT_CU_STREAM_WAIT_VALUE_AND 0x2u
#define ACLRT_CU_STREAM_WAIT_VALUE_NOR 0x3u
#define ACLRT_CU_STREAM_WRITE_VALUE_DEFAULT 0x0u
#define ACLRT_CU_LAUNCH_PARAM_END_AS_INT 0x00
#define ACLRT_CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define ACLRT_CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT 0x02
#define ACLRT_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING 41u
#define ACLRT_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES 100u
#define ACLRT_CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST 101u
#define ACLRT_CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS 122u
#define ACLRT_CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR 123u
#define ACLRT_CU_STREAM_CAPTURE_MODE_RELAXED 2u
#define ACLRT_CU_IPC_HANDLE_SIZE 64
#define ACLRT_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 0x1u
#define ACLRT_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK 0u

/*
 * The entry points: X(name, versioned symbol, older symbol or "", parameters).
 * aclrt_<name>_fn is each one's pointer type.
 */
#define ACLRT_CUDA_FUNCTIONS(X)                                                                                     \
    X(cuInit, "cuInit", "", (unsigned int flags))                                                                   \
    X(cuDriverGetVersion, "cuDriverGetVersion", "", (int *version))                                                 \
    X(cuGetErrorName, "cuGetErrorName", "", (aclrt_CUresult error, const char **str))                               \
    X(cuDeviceGetCount, "cuDeviceGetCount", "", (int *count))                                                       \
    X(cuDeviceGet, "cuDeviceGet", "", (aclrt_CUdevice * device, int ordinal))                                       \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", "",                                                             \
      (int *value, aclrt_CUdevice_attribute attribute, aclrt_CUdevice device))                                      \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", "", (aclrt_CUcontext * ctx, aclrt_CUdevice device))     \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease",                      \
      (aclrt_CUdevice device))                                                                                      \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", "", (aclrt_CUcontext ctx))                                                \
    X(cuCtxSynchronize, "cuCtxSynchronize", "", (void))                                                             \
    X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority", "",                                                 \
      (aclrt_CUstream * stream, unsigned int flags, int priority))                                                  \
    X(cuStreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy", (aclrt_CUstream stream))                            \
    X(cuStreamQuery, "cuStreamQuery", "", (aclrt_CUstream stream))                                                  \
    X(cuStreamSynchronize, "cuStreamSynchronize", "", (aclrt_CUstream stream))                                      \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", "", (aclrt_CUstream stream, aclrt_CUevent event, unsigned int flags)) \
    X(cuStreamWriteValue64, "cuStreamWriteValue64_v2", "cuStreamWriteValue64",                                     \
      (aclrt_CUstream stream, aclrt_CUdeviceptr addr, uint64_t value, unsigned int flags))                          \
    X(cuStreamWaitValue64, "cuStreamWaitValue64_v2", "cuStreamWaitValue64",                                        \
      (aclrt_CUstream stream, aclrt_CUdeviceptr addr, uint64_t value, unsigned int flags))                          \
    X(cuLaunchHostFunc, "cuLaunchHostFunc", "", (aclrt_CUstream stream, aclrt_CUhostFn fn, void *userData))         \
    X(cuEventCreate, "cuEventCreate", "", (aclrt_CUevent * event, unsigned int flags))                              \
    X(cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy", (aclrt_CUevent event))                                 \
    X(cuEventRecord, "cuEventRecord", "", (aclrt_CUevent event, aclrt_CUstream stream))                             \
    X(cuEventQuery, "cuEventQuery", "", (aclrt_CUevent event))                                                      \
    X(cuEventSynchronize, "cuEventSynchronize", "", (aclrt_CUevent event))                                          \
    X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",                                           \
      (float *ms, aclrt_CUevent start, aclrt_CUevent end))                                                          \
    X(cuMemAlloc, "cuMemAlloc_v2", "", (aclrt_CUdeviceptr * dptr, size_t bytes))                                    \
    X(cuMemFree, "cuMemFree_v2", "", (aclrt_CUdeviceptr dptr))                                                      \
    X(cuMemHostAlloc, "cuMemHostAlloc", "", (void **pp, size_t bytes, unsigned int flags))                          \
    X(cuMemFreeHost, "cuMemFreeHost", "", (void *p))                                                                \
    X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", "",                                                \
      (aclrt_CUdeviceptr * dptr, void *p, unsigned int flags))                                                      \
    X(cuMemcpy, "cuMemcpy", "", (aclrt_CUdeviceptr dst, aclrt_CUdeviceptr src, size_t bytes))                       \
    X(cuMemcpyAsync, "cuMemcpyAsync", "",                                                                           \
      (aclrt_CUdeviceptr dst, aclrt_CUdeviceptr src, size_t bytes, aclrt_CUstream stream))                          \
    X(cuMemsetD8, "cuMemsetD8_v2", "", (aclrt_CUdeviceptr dst, unsigned char value, size_t count))                  \
    X(cuMemsetD8Async, "cuMemsetD8Async", "",                                                                       \
      (aclrt_CUdeviceptr dst, unsigned char value, size_t count, aclrt_CUstream stream))                            \
    X(cuMemsetD32Async, "cuMemsetD32Async", "",                                                                     \
      (aclrt_CUdeviceptr dst, unsigned int value, size_t count, aclrt_CUstream stream))                             \
    X(cuModuleLoad, "cuModuleLoad", "", (aclrt_CUmodule * module, const char *fname))                               \
    X(cuModuleLoadData, "cuModuleLoadData", "", (aclrt_CUmodule * module, const void *image))                       \
    X(cuModuleUnload, "cuModuleUnload", "", (aclrt_CUmodule hmod))                                                  \
    X(cuModuleGetFunction, "cuModuleGetFunction", "",                                                               \
      (aclrt_CUfunction * hfunc, aclrt_CUmodule hmod, const char *name))                                            \
    X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", "",                                                                \
      (aclrt_CUdeviceptr * dptr, size_t *bytes, aclrt_CUmodule hmod, const char *name))                             \
    X(cuLaunchKernel, "cuLaunchKernel", "",                                                                         \
      (aclrt_CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,                     \
       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes,          \
       aclrt_CUstream hStream, void **kernelParams, void **extra))                                                  \
    X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", "",                                                           \
      (int *canAccessPeer, aclrt_CUdevice dev, aclrt_CUdevice peerDev))                                             \
    X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", "", (aclrt_CUcontext peerContext, unsigned int Flags))        \
    X(cuCtxDisablePeerAccess, "cuCtxDisablePeerAccess", "", (aclrt_CUcontext peerContext))                          \
    X(cuMemcpyPeer, "cuMemcpyPeer", "",                                                                             \
      (aclrt_CUdeviceptr dstDevice, aclrt_CUcontext dstContext, aclrt_CUdeviceptr srcDevice,                        \
       aclrt_CUcontext srcContext, size_t ByteCount))                                                               \
    X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", "",                                                                   \
      (aclrt_CUdeviceptr dstDevice, aclrt_CUcontext dstContext, aclrt_CUdeviceptr srcDevice,                        \
       aclrt_CUcontext srcContext, size_t ByteCount, aclrt_CUstream hStream))

/*
 * Optional entry points, the same way: a driver without them still opens
 * (their pointers stay NULL) and the backend does without. CUDA graphs
 * (stream capture, instantiation, launch): without them a model replays
 * step by step (cuda_graph.h). cuCtxGetCurrent: without it, a thread's
 * current context is taken to be the one the backend last made current
 * there. cuPointerGetAttribute: without it, memory the runtime did not
 * allocate is taken for host memory (aclrtMemset). cuMemHostRegister /
 * Unregister: without them, host memory standing for device memory
 * (aclrtMapMem, IPC imports) is not registered with the driver.
 * cuIpcGetMemHandle / OpenMemHandle / CloseMemHandle: without them,
 * aclrtMalloc memory is not shared between processes (cuda_ipc.h).
 * cuFuncGetParamInfo (CUDA 12.4) / cuFuncGetAttribute: without them, a
 * kernel's parameter layout / its most threads per block are not known:
 * the launch passes the argument block as given, in blocks of 256 threads
 * (cuda_kernel.h).
 */
#define ACLRT_CUDA_OPTIONAL_FUNCTIONS(X)                                                                            \
    X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", "",                                                          \
      (aclrt_CUstream hStream, aclrt_CUstreamCaptureMode mode))                                                     \
    X(cuStreamEndCapture, "cuStreamEndCapture", "", (aclrt_CUstream hStream, aclrt_CUgraph * phGraph))              \
    X(cuGraphInstantiate, "cuGraphInstantiateWithFlags", "",                                                        \
      (aclrt_CUgraphExec * phGraphExec, aclrt_CUgraph hGraph, unsigned long long flags))                            \
    X(cuGraphLaunch, "cuGraphLaunch", "", (aclrt_CUgraphExec hGraphExec, aclrt_CUstream hStream))                   \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", "", (aclrt_CUgraphExec hGraphExec))                                 \
    X(cuGraphDestroy, "cuGraphDestroy", "", (aclrt_CUgraph hGraph))                                                 \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", "", (aclrt_CUcontext * pctx))                                            \
    X(cuPointerGetAttribute, "cuPointerGetAttribute", "",                                                           \
      (void *data, aclrt_CUpointer_attribute attribute, aclrt_CUdeviceptr ptr))                                     \
    X(cuMemHostRegister, "cuMemHostRegister_v2", "cuMemHostRegister", (void *p, size_t bytes, unsigned int flags))  \
    X(cuMemHostUnregister, "cuMemHostUnregister", "", (void *p))                                                   \
    X(cuIpcGetMemHandle, "cuIpcGetMemHandle", "", (aclrt_CUipcMemHandle * pHandle, aclrt_CUdeviceptr dptr))        \
    X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle",                                           \
      (aclrt_CUdeviceptr * pdptr, aclrt_CUipcMemHandle handle, unsigned int flags))                                 \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", "", (aclrt_CUdeviceptr dptr))                                    \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", "",                                                                 \
      (int *pi, aclrt_CUfunction_attribute attrib, aclrt_CUfunction hfunc))                                         \
    X(cuFuncGetParamInfo, "cuFuncGetParamInfo", "",                                                                 \
      (aclrt_CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize))

#define ACLRT_CUDA_FN_TYPE(name, sym, old, params) typedef aclrt_CUresult(*aclrt_##name##_fn) params;
ACLRT_CUDA_FUNCTIONS(ACLRT_CUDA_FN_TYPE)
ACLRT_CUDA_OPTIONAL_FUNCTIONS(ACLRT_CUDA_FN_TYPE)
#undef ACLRT_CUDA_FN_TYPE

/* The opened driver: its handle and one pointer per entry point (an optional one: NULL if absent). */
struct aclrt_cuda_driver {
    void *lib;
#define ACLRT_CUDA_FN_MEMBER(name, sym, old, params) aclrt_##name##_fn name;
    ACLRT_CUDA_FUNCTIONS(ACLRT_CUDA_FN_MEMBER)
    ACLRT_CUDA_OPTIONAL_FUNCTIONS(ACLRT_CUDA_FN_MEMBER)
#undef ACLRT_CUDA_FN_MEMBER
};

#define ACLRT_CUDA_DEFAULT_LIBRARY "libcuda.so.1"

/*
 * Open the driver at `path` (NULL: libcuda.so.1) and look up every entry
 * point. Returns 0, or -1 with the reason in why (the file, or the first
 * symbol missing); nothing stays open then.
 */
__attribute__((unused)) static int aclrt_cuda_driver_load(struct aclrt_cuda_driver *d, const char *path, char *why,
                                                          size_t why_size)
{
    memset(d, 0, sizeof *d);
    if (path == NULL || path[0] == '\0')
        path = ACLRT_CUDA_DEFAULT_LIBRARY;
    d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (d->lib == NULL) {
        const char *e = dlerror();
        snprintf(why, why_size, "cannot open the CUDA driver %s (%s)", path, e != NULL ? e : "dlopen failed");
        return -1;
    }
#define ACLRT_CUDA_FN_LOAD(name, sym, old, params)                                                                 \
    {                                                                                                              \
        void *f = dlsym(d->lib, sym);                                                                              \
        if (f == NULL && (old)[0] != '\0')                                                                         \
            f = dlsym(d->lib, old);                                                                                \
        if (f == NULL) {                                                                                           \
            snprintf(why, why_size, "the CUDA driver %s has no %s (too old?)", path, sym);                         \
            dlclose(d->lib);                                                                                       \
            memset(d, 0, sizeof *d);                                                                               \
            return -1;                                                                                             \
        }                                                                                                          \
        memcpy(&d->name, &f, sizeof f);                                                                            \
    }
    ACLRT_CUDA_FUNCTIONS(ACLRT_CUDA_FN_LOAD)
#undef ACLRT_CUDA_FN_LOAD
#define ACLRT_CUDA_FN_LOAD_OPTIONAL(name, sym, old, params)                                                        \
    {                                                                                                              \
        void *f = dlsym(d->lib, sym);                                                                              \
        if (f == NULL && (old)[0] != '\0')                                                                         \
            f = dlsym(d->lib, old);                                                                                \
        memcpy(&d->name, &f, sizeof f);                                                                            \
    }
    ACLRT_CUDA_OPTIONAL_FUNCTIONS(ACLRT_CUDA_FN_LOAD_OPTIONAL)
#undef ACLRT_CUDA_FN_LOAD_OPTIONAL
    return 0;
}

__attribute__((unused)) static void aclrt_cuda_driver_unload(struct aclrt_cuda_driver *d)
{
    if (d->lib != NULL)
        dlclose(d->lib);
    memset(d, 0, sizeof *d);
}

/*
 * The names of the CUresult values a program meets most, for messages where
 * the driver cannot name one itself (CUDA's stub library answers every call
 * with CUDA_ERROR_STUB_LIBRARY, cuGetErrorName included; an older driver
 * does not know a newer code): X(name, value), as cuda.h defines them
 * (tests/cuda_fake/check_decls.c compares them).
 */
#define ACLRT_CUDA_ERROR_NAMES(X)                                                                                  \
    X(CUDA_SUCCESS, 0)                                                                                             \
    X(CUDA_ERROR_INVALID_VALUE, 1)                                                                                 \
    X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                                                                 \
    X(CUDA_ERROR_NOT_INITIALIZED, 3)                                                                               \
    X(CUDA_ERROR_DEINITIALIZED, 4)                                                                                 \
    X(CUDA_ERROR_STUB_LIBRARY, 34)                                                                                 \
    X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36)                                                                   \
    X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46)                                                                           \
    X(CUDA_ERROR_NO_DEVICE, 100)                                                                                   \
    X(CUDA_ERROR_INVALID_DEVICE, 101)                                                                              \
    X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102)                                                                         \
    X(CUDA_ERROR_INVALID_IMAGE, 200)                                                                               \
    X(CUDA_ERROR_INVALID_CONTEXT, 201)                                                                             \
    X(CUDA_ERROR_MAP_FAILED, 205)                                                                                  \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)                                                                           \
    X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)                                                                           \
    X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217)                                                                     \
    X(CUDA_ERROR_INVALID_PTX, 218)                                                                                 \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)                                                                     \
    X(CUDA_ERROR_INVALID_SOURCE, 300)                                                                              \
    X(CUDA_ERROR_FILE_NOT_FOUND, 301)                                                                              \
    X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303)                                                                   \
    X(CUDA_ERROR_OPERATING_SYSTEM, 304)                                                                            \
    X(CUDA_ERROR_INVALID_HANDLE, 400)                                                                              \
    X(CUDA_ERROR_ILLEGAL_STATE, 401)                                                                               \
    X(CUDA_ERROR_NOT_FOUND, 500)                                                                                   \
    X(CUDA_ERROR_NOT_READY, 600)                                                                                   \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                                                             \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)                                                                     \
    X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                                                                              \
    X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704)                                                                 \
    X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705)                                                                     \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709)                                                                        \
    X(CUDA_ERROR_ASSERT, 710)                                                                                      \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)                                                                        \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)                                                                         \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                                                          \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)                                                                       \
    X(CUDA_ERROR_INVALID_PC, 718)                                                                                  \
    X(CUDA_ERROR_LAUNCH_FAILED, 719)                                                                               \
    X(CUDA_ERROR_NOT_PERMITTED, 800)                                                                               \
    X(CUDA_ERROR_NOT_SUPPORTED, 801)                                                                               \
    X(CUDA_ERROR_SYSTEM_NOT_READY, 802)                                                                            \
    X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)                                                                      \
    X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804)                                                              \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900)                                                                  \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901)                                                                  \
    X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902)                                                                        \
    X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903)                                                                    \
    X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904)                                                                     \
    X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905)                                                                    \
    X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906)                                                                     \
    X(CUDA_ERROR_CAPTURED_EVENT, 907)                                                                              \
    X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908)                                                                 \
    X(CUDA_ERROR_TIMEOUT, 909)                                                                                     \
    X(CUDA_ERROR_UNKNOWN, 999)

/*
 * "CUDA_ERROR_NOT_READY (600)" for messages: the driver's name for r
 * (cuGetErrorName), else the one of ACLRT_CUDA_ERROR_NAMES, else
 * "CUDA error (r)".
 */
__attribute__((unused)) static const char *aclrt_cuda_error_name(const struct aclrt_cuda_driver *d,
                                                                 aclrt_CUresult r, char *buf, size_t size)
{
    static const struct {
        aclrt_CUresult value;
        const char *name;
    } known[] = {
#define ACLRT_CUDA_ERROR_NAME_ENTRY(name, value) {value##u, #name},
        ACLRT_CUDA_ERROR_NAMES(ACLRT_CUDA_ERROR_NAME_ENTRY)
#undef ACLRT_CUDA_ERROR_NAME_ENTRY
    };
    const char *name = NULL;
    if (d->cuGetErrorName == NULL || d->cuGetErrorName(r, &name) != ACLRT_CUDA_SUCCESS || name == NULL) {
        name = "CUDA error";
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (known[i].value == r)
                name = known[i].name;
    }
    snprintf(buf, size, "%s (%u)", name, r);
    return buf;
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_DRIVER_H */
