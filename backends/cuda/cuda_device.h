/*
 * backends/cuda/cuda_device.h - the cuda backend's process state: the driver it
 * opened, the GPUs and the aclrt devices on them, their primary contexts,
 * which context each thread has current, and what a driver error means in
 * ACL's codes.
 *
 *   - aclrt device i runs on GPU i mod (GPUs): by default there are as many
 *     devices as GPUs; aclrt.devices / ACLRT_DEVICES asks for another count,
 *     and several devices then share a GPU (and its primary context), each
 *     with streams of its own.
 *   - A GPU's primary context is retained on first use (a device start, or
 *     pinned host memory) and released when the backend closes.
 *   - Every thread that calls the driver makes the context it needs current
 *     first (aclrt_cuda_enter): executors, progress threads, the user threads
 *     that allocate or wait. A thread-local cache makes that one compare
 *     when it is current already; the cache holds the backend's open
 *     generation, so a context of an earlier runtime is never taken for
 *     current.
 *   - The driver's callback threads (host functions) call no driver function
 *     (CUDA forbids it): aclrt_cuda_in_callback tells the code that runs there.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_DEVICE_H
#define ACLRT_BACKENDS_CUDA_CUDA_DEVICE_H

#include "../../impl/core/base.h"
#include "../../impl/core/config.h"
#include "../../impl/core/error.h"
#include "../../impl/runtime/runtime.h"
#include "cuda_driver.h"

struct aclrt_cuda_device {
    uint32_t id;         /* the aclrt device */
    aclrt_CUdevice gpu;  /* the GPU it runs on */
    uint32_t gpu_index;  /* ... its index in aclrt_cuda.gpus (modules are loaded per GPU: cuda_module.h) */
    aclrt_CUcontext ctx; /* the GPU's primary context */
    bool started;
    bool host_access;    /* the CPU can address the GPU's memory (value operations may run on the host) */
    bool wait_nor;       /* the GPU's stream memory operations wait with NOR (attribute 123) */
    _Atomic bool stuck_waits; /* a released value wait may still wait on the GPU: no cuMemFree (cuda_stream.h) */
    _Atomic aclrt_CUresult lost; /* 0, or the sticky error after which the context accepts no work */
    /* Event timestamps (cuda_time.h): an event recorded when the host clock read anchor_ns. */
    pthread_mutex_t anchor_lock;
    aclrt_CUstream anchor_stream;
    aclrt_CUevent anchor;
    uint64_t anchor_ns;
};

struct aclrt_cuda_gpu {
    aclrt_CUdevice dev;
    aclrt_CUcontext ctx; /* retained primary context, or NULL */
};

static struct {
    struct aclrt_cuda_driver drv; /* loaded once per process and kept (its threads outlive a close) */
    bool loaded;
    uint32_t generation; /* bumped by every open (written while no other thread uses the backend) */
    uint32_t gpu_count;
    struct aclrt_cuda_gpu gpus[ACLRT_MAX_DEVICES];
    /*
     * Per GPU, the sticky error that lost its context (0: none). Kept for the
     * process, across device resets and aclFinalize: cuda.h says such an
     * error leaves the process unable to use CUDA until it is restarted.
     */
    _Atomic aclrt_CUresult gpu_lost[ACLRT_MAX_DEVICES];
    struct aclrt_cuda_device devices[ACLRT_MAX_DEVICES];
    pthread_mutex_t lock; /* primary context retains; the slot and stamp tables' growth */
    _Atomic uint64_t host_fns; /* host functions of ours enqueued and not ended (aclrt_cuda_host_fn) */
    pid_t init_pid;            /* the process that first started the driver (a forked child's is its parent's) */
} aclrt_cuda = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define aclrt_cu (&aclrt_cuda.drv)

/*
 * Enqueue a host function of ours on cu, counted until it calls
 * aclrt_cuda_host_fn_end as its last step: a device stops once none is left
 * (aclrt_cuda_host_fns_drain), rather than by cuCtxSynchronize, which would
 * also wait for GPU work that may never finish (a released value wait).
 */
ACLRT_INLINE aclrt_CUresult aclrt_cuda_host_fn(aclrt_CUstream cu, void (*fn)(void *), void *arg)
{
    atomic_fetch_add_explicit(&aclrt_cuda.host_fns, 1, memory_order_relaxed);
    aclrt_CUresult r = aclrt_cu->cuLaunchHostFunc(cu, fn, arg);
    if (ACLRT_UNLIKELY(r != ACLRT_CUDA_SUCCESS))
        atomic_fetch_sub_explicit(&aclrt_cuda.host_fns, 1, memory_order_relaxed);
    return r;
}

ACLRT_INLINE void aclrt_cuda_host_fn_end(void)
{
    /* Release: pairs with the drain's acquire (what the function did comes before the stop). */
    atomic_fetch_sub_explicit(&aclrt_cuda.host_fns, 1, memory_order_release);
}

/* The context this thread made current, in which open generation. */
static _Thread_local struct {
    aclrt_CUcontext ctx;
    uint32_t generation;
} aclrt_cuda_current;

/* Set while the driver runs one of our host functions on its thread: no driver calls there. */
static _Thread_local bool aclrt_cuda_in_callback;

ACLRT_INLINE struct aclrt_cuda_device *aclrt_cuda_device_of(const struct aclrt_device *dev)
{
    return &aclrt_cuda.devices[dev->id];
}

