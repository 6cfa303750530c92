/*
 * backends/cuda/cuda.h - the cuda backend: the same ACL programs on NVIDIA GPUs
 * (ACLRT_BACKEND=cuda, or "aclrt": {"backend": "cuda"} in the aclInit file).
 *
 *   - The driver (libcuda.so.1, or the file ACLRT_CUDA_LIBRARY names) is
 *     opened with dlopen when the runtime starts (cuda_driver.h): aclrt
 *     builds and runs without CUDA installed. No driver, cuInit failing, or
 *     no GPU: the start fails with ACL_ERROR_RT_NO_DEVICE and a message
 *     naming the cause (aclrtSetDevice, aclrtGetDeviceCount, ... return it):
 *     the driver's error by its cuda.h name (cuda_driver.h), and what to
 *     check where that is known (a stub library, no GPU visible).
 *   - Devices are GPUs (cuda_device.h), contexts the GPUs' primary contexts,
 *     streams non-blocking CUstreams with a completion word each
 *     (cuda_stream.h); task kinds become GPU work or run on the host in GPU
 *     order (cuda_kinds.h); a model replay is a CUDA graph launch, or its
 *     steps one at a time (cuda_graph.h); event timestamps come from
 *     CUevents (cuda_time.h).
 *   - Memory: aclrtMalloc is cuMemAlloc, aclrtMallocHost cuMemHostAlloc
 *     (pinned, portable, mapped), aclrtMemcpy / aclrtMemset cuMemcpy /
 *     cuMemsetD8 (synchronous; unified addressing says where each pointer
 *     is); shared between processes with CUDA's IPC handles (cuda_ipc.h);
 *     between two GPUs' memory cuMemcpyPeer, and peer access is the
 *     driver's (cuda_peer.h).
 *   - Which thread issues: the host backend's machinery runs the core's
 *     loop (host_pool.h, host_executor.h): executor threads, or with
 *     external progress the embedder's threads, take ready streams and
 *     issue their tasks to the GPU; issuing is a few driver calls, and the
 *     holder goes on at once (issue_ahead). Completion needs no thread of
 *     ours: the GPU writes the completion words.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_H
#define ACLRT_BACKENDS_CUDA_CUDA_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/config.h"
#include "../../impl/core/error.h"
#include "../../impl/task/task.h"
#include "../backend.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/memory/memory.h"
#include "../host/host.h"
#include "../host/host_blocks.h"
#include "../host/host_pool.h"
#include "../host/host_progress.h"
#include "cuda_copy.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_function.h"
#include "cuda_graph.h"
#include "cuda_ipc.h"
#include "cuda_kernel.h"
#include "cuda_kinds.h"
#include "cuda_nccl.h"
#include "cuda_peer.h"
#include "cuda_stream.h"
#include "cuda_time.h"

/* The reason the backend cannot run, as ACL_ERROR_RT_NO_DEVICE with a message (and what to check, if known). */
static aclError aclrt_cuda_no_device(aclrt_CUresult r, const char *what)
{
    char name[96];
    const char *hint = "";
    if (r == ACLRT_CUDA_ERROR_STUB_LIBRARY)
        hint = ": the library is CUDA's stub, which stands in for the driver when linking; install the NVIDIA "
               "driver, or set ACLRT_CUDA_LIBRARY to its libcuda.so.1";
    else if (r == ACLRT_CUDA_ERROR_NO_DEVICE)
        hint = ": the driver sees no GPU (check nvidia-smi, CUDA_VISIBLE_DEVICES, a container's access to the GPUs)";
    else if (r == ACLRT_CUDA_ERROR_NOT_INITIALIZED && aclrt_cuda.init_pid != 0 && aclrt_cuda.init_pid != getpid())
        hint = ": this process was forked from one that had started CUDA, and CUDA does not start again in such a "
               "child (fork before the first ACL call, or exec a new program)";
    else if (r == ACLRT_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
        hint = ": the driver library and the loaded kernel module are of different versions (reboot after a "
               "driver update)";
    return aclrt_fail(ACL_ERROR_RT_NO_DEVICE, "the cuda backend found no usable GPU: %s failed with %s%s", what,
                      aclrt_cuda_error_name(aclrt_cu, r, name, sizeof name), hint);
}

/*
 * The driver and its GPUs, and that each has what the backend needs: the
 * probe aclInit makes (gpus NULL), and the first step of the start, which
 * records the GPUs. Loads the driver once; creates no context.
 */
static aclError aclrt_cuda_find_gpus(int *count, struct aclrt_cuda_gpu *gpus)
{
    if (!aclrt_cuda.loaded) {
        char why[320];
        if (aclrt_cuda_driver_load(&aclrt_cuda.drv, getenv("ACLRT_CUDA_LIBRARY"), why, sizeof why) != 0)
            return aclrt_fail(ACL_ERROR_RT_NO_DEVICE,
                              "the cuda backend found no GPU driver: %s; is the NVIDIA driver installed? "
                              "(ACLRT_CUDA_LIBRARY names another file)",
                              why);
        aclrt_cuda.loaded = true;
    }
    /*
     * GPU-side waits (cuStreamWaitValue64) hold the hardware queue their
     * stream is mapped to; with the driver's default of 8 queues, streams
     * share them, and a wait could hold up the very stream that would
     * release it. 32 is the most the driver allows; the program's own
     * setting stands. Read by the driver at its first initialisation.
     */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
    aclrt_CUresult r = aclrt_cu->cuInit(0);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_no_device(r, "cuInit");
    if (aclrt_cuda.init_pid == 0)
        aclrt_cuda.init_pid = getpid();
    int n = 0;
    r = aclrt_cu->cuDeviceGetCount(&n);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_no_device(r, "cuDeviceGetCount");
    if (n <= 0)
        return aclrt_fail(ACL_ERROR_RT_NO_DEVICE, "the cuda backend found no GPU (cuDeviceGetCount says 0)");
    if (n > ACLRT_MAX_DEVICES)
        n = ACLRT_MAX_DEVICES;
    for (int g = 0; g < n; g++) {
        aclrt_CUdevice dev;
        int uva = 0, memops = 0;
        if ((r = aclrt_cu->cuDeviceGet(&dev, g)) != ACLRT_CUDA_SUCCESS)
            return aclrt_cuda_no_device(r, "cuDeviceGet");
        aclrt_cu->cuDeviceGetAttribute(&uva, ACLRT_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev);
        aclrt_cu->cuDeviceGetAttribute(&memops, ACLRT_CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev);
        if (!uva || !memops)
            return aclrt_fail(ACL_ERROR_RT_NO_DEVICE,
                              "GPU %d lacks %s, which the cuda backend needs", g,
                              !uva ? "unified addressing" : "64-bit stream memory operations (cuStreamWaitValue64)");
        if (gpus != NULL)
            gpus[g] = (struct aclrt_cuda_gpu){.dev = dev, .ctx = NULL};
    }
    *count = n;
    return ACL_SUCCESS;
}

static aclError aclrt_cuda_probe(const struct aclrt_config *config)
{
    (void)config;
    int n;
    return aclrt_cuda_find_gpus(&n, NULL);
}

static aclError aclrt_cuda_open(const struct aclrt_config *config, uint32_t *device_count)
{
    if (config->deterministic)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "aclrt.schedule \"deterministic\" is a mode of the host backend; the cuda backend's "
                          "GPUs run their streams in an order of their own");
    int n;
    aclError rc = aclrt_cuda_find_gpus(&n, aclrt_cuda.gpus);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_cuda.gpu_count = (uint32_t)n;
    aclrt_cuda.generation++;
    memset(aclrt_cuda.devices, 0, sizeof aclrt_cuda.devices);
    /* Without aclrt.devices, one device per GPU; with it, that many, sharing the GPUs in turn. */
    *device_count = config->devices_set ? config->devices : (uint32_t)n;
    return ACL_SUCCESS;
}

