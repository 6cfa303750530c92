/*
 * tests/cuda_fake/check_decls.c - the cuda backend declares the driver's
 * types, constants and entry points itself (backends/cuda_driver.h); this
 * program, compiled with the toolkit's cuda.h next to them, checks that
 * they are the toolkit's: every entry point's type against the function
 * cuda.h declares under the name the backend calls (at compile time), the
 * symbol the backend looks up against the one cuda.h's macros select (at
 * run time), the handle types, every constant the backend uses, and the
 * error names its messages use.
 *
 * make test builds and runs it where cuda.h is installed (CUDA_INCLUDE) and
 * says it skipped it otherwise.
 */
#include <cuda.h>

#include "backends/cuda/cuda_driver.h"

#include <stdio.h>
#include <string.h>

#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)

/* Entry points: our pointer type is the type of cuda.h's function (the name as its macros map it). */
#define CHECK_FN_TYPE(name, sym, old, params) \
    _Static_assert(SAME_TYPE(aclrt_##name##_fn, __typeof__(&name)), #name ": the backend's prototype is not cuda.h's");
ACLRT_CUDA_FUNCTIONS(CHECK_FN_TYPE)
ACLRT_CUDA_OPTIONAL_FUNCTIONS(CHECK_FN_TYPE)
#undef CHECK_FN_TYPE

/* Types. */
_Static_assert(SAME_TYPE(aclrt_CUresult, __typeof__(+(CUresult)0)) && sizeof(aclrt_CUresult) == sizeof(CUresult),
               "CUresult");
_Static_assert(SAME_TYPE(aclrt_CUdevice, CUdevice), "CUdevice");
_Static_assert(SAME_TYPE(aclrt_CUdeviceptr, CUdeviceptr), "CUdeviceptr");
_Static_assert(SAME_TYPE(aclrt_CUcontext, CUcontext), "CUcontext");
_Static_assert(SAME_TYPE(aclrt_CUstream, CUstream), "CUstream");
_Static_assert(SAME_TYPE(aclrt_CUevent, CUevent), "CUevent");
_Static_assert(SAME_TYPE(aclrt_CUmodule, CUmodule), "CUmodule");
_Static_assert(SAME_TYPE(aclrt_CUfunction, CUfunction), "CUfunction");
_Static_assert(SAME_TYPE(aclrt_CUhostFn, CUhostFn), "CUhostFn");
_Static_assert(SAME_TYPE(aclrt_CUgraph, CUgraph), "CUgraph");
_Static_assert(SAME_TYPE(aclrt_CUgraphExec, CUgraphExec), "CUgraphExec");
_Static_assert(sizeof(aclrt_CUstreamCaptureMode) == sizeof(CUstreamCaptureMode), "CUstreamCaptureMode");
_Static_assert(sizeof(aclrt_CUdevice_attribute) == sizeof(CUdevice_attribute), "CUdevice_attribute");
_Static_assert(SAME_TYPE(aclrt_CUipcMemHandle, CUipcMemHandle), "CUipcMemHandle");
_Static_assert(sizeof(aclrt_CUfunction_attribute) == sizeof(CUfunction_attribute), "CUfunction_attribute");

/* Constants. */
#define SAME_VALUE(ours, theirs) _Static_assert((unsigned long long)(ours) == (unsigned long long)(theirs), #ours);
SAME_VALUE(ACLRT_CUDA_SUCCESS, CUDA_SUCCESS)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE)
SAME_VALUE(ACLRT_CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY)
SAME_VALUE(ACLRT_CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED)
SAME_VALUE(ACLRT_CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_DEINITIALIZED)
SAME_VALUE(ACLRT_CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY)
SAME_VALUE(ACLRT_CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_IMAGE)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT)
SAME_VALUE(ACLRT_CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_PTX)
SAME_VALUE(ACLRT_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
SAME_VALUE(ACLRT_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
SAME_VALUE(ACLRT_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_SOURCE, CUDA_ERROR_INVALID_SOURCE)
SAME_VALUE(ACLRT_CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_FILE_NOT_FOUND)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_HANDLE)
SAME_VALUE(ACLRT_CUDA_ERROR_ILLEGAL_STATE, CUDA_ERROR_ILLEGAL_STATE)
SAME_VALUE(ACLRT_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
SAME_VALUE(ACLRT_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
SAME_VALUE(ACLRT_CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND)
SAME_VALUE(ACLRT_CUDA_ERROR_NOT_READY, CUDA_ERROR_NOT_READY)
SAME_VALUE(ACLRT_CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_ILLEGAL_ADDRESS)
SAME_VALUE(ACLRT_CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS)
SAME_VALUE(ACLRT_CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_ADDRESS_SPACE)
SAME_VALUE(ACLRT_CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_LAUNCH_FAILED)
SAME_VALUE(ACLRT_CUDA_ERROR_NOT_PERMITTED, CUDA_ERROR_NOT_PERMITTED)
SAME_VALUE(ACLRT_CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED)
SAME_VALUE(ACLRT_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
SAME_VALUE(ACLRT_CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN)
SAME_VALUE(ACLRT_CU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING)
SAME_VALUE(ACLRT_CU_EVENT_DEFAULT, CU_EVENT_DEFAULT)
SAME_VALUE(ACLRT_CU_EVENT_BLOCKING_SYNC, CU_EVENT_BLOCKING_SYNC)
SAME_VALUE(ACLRT_CU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING)
SAME_VALUE(ACLRT_CU_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_PORTABLE)
SAME_VALUE(ACLRT_CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_DEVICEMAP)
SAME_VALUE(ACLRT_CU_STREAM_WAIT_VALUE_GEQ, CU_STREAM_WAIT_VALUE_GEQ)
SAME_VALUE(ACLRT_CU_STREAM_WAIT_VALUE_EQ, CU_STREAM_WAIT_VALUE_EQ)
SAME_VALUE(ACLRT_CU_STREAM_WAIT_VALUE_AND, CU_STREAM_WAIT_VALUE_AND)
SAME_VALUE(ACLRT_CU_STREAM_WAIT_VALUE_NOR, CU_STREAM_WAIT_VALUE_NOR)
SAME_VALUE(ACLRT_CU_STREAM_WRITE_VALUE_DEFAULT, CU_STREAM_WRITE_VALUE_DEFAULT)
SAME_VALUE(ACLRT_CU_LAUNCH_PARAM_END_AS_INT, CU_LAUNCH_PARAM_END_AS_INT)
SAME_VALUE(ACLRT_CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
SAME_VALUE(ACLRT_CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)
SAME_VALUE(ACLRT_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)
SAME_VALUE(ACLRT_CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST,
           CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST)
SAME_VALUE(ACLRT_CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS)
SAME_VALUE(ACLRT_CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR)
SAME_VALUE(ACLRT_CU_STREAM_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_RELAXED)
SAME_VALUE(ACLRT_CU_IPC_HANDLE_SIZE, CU_IPC_HANDLE_SIZE)
SAME_VALUE(ACLRT_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
SAME_VALUE(ACLRT_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)

/*
 * Entry points the test double adds for its rule programs only
 * (tests/cuda_fake/rule_capture.c declares them so, fake_cuda.c defines
 * them so): cuda.h's types, and the values of the modes and statuses they
 * use as numbers.
 */
_Static_assert(SAME_TYPE(__typeof__(&cuStreamIsCapturing), aclrt_CUresult (*)(aclrt_CUstream, unsigned int *)),
               "cuStreamIsCapturing");
_Static_assert(SAME_TYPE(__typeof__(&cuThreadExchangeStreamCaptureMode), aclrt_CUresult (*)(unsigned int *)),
               "cuThreadExchangeStreamCaptureMode");
SAME_VALUE(0, CU_STREAM_CAPTURE_MODE_GLOBAL)
SAME_VALUE(1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
SAME_VALUE(2, CU_STREAM_CAPTURE_MODE_RELAXED)
SAME_VALUE(0, CU_STREAM_CAPTURE_STATUS_NONE)
SAME_VALUE(1, CU_STREAM_CAPTURE_STATUS_ACTIVE)
SAME_VALUE(2, CU_STREAM_CAPTURE_STATUS_INVALIDATED)

/* The names the backend gives driver errors in messages (ACLRT_CUDA_ERROR_NAMES): cuda.h's values. */
#define SAME_ERROR_NAME(name, value) _Static_assert((value) == (unsigned long long)(name), #name " is not " #value);
ACLRT_CUDA_ERROR_NAMES(SAME_ERROR_NAME)
#undef SAME_ERROR_NAME

/* The symbol each name maps to in cuda.h (after its macros), as a string. */
#define STR_(x) #x
#define EXPANDED(x) STR_(x)

int main(void)
{
    int bad = 0, n = 0;
#define CHECK_SYMBOL(name, sym, old, params)                                                                         \
    n++;                                                                                                             \
    if (strcmp(sym, EXPANDED(name)) != 0) {                                                                          \
        printf("cuda_decls: %s: the backend looks up %s, cuda.h calls %s\n", #name, sym, EXPANDED(name));            \
        bad++;                                                                                                       \
    }
    ACLRT_CUDA_FUNCTIONS(CHECK_SYMBOL)
    ACLRT_CUDA_OPTIONAL_FUNCTIONS(CHECK_SYMBOL)
#undef CHECK_SYMBOL
    if (bad != 0)
        return 1;
    printf("cuda_decls: %d entry points, their types and symbols, the handle types and constants match cuda.h "
           "(CUDA %d.%d)\n", n, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    return 0;
}