/*
 * Make ctx current on the calling thread. The thread's cache says what the
 * backend made current there; user code on the same thread (a host
 * function, a program that also uses the CUDA runtime) may have made
 * another context current since, so the driver is asked (a thread-local
 * read in the driver) before the cache is trusted.
 */
ACLRT_INLINE aclrt_CUresult aclrt_cuda_enter(aclrt_CUcontext ctx)
{
    if (ACLRT_LIKELY(aclrt_cuda_current.ctx == ctx && aclrt_cuda_current.generation == aclrt_cuda.generation)) {
        aclrt_CUcontext cur = NULL;
        if (aclrt_cu->cuCtxGetCurrent == NULL || (aclrt_cu->cuCtxGetCurrent(&cur) == ACLRT_CUDA_SUCCESS && cur == ctx))
            return ACLRT_CUDA_SUCCESS;
    }
    aclrt_CUresult r = aclrt_cu->cuCtxSetCurrent(ctx);
    if (r == ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_current.ctx = ctx;
        aclrt_cuda_current.generation = aclrt_cuda.generation;
    }
    return r;
}

/* ACL's code for a driver error. */
ACLRT_INTERNAL aclError aclrt_cuda_code(aclrt_CUresult r)
{
    switch (r) {
    case ACLRT_CUDA_SUCCESS: return ACL_SUCCESS;
    case ACLRT_CUDA_ERROR_INVALID_VALUE: return ACL_ERROR_RT_PARAM_INVALID;
    case ACLRT_CUDA_ERROR_OUT_OF_MEMORY: return ACL_ERROR_RT_MEMORY_ALLOCATION;
    case ACLRT_CUDA_ERROR_NOT_INITIALIZED:
    case ACLRT_CUDA_ERROR_DEINITIALIZED:
    case ACLRT_CUDA_ERROR_STUB_LIBRARY:
    case ACLRT_CUDA_ERROR_NO_DEVICE:
    case ACLRT_CUDA_ERROR_INVALID_DEVICE: return ACL_ERROR_RT_NO_DEVICE;
    case ACLRT_CUDA_ERROR_NOT_SUPPORTED: return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    case ACLRT_CUDA_ERROR_ILLEGAL_ADDRESS:
    case ACLRT_CUDA_ERROR_MISALIGNED_ADDRESS:
    case ACLRT_CUDA_ERROR_INVALID_ADDRESS_SPACE: return ACL_ERROR_RT_DEVICE_MEM_ERROR;
    default:
        if (r >= 700 && r < 800) /* a fault of work on the device */
            return ACL_ERROR_RT_AICORE_EXCEPTION;
        return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
    }
}

/* Fail with ACL's code for r and a message naming the driver's error. */
ACLRT_INTERNAL aclError aclrt_cuda_fail(aclrt_CUresult r, const char *what)
{
    char name[96];
    return aclrt_fail(aclrt_cuda_code(r), "%s failed: %s", what, aclrt_cuda_error_name(aclrt_cu, r, name, sizeof name));
}

/*
 * Is r an error the context does not recover from (every later call returns
 * it)? Those cuda.h says leave the process in an inconsistent state: a
 * kernel's illegal address (700), its timeout (702), a hardware stack error,
 * an illegal or misaligned instruction or address, an invalid PC, a failed
 * launch (714-719), an uncorrectable ECC error (214). Not the others of the
 * 700s: launch out of resources (701), too many blocks (720), peer access
 * errors (704, 705), ... fail the call, and the context goes on.
 */
ACLRT_INLINE bool aclrt_cuda_sticky(aclrt_CUresult r)
{
    switch (r) {
    case 214: case 700: case 702: case 714: case 715: case 716: case 717: case 718: case 719: return true;
    default: return false;
    }
}

/*
 * GPU g lost its context to a sticky error (aclrt_cuda.gpu_lost): the
 * failure of whatever asks for more of it, with the error's code.
 */
ACLRT_INTERNAL aclError aclrt_cuda_gpu_lost_fail(uint32_t g)
{
    aclrt_CUresult lost = atomic_load_explicit(&aclrt_cuda.gpu_lost[g], memory_order_relaxed);
    char name[48];
    return aclrt_fail(aclrt_cuda_code(lost),
                      "GPU %u lost its context to %s, a sticky error: CUDA takes no more work from this process "
                      "(cuda.h: it must be restarted)",
                      g, aclrt_cuda_error_name(aclrt_cu, lost, name, sizeof name));
}

/* The primary context of GPU g, retained on first use (lock held by the caller or taken here). */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_gpu_ctx(uint32_t g, aclrt_CUcontext *out)
{
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    pthread_mutex_lock(&aclrt_cuda.lock);
    struct aclrt_cuda_gpu *gpu = &aclrt_cuda.gpus[g];
    if (gpu->ctx == NULL)
        r = aclrt_cu->cuDevicePrimaryCtxRetain(&gpu->ctx, gpu->dev);
    *out = gpu->ctx;
    pthread_mutex_unlock(&aclrt_cuda.lock);
    return r;
}

/*
 * A context for calls that belong to no device (pinned host memory, copies
 * between host memory): the calling thread's current one if it has one of
 * ours, else the first GPU's.
 */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_enter_any(void)
{
    if (aclrt_cuda_current.ctx != NULL && aclrt_cuda_current.generation == aclrt_cuda.generation)
        return ACLRT_CUDA_SUCCESS;
    aclrt_CUcontext ctx;
    aclrt_CUresult r = aclrt_cuda_gpu_ctx(0, &ctx);
    return r == ACLRT_CUDA_SUCCESS ? aclrt_cuda_enter(ctx) : r;
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_DEVICE_H */