static void aclrt_cuda_close(void)
{
    /* A forked child's driver state is the parent's: nothing is called, the records stay. */
    bool driver = !aclrt_runtime_orphaned();
    if (!driver) /* a thread of the parent may have held it at the fork: it never lets go here */
        pthread_mutex_init(&aclrt_cuda.lock, NULL);
    aclrt_cuda_modules_unload_later(); /* those whose last launch ended on a driver thread, graphs first */
    aclrt_cuda_launches_reclaim(); /* timed launches whose host functions a lost device never runs */
    aclrt_cuda_stamps_release(driver);
    /*
     * A lost context calls none of its host functions (as the driver API
     * documents cuLaunchHostFunc): those of ours it still had never end,
     * and the count left is taken to be theirs, so that the slots go now
     * and the next life's device stops do not wait for them (another
     * device's, stuck behind GPU work that never ends in the same life,
     * would be forgotten with it: its context goes below).
     */
    bool lost = false;
    for (uint32_t d = 0; d < ACLRT_MAX_DEVICES; d++)
        lost = lost || atomic_load_explicit(&aclrt_cuda.devices[d].lost, memory_order_relaxed) != ACLRT_CUDA_SUCCESS;
    if (driver && lost)
        atomic_store_explicit(&aclrt_cuda.host_fns, 0, memory_order_relaxed);
    if (driver && aclrt_cuda_enter_any() == ACLRT_CUDA_SUCCESS)
        aclrt_cuda_slots_release(true);
    else if (!driver)
        aclrt_cuda_slots_release(false);
    for (uint32_t g = 0; g < aclrt_cuda.gpu_count; g++) {
        if (aclrt_cuda.gpus[g].ctx != NULL && driver)
            aclrt_cu->cuDevicePrimaryCtxRelease(aclrt_cuda.gpus[g].dev);
        aclrt_cuda.gpus[g].ctx = NULL;
    }
    aclrt_cuda.gpu_count = 0;
}

static aclError aclrt_cuda_device_start(struct aclrt_device *dev)
{
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(dev);
    uint32_t g = dev->id % aclrt_cuda.gpu_count;
    cd->id = dev->id;
    cd->gpu = aclrt_cuda.gpus[g].dev;
    cd->gpu_index = g;
    atomic_store_explicit(&cd->stuck_waits, false, memory_order_relaxed);
    atomic_store_explicit(&cd->lost, ACLRT_CUDA_SUCCESS, memory_order_relaxed);
    if (atomic_load_explicit(&aclrt_cuda.gpu_lost[g], memory_order_relaxed) != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_gpu_lost_fail(g);
    aclrt_CUresult r = aclrt_cuda_gpu_ctx(g, &cd->ctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_enter(cd->ctx);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_fail(r, "retaining the GPU's primary context");
    /*
     * Whether the CPU may address cuMemAlloc memory: only where it shares the
     * GPU's page tables (Grace Hopper's ATS, attribute 100). Not on an x86
     * H100 (attribute 101 is about managed memory, which is another thing).
     */
    int host_access = 0;
    aclrt_cu->cuDeviceGetAttribute(&host_access, ACLRT_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
                                   cd->gpu);
    cd->host_access = host_access != 0;
    int wait_nor = 0;
    aclrt_cu->cuDeviceGetAttribute(&wait_nor, ACLRT_CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, cd->gpu);
    cd->wait_nor = wait_nor != 0;
    pthread_mutex_init(&cd->anchor_lock, NULL);
    r = aclrt_cu->cuStreamCreateWithPriority(&cd->anchor_stream, ACLRT_CU_STREAM_NON_BLOCKING, 0);
    if (r == ACLRT_CUDA_SUCCESS && (r = aclrt_cu->cuEventCreate(&cd->anchor, ACLRT_CU_EVENT_DEFAULT)) != ACLRT_CUDA_SUCCESS)
        aclrt_cu->cuStreamDestroy(cd->anchor_stream);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_anchor_take(cd);
    aclError rc = r == ACLRT_CUDA_SUCCESS ? aclrt_host_device_start(dev)
                                          : aclrt_cuda_fail(r, "setting up the device's timestamp anchor");
    if (rc != ACL_SUCCESS) {
        if (r == ACLRT_CUDA_SUCCESS) {
            aclrt_cu->cuEventDestroy(cd->anchor);
            aclrt_cu->cuStreamDestroy(cd->anchor_stream);
        }
        pthread_mutex_destroy(&cd->anchor_lock);
        return rc;
    }
    cd->started = true;
    return ACL_SUCCESS;
}

#define ACLRT_CUDA_DRAIN_NS (5 * ACLRT_NS_PER_S) /* the device stop's patience with our host functions */

/*
 * Wait until every host function of ours has ended (the driver skips them
 * once the device is lost: then not). Not cuCtxSynchronize: GPU work that
 * never finishes (a value wait released by aclFinalize, on a stream of its
 * own) would hold it for ever.
 */
static void aclrt_cuda_host_fns_drain(struct aclrt_cuda_device *cd)
{
    uint64_t until = aclrt_now_ns() + ACLRT_CUDA_DRAIN_NS;
    /* Acquire: pairs with aclrt_cuda_host_fn_end's release. */
    for (uint64_t pause = 10 * ACLRT_NS_PER_US;
         atomic_load_explicit(&aclrt_cuda.host_fns, memory_order_acquire) != 0 &&
         atomic_load_explicit(&cd->lost, memory_order_relaxed) == ACLRT_CUDA_SUCCESS;
         pause = aclrt_min_u64(2 * pause, ACLRT_NS_PER_MS)) {
        if (aclrt_now_ns() > until) {
            /* Behind GPU work that does not finish: the slots they name are kept (aclrt_cuda_slots_release). */
            fprintf(stderr, "aclrt: cuda: %llu host functions of ours still queued %d s after the device stopped; "
                            "going on without them\n",
                    (unsigned long long)atomic_load_explicit(&aclrt_cuda.host_fns, memory_order_relaxed),
                    (int)(ACLRT_CUDA_DRAIN_NS / ACLRT_NS_PER_S));
            return;
        }
        struct timespec ts = {0, (long)pause};
        nanosleep(&ts, NULL);
    }
}

/* The sticky error that lost the device's GPU, as ACL's code (backend.h: device_error); for the process. */
static aclError aclrt_cuda_device_error(struct aclrt_device *dev)
{
    if (aclrt_cuda.gpu_count == 0)
        return ACL_SUCCESS;
    aclrt_CUresult lost =
        atomic_load_explicit(&aclrt_cuda.gpu_lost[dev->id % aclrt_cuda.gpu_count], memory_order_relaxed);
    return lost != ACLRT_CUDA_SUCCESS ? aclrt_cuda_code(lost) : ACL_SUCCESS;
}

static void aclrt_cuda_device_stop(struct aclrt_device *dev)
{
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(dev);
    /*
     * Our host functions run on the driver's threads and may fold a stream
     * after its task's word is written, which schedules it on the host
     * machinery: they all return before that machinery goes (the streams are
     * released by now, so nothing issues more meanwhile).
     */
    if (cd->started) {
        aclrt_cuda_host_fns_drain(cd);
        aclrt_cuda_copies_drain(); /* the copy thread folds streams too (cuda_copy.h) */
    }
    aclrt_host_device_stop(dev); /* no thread issues any more */
    if (!cd->started)
        return;
    /* Host functions of ours may still be queued behind destroyed streams: they run first. */
    aclrt_cuda_host_fns_drain(cd);
    if (aclrt_cuda_enter(cd->ctx) == ACLRT_CUDA_SUCCESS) {
        aclrt_cu->cuEventDestroy(cd->anchor);
        aclrt_cu->cuStreamDestroy(cd->anchor_stream);
    }
    pthread_mutex_destroy(&cd->anchor_lock);
    cd->started = false;
}

/* A forked child's device: no driver call (the context is the parent's), the host machinery's memory goes. */
static void aclrt_cuda_device_abandon(struct aclrt_device *dev)
{
    aclrt_host_device_abandon(dev);
    aclrt_cuda_device_of(dev)->started = false;
}

/* ------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------ */

static aclError aclrt_cuda_mem_alloc(struct aclrt_device *dev, size_t size, void **out)
{
    aclrt_CUdeviceptr p = 0;
    aclrt_CUresult r = aclrt_cuda_enter(aclrt_cuda_device_of(dev)->ctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemAlloc(&p, size);
    *out = (void *)(uintptr_t)p;
    return aclrt_cuda_code(r);
}

/* Device memory goes back, unless a wait left on the GPU would hold cuMemFree: then with the context. */
static void aclrt_cuda_mem_free(struct aclrt_device *dev, void *ptr)
{
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(dev);
    if (!atomic_load_explicit(&cd->stuck_waits, memory_order_relaxed) &&
        aclrt_cuda_enter(cd->ctx) == ACLRT_CUDA_SUCCESS)
        aclrt_cu->cuMemFree((aclrt_CUdeviceptr)(uintptr_t)ptr);
}

static aclError aclrt_cuda_host_alloc(size_t size, void **out)
{
    aclrt_CUresult r = aclrt_cuda_enter_any();
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemHostAlloc(out, size, ACLRT_CU_MEMHOSTALLOC_PORTABLE | ACLRT_CU_MEMHOSTALLOC_DEVICEMAP);
    return aclrt_cuda_code(r);
}

static void aclrt_cuda_host_free(void *ptr)
{
    if (aclrt_cuda_enter_any() == ACLRT_CUDA_SUCCESS)
        aclrt_cu->cuMemFreeHost(ptr);
}

/* The context for a synchronous call on [p, p+n): its device's if it is device memory, else any. */
static aclrt_CUresult aclrt_cuda_enter_for(const void *p, size_t n)
{
    struct aclrt_device *dev = aclrt_mem_device_of(p, n);
    if (dev != NULL && aclrt_cuda_device_of(dev)->started)
        return aclrt_cuda_enter(aclrt_cuda_device_of(dev)->ctx);
    return aclrt_cuda_enter_any();
}

static aclError aclrt_cuda_mem_copy(void *dst, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (kind == ACL_MEMCPY_HOST_TO_HOST) {
        memmove(dst, src, count);
        return ACL_SUCCESS;
    }
    aclrt_CUresult r = aclrt_cuda_enter_for(dst, count);
    if (r == ACLRT_CUDA_SUCCESS && aclrt_mem_device_of(dst, count) == NULL)
        r = aclrt_cuda_enter_for(src, count);
    if (r == ACLRT_CUDA_SUCCESS) /* between two GPUs' memory: cuMemcpyPeer (cuda_peer.h) */
        r = aclrt_cuda_copy_sync(aclrt_cuda_current.ctx, dst, src, count);
    return r == ACLRT_CUDA_SUCCESS ? ACL_SUCCESS : aclrt_cuda_fail(r, "cuMemcpy");
}

/* Is p device memory the runtime did not allocate (a module's global, a foreign cuMemAlloc)? */
static bool aclrt_cuda_foreign_device_memory(const void *p)
{
    unsigned int type = 0;
    return aclrt_cu->cuPointerGetAttribute != NULL && aclrt_cuda_enter_any() == ACLRT_CUDA_SUCCESS &&
           aclrt_cu->cuPointerGetAttribute(&type, ACLRT_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                           (aclrt_CUdeviceptr)(uintptr_t)p) == ACLRT_CUDA_SUCCESS &&
           type == ACLRT_CU_MEMORYTYPE_DEVICE;
}

static aclError aclrt_cuda_mem_set(void *dst, int value, size_t count)
{
    if (aclrt_mem_device_of(dst, count) == NULL && !aclrt_cuda_foreign_device_memory(dst)) { /* host memory */
        memset(dst, value, count);
        return ACL_SUCCESS;
    }
    aclrt_CUresult r = aclrt_cuda_enter_for(dst, count);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemsetD8((aclrt_CUdeviceptr)(uintptr_t)dst, (unsigned char)value, count);
    return r == ACLRT_CUDA_SUCCESS ? ACL_SUCCESS : aclrt_cuda_fail(r, "cuMemsetD8");
}

/*
 * Host memory that stands for device memory (aclrtMapMem, IPC imports) is
 * pinned and mapped for the GPUs (cuMemHostRegister, portable): with
 * unified addressing its host address is its address on the GPU, so copies,
 * value operations and kernels reach it. A failure leaves it unregistered:
 * the driver then refuses the GPU work that names it, with the task's error.
 */
static void aclrt_cuda_mem_mapped(void *p, size_t size, bool mapped)
{
    if (aclrt_cu->cuMemHostRegister == NULL || aclrt_cu->cuMemHostUnregister == NULL || aclrt_cuda.gpu_count == 0 ||
        aclrt_runtime_orphaned() ||
        aclrt_cuda_enter_any() != ACLRT_CUDA_SUCCESS)
        return;
    if (mapped)
        aclrt_cu->cuMemHostRegister(p, size, ACLRT_CU_MEMHOSTREGISTER_PORTABLE | ACLRT_CU_MEMHOSTREGISTER_DEVICEMAP);
    else
        aclrt_cu->cuMemHostUnregister(p);
}

/* The overrides, by kind: every kind is the backend's (the id of the shared descriptors is informative only). */
static const struct aclrt_task_kind *const aclrt_cuda_kinds[ACLRT_TASK_KIND_COUNT] = {
    [ACLRT_TASK_NOP] = &aclrt_cuda_kind_nop,
    [ACLRT_TASK_HOST_FUNC] = &aclrt_cuda_kind_host_func,
    [ACLRT_TASK_CALLBACK] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_HOST_KERNEL] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_MEMCPY] = &aclrt_cuda_kind_memcpy,
    [ACLRT_TASK_MEMSET] = &aclrt_cuda_kind_memset,
    [ACLRT_TASK_MEMCPY2D] = &aclrt_cuda_kind_memcpy2d,
    [ACLRT_TASK_MEMSET32] = &aclrt_cuda_kind_memset32,
    [ACLRT_TASK_MEMCPY_INDIRECT] = &aclrt_cuda_kind_device_memory,
    [ACLRT_TASK_WAIT_STREAM] = &aclrt_cuda_kind_wait_stream,
    [ACLRT_TASK_WAIT_EVENT] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_EVENT_STAMP] = &aclrt_cuda_kind_stamp,
    [ACLRT_TASK_EVENT_RESET] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_NOTIFY_RECORD] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_NOTIFY_WAIT] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_CNT_NOTIFY_RECORD] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_CNT_NOTIFY_WAIT] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_CNT_NOTIFY_RESET] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_VALUE_WRITE] = &aclrt_cuda_kind_value_write,
    [ACLRT_TASK_VALUE_WAIT] = &aclrt_cuda_kind_value_wait,
    [ACLRT_TASK_HCOM_RECORD] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_HCOM_WAIT] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_EXTERNAL] = &aclrt_cuda_kind_external,
    [ACLRT_TASK_REDUCE] = &aclrt_cuda_kind_device_memory,
    [ACLRT_TASK_RANDOM] = &aclrt_cuda_kind_device_memory,
    [ACLRT_TASK_OVERFLOW_STATUS] = &aclrt_cuda_kind_device_memory,
    [ACLRT_TASK_OVERFLOW_RESET] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_KERNEL] = &aclrt_cuda_kind_kernel,
    [ACLRT_TASK_MODEL] = &aclrt_cuda_kind_model, /* a CUDA graph launch, or step by step (cuda_graph.h) */
    [ACLRT_TASK_IPC_RECORD] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_IPC_WAIT] = &aclrt_cuda_kind_host,
    [ACLRT_TASK_NATIVE] = &aclrt_cuda_kind_native,
};

static const struct aclrt_backend aclrt_backend_cuda = {
    .name = "cuda",
    .probe = aclrt_cuda_probe,
    .open = aclrt_cuda_open,
    .close = aclrt_cuda_close,
    .device_start = aclrt_cuda_device_start,
    .device_stop = aclrt_cuda_device_stop,
    .device_abandon = aclrt_cuda_device_abandon,
    .stream_create = aclrt_cuda_stream_create,
    .stream_destroy = aclrt_cuda_stream_destroy,
    .stream_abort = aclrt_cuda_stream_abort,
    .schedule = aclrt_host_schedule,
    .has_other_work = aclrt_host_has_other_work,
    .crowded = aclrt_host_crowded,
    .timers_changed = aclrt_host_timers_changed,
    .progress = aclrt_host_progress,
    .run_kernel = aclrt_host_run_kernel,
    .kinds = aclrt_cuda_kinds,
    .issue_ahead = true,
    .mem_alloc = aclrt_cuda_mem_alloc,
    .mem_free = aclrt_cuda_mem_free,
    .host_alloc = aclrt_cuda_host_alloc,
    .host_free = aclrt_cuda_host_free,
    .mem_copy = aclrt_cuda_mem_copy,
    .mem_set = aclrt_cuda_mem_set,
    .mem_mapped = aclrt_cuda_mem_mapped,
    .device_error = aclrt_cuda_device_error,
    .peer_can = aclrt_cuda_peer_can,
    .peer_set = aclrt_cuda_peer_set,
    .ipc_export = aclrt_cuda_ipc_export,
    .ipc_import = aclrt_cuda_ipc_import,
    .ipc_close = aclrt_cuda_ipc_close,
    .stream_await = aclrt_cuda_stream_await,
    .stream_device_busy = aclrt_cuda_stream_device_busy,
    .stamp_time = aclrt_cuda_stamp_time,
    .stamp_elapsed = aclrt_cuda_stamp_elapsed,
    .module_load = aclrt_cuda_module_load,
    .module_unload = aclrt_cuda_module_unload,
    .module_function = aclrt_cuda_module_function,
    .module_global = aclrt_cuda_module_global,
    .function_layout = aclrt_cuda_function_layout_of,
    .function_args = aclrt_cuda_function_args,
    .function_entry = aclrt_cuda_function_entry,
    .model_step = aclrt_cuda_model_step,
    .coll = &aclrt_cuda_nccl,
};

#endif /* ACLRT_BACKENDS_CUDA_CUDA_H */
