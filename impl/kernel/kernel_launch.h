/*
 * impl/kernel/kernel_launch.h - launching a function of a loaded binary
 * (aclrtLaunchKernel, aclrtLaunchKernelV2, aclrtLaunchKernelWithConfig,
 * aclrtLaunchKernelWithHostArgs): one ACLRT_TASK_KERNEL task.
 *
 * The task runs like a host kernel (host_kernel.h: every block, in parallel
 * through the backend's run_kernel, under the overflow watch when the
 * stream's switch is on); a failing block fails it like a device fault. It
 * counts as in flight on the function's binary until it is done (binary.h),
 * so an unload leaves the module loaded for the launches queued before it.
 *
 * Where the arguments come from:
 *   - aclrtLaunchKernel / V2: `argsData` is device memory of the stream's
 *     device that the kernel reads when it runs, as a device reads it: not
 *     copied, so work queued before the launch may still write it (an
 *     asynchronous copy into it, in stream order) and the caller keeps it
 *     until the kernel has run.
 *   - aclrtLaunchKernelWithHostArgs: host memory, copied at the launch;
 *     each placeholder's address in the copy is set to its data in the copy.
 *   - aclrtLaunchKernelWithConfig: a copy of the args handle (kernel_args.h).
 * A copy of up to ACLRT_RING_SIDE_BYTES goes into the side area of the
 * task's ring position (ring.h), which lives as long as the task: no
 * allocation, no free (a launch with an args handle of two parameters: 228
 * ns with a malloc'd copy, freed by the executor, against 45 ns without a
 * copy, on a 2-CPU VM). A larger copy, and any copy while the core does not
 * run the kernels itself (a backend's own kernel kind, which may keep them
 * past the task) or the stream's tasks go to a capture, is allocated per
 * launch and freed when the task is done or discarded. A failing kernel's
 * copy lives on in a buffer of the thread that ran it, for the exception
 * callbacks (aclrtGetArgsFromExceptionInfo), until that thread's next
 * failing kernel or its exit.
 *
 * The launch configuration (aclrtLaunchKernelCfg) is checked as the runtime
 * checks it [src]; of its attributes only the timeout acts on the host: a
 * kernel that ran longer than it fails its task with
 * ACL_ERROR_RT_AICORE_TIMEOUT when it returns (a CPU function cannot be
 * stopped midway). A launch without one has the process's operator
 * execution timeout (op_timeout.h).
 */
#ifndef ACLRT_IMPL_KERNEL_KERNEL_LAUNCH_H
#define ACLRT_IMPL_KERNEL_KERNEL_LAUNCH_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"
#include "../memory/memory.h"
#include "binary.h"
#include "dump.h"
#include "host_kernel.h"
#include "kernel_args.h"
#include "op_timeout.h"

/* ------------------------------------------------------------------------
 * The arguments of a failing kernel, kept for the exception callbacks
 * ------------------------------------------------------------------------ */

static _Thread_local struct {
    unsigned char *p;
    size_t cap;
} aclrt_kernel_failed ACLRT_TLS_MODEL;
static pthread_key_t aclrt_kernel_failed_key;
static pthread_once_t aclrt_kernel_failed_once = PTHREAD_ONCE_INIT;
static bool aclrt_kernel_failed_key_ok;

static void aclrt_kernel_failed_free(void *p)
{
    if (aclrt_kernel_failed.p == p) {
        aclrt_kernel_failed.p = NULL;
        aclrt_kernel_failed.cap = 0;
    }
    free(p);
}

static void aclrt_kernel_failed_key_init(void)
{
    aclrt_kernel_failed_key_ok = pthread_key_create(&aclrt_kernel_failed_key, aclrt_kernel_failed_free) == 0;
}

/* A copy of a failing kernel's args in the thread's buffer (freed at thread exit); NULL if none can be had. */
static void *aclrt_kernel_keep_failed_args(const void *args, size_t size)
{
    if (size > aclrt_kernel_failed.cap) {
        pthread_once(&aclrt_kernel_failed_once, aclrt_kernel_failed_key_init);
        if (!aclrt_kernel_failed_key_ok)
            return NULL;
        unsigned char *p = (unsigned char *)realloc(aclrt_kernel_failed.p, size);
        if (p == NULL)
            return NULL;
        aclrt_kernel_failed.p = p;
        aclrt_kernel_failed.cap = size;
        pthread_setspecific(aclrt_kernel_failed_key, p);
    }
    memcpy(aclrt_kernel_failed.p, args, size);
    return aclrt_kernel_failed.p;
}

/* ------------------------------------------------------------------------
 * The task kind
 * ------------------------------------------------------------------------ */

/* A failed task's copy of its args moves to the thread's buffer: the exception callbacks read it after the run. */
static void aclrt_kernel_keep_args(struct aclrt_task *t)
{
    t->u.kernel.args = aclrt_kernel_keep_failed_args(t->u.kernel.args, t->u.kernel.args_size);
    if (t->u.kernel.args == NULL)
        t->u.kernel.args_size = 0;
}

/* The task is done (run, failed or discarded): its copy of the args goes, its binary counts it done. */
ACLRT_INTERNAL void aclrt_kernel_task_done(struct aclrt_task *t, bool failed)
{
    if (t->u.kernel.owned) {
        void *own = t->u.kernel.args;
        if (failed)
            aclrt_kernel_keep_args(t);
        free(own);
        t->u.kernel.owned = 0;
    }
    if (t->u.kernel.binary != NULL) {
        aclrt_binary_done(t->u.kernel.binary);
        t->u.kernel.binary = NULL;
    }
}

/* ACLRT_TASK_KERNEL: the blocks as a host kernel's, then the timeout, then what the task holds goes. */
static int aclrt_kernel_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    uint64_t timeout_ns = (uint64_t)t->u.kernel.timeout_ms * 1000000u;
    unsigned dump = aclrt_dump_on(); /* 0 unless a dump is on (dump.h) */
    if (ACLRT_UNLIKELY(dump & (ACLRT_DUMP_DATA | ACLRT_DUMP_ARGS)))
        aclrt_dump_kernel(dump, t->u.kernel.handle, s->device->id, t->u.kernel.args, t->u.kernel.args_size, false);
    uint64_t start = timeout_ns != 0 ? aclrt_now_ns() : 0;
    int rc = aclrt_host_kernel_run(s, t, blk);
    if (rc == ACL_SUCCESS && timeout_ns != 0 && aclrt_now_ns() - start > timeout_ns)
        rc = ACL_ERROR_RT_AICORE_TIMEOUT;
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS && (dump & ACLRT_DUMP_EXCEPTION)))
        aclrt_dump_kernel(dump, t->u.kernel.handle, s->device->id, t->u.kernel.args, t->u.kernel.args_size, true);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS) && aclrt_ring_side_holds(&s->ring, t->u.kernel.args))
        aclrt_kernel_keep_args(t); /* a copy in the side area goes with the task's slot */
    aclrt_kernel_task_done(t, rc != ACL_SUCCESS);
    return rc;
}

static void aclrt_kernel_drop(struct aclrt_task *t)
{
    aclrt_kernel_task_done(t, false);
}

static const struct aclrt_task_kind aclrt_kind_kernel = {ACLRT_TASK_KERNEL, "kernel", aclrt_kernel_run,
                                                         aclrt_kernel_drop};

/* ------------------------------------------------------------------------
 * Launches
 * ------------------------------------------------------------------------ */

#define ACLRT_KERNEL_TIMEOUT_MAX_MS 0x7FFFFFFFu /* what a task record holds: 24.8 days */

/*
 * The launch configuration, checked as the runtime checks it [src]; the
 * timeout it asks for, in milliseconds rounded up (0: none).
 */
ACLRT_INTERNAL aclError aclrt_kernel_cfg(const aclrtLaunchKernelCfg *cfg, uint32_t *timeout_ms)
{
    *timeout_ms = 0;
    if (cfg == NULL)
        return ACL_SUCCESS;
    if (cfg->attrs == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cfg->attrs is NULL");
    bool seconds = false, micros = false;
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtLaunchKernelAttr *at = &cfg->attrs[i];
        unsigned v = 0, most = 1;
        const char *what = NULL;
        switch ((int)at->id) {
        case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE: v = at->value.schemMode, what = "schemMode"; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH: v = at->value.isBlockTaskPrefetch, what = "isBlockTaskPrefetch"; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP: v = at->value.isDataDump, what = "isDataDump"; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING: v = at->value.enableProfiling, what = "enableProfiling"; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
            seconds = true;
            *timeout_ms = (uint32_t)at->value.timeout * 1000u; /* at most 65535 s */
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US: {
            micros = true;
            uint64_t us = (uint64_t)at->value.timeoutUs.timeoutHigh << 32 | at->value.timeoutUs.timeoutLow;
            uint64_t ms = us / 1000 + (us % 1000 != 0);
            *timeout_ms = ms > ACLRT_KERNEL_TIMEOUT_MAX_MS ? ACLRT_KERNEL_TIMEOUT_MAX_MS : (uint32_t)ms;
            break;
        }
        default: break; /* the others (engine, block offset, UB size) have nothing to act on here */
        }
        if (what != NULL && v > most)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cfg->attrs[%zu]: %s %u is not 0 or 1", i, what, v);
    }
    if (seconds && micros)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "cfg has both ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT and ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US");
    return ACL_SUCCESS;
}

/* numBlocks and an args size, as the runtime checks them [src]. */
ACLRT_INTERNAL aclError aclrt_kernel_check_sizes(uint32_t numBlocks, size_t argsSize)
{
    if (numBlocks == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "numBlocks is 0");
    if (argsSize == 0 || argsSize > UINT32_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "argsSize %zu is not in [1, 4 GiB)", argsSize);
    return ACL_SUCCESS;
}

/* The task of a launch, into *t; timeout_ms 0: the process's operator timeout (op_timeout.h). */
ACLRT_INLINE void aclrt_kernel_task_init(struct aclrt_task *t, aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                         aclrtxHostKernel fn, struct aclrt_binary *b, void *args, uint32_t size,
                                         bool owned, uint32_t timeout_ms)
{
    if (timeout_ms == 0)
        timeout_ms = aclrt_op_execute_timeout_ms();
    *t = (struct aclrt_task){.kind = &aclrt_kind_kernel,
                             .u32 = numBlocks,
                             .u.kernel.fn = fn,
                             .u.kernel.args = args,
                             .u.kernel.handle = funcHandle,
                             .u.kernel.binary = b,
                             .u.kernel.args_size = size};
    /*
     * The two bit-fields share a word: set them with word-sized writes after
     * the initialiser (as members of it, the compiler stored `owned` as a
     * byte and then read the whole word back: a store-forwarding stall of
     * some 5 ns on every launch).
     */
    t->u.kernel.timeout_ms = timeout_ms;
    t->u.kernel.owned = owned;
}

/*
 * Submit the task of a launch. It takes over the binary's count in flight
 * and, if `owned`, the args copy; on failure both are given back here.
 */
static aclError aclrt_kernel_submit(struct aclrt_stream *s, aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                    aclrtxHostKernel fn, struct aclrt_binary *b, void *args, uint32_t size, bool owned,
                                    uint32_t timeout_ms)
{
    struct aclrt_task t;
    aclrt_kernel_task_init(&t, funcHandle, numBlocks, fn, b, args, size, owned, timeout_ms);
    aclError rc = aclrt_stream_submit(s, &t, NULL);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS)) {
        if (owned)
            free(args);
        aclrt_binary_done(b);
    }
    return rc;
}

/* Arguments a launch copies: an args handle's, or host memory with placeholders to point into the copy. */
struct aclrt_kernel_args_src {
    const struct aclrt_args *handle; /* NULL: the fields below */
    const unsigned char *host;
    const aclrtPlaceHolderInfo *placeholders;
    size_t placeholder_count;
    uint32_t size;
};

static void aclrt_kernel_args_fill(const struct aclrt_kernel_args_src *src, unsigned char *c)
{
    if (src->handle != NULL) {
        aclrt_args_write(src->handle, c);
        return;
    }
    memcpy(c, src->host, src->size);
    for (size_t i = 0; i < src->placeholder_count; i++) {
        void *data = c + src->placeholders[i].dataOffset;
        memcpy(c + src->placeholders[i].addrOffset, &data, sizeof data);
    }
}

/*
 * Submit a launch whose arguments are copied now: into the ring's side area
 * at the task (no allocation) when they fit and the core runs the kernels,
 * else into a copy of their own (see the head of this file). It takes over
 * the binary's count in flight; on failure it is given back here.
 */
static aclError aclrt_kernel_submit_copy(struct aclrt_stream *s, aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                         aclrtxHostKernel fn, struct aclrt_binary *b,
                                         const struct aclrt_kernel_args_src *src, uint32_t timeout_ms)
{
    aclError fits = aclrt_function_args_fit(b, fn, src->size); /* never queued short of the kernel's parameters */
    if (ACLRT_UNLIKELY(fits != ACL_SUCCESS)) {
        aclrt_binary_done(b);
        return fits;
    }
    if (src->size == 0) /* an args handle with nothing appended */
        return aclrt_kernel_submit(s, funcHandle, numBlocks, fn, b, NULL, 0, false, timeout_ms);
    if (ACLRT_LIKELY(aclrt_kind_is_core(ACLRT_TASK_KERNEL))) {
        struct aclrt_ring_slot *slot;
        uint32_t position;
        unsigned char *dst;
        aclError rc = aclrt_stream_reserve_side(s, src->size, &slot, &position, &dst);
        if (ACLRT_UNLIKELY(rc != ACL_SUCCESS)) {
            aclrt_binary_done(b);
            return rc;
        }
        if (ACLRT_LIKELY(dst != NULL)) {
            aclrt_kernel_args_fill(src, dst);
            struct aclrt_task t;
            aclrt_kernel_task_init(&t, funcHandle, numBlocks, fn, b, dst, src->size, false, timeout_ms);
            aclrt_stream_publish(s, slot, position, &t);
            return ACL_SUCCESS;
        }
    }
    unsigned char *copy = (unsigned char *)malloc(src->size);
    if (ACLRT_UNLIKELY(copy == NULL)) {
        aclrt_binary_done(b);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for the launch's %u bytes of arguments",
                          src->size);
    }
    aclrt_kernel_args_fill(src, copy);
    return aclrt_kernel_submit(s, funcHandle, numBlocks, fn, b, copy, src->size, true, timeout_ms);
}

/* A launch's stream, then its function's kernel, its binary counted in flight (aclrt_function_acquire). */
ACLRT_INLINE aclError aclrt_kernel_acquire_on(aclrtStream stream, aclrtFuncHandle funcHandle, struct aclrt_stream **s,
                                              aclrtxHostKernel *fn, struct aclrt_binary **b)
{
    aclError rc = aclrt_stream_resolve(stream, true, s);
    if (ACLRT_LIKELY(rc == ACL_SUCCESS))
        rc = aclrt_function_acquire(funcHandle, fn, b);
    return rc;
}

static aclError aclrt_kernel_launch_device_args(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                                size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
    if (ACLRT_UNLIKELY(funcHandle == NULL || argsData == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", funcHandle == NULL ? "funcHandle" : "argsData");
    uint32_t timeout_ms;
    aclError rc = aclrt_kernel_check_sizes(numBlocks, argsSize);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS) || ACLRT_UNLIKELY((rc = aclrt_kernel_cfg(cfg, &timeout_ms)) != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY(aclrt_mem_device_of(argsData, argsSize) != s->device))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "argsData %p is not %zu bytes of device memory of the stream's device (aclrtMalloc): the "
                          "kernel reads its arguments there when it runs",
                          argsData, argsSize);
    aclrtxHostKernel fn = NULL;
    struct aclrt_binary *b = NULL;
    if (ACLRT_UNLIKELY((rc = aclrt_function_acquire(funcHandle, &fn, &b)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_function_args_fit(b, fn, (uint32_t)argsSize)) != ACL_SUCCESS)) {
        aclrt_binary_done(b); /* never queued short of the kernel's parameters */
        return rc;
    }
    return aclrt_kernel_submit(s, funcHandle, numBlocks, fn, b, (void *)(uintptr_t)argsData, (uint32_t)argsSize,
                               false, timeout_ms);
}

ACLRT_API aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                     size_t argsSize, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_kernel_launch_device_args(funcHandle, numBlocks, argsData, argsSize, NULL, stream);
}

ACLRT_API aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                       size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_kernel_launch_device_args(funcHandle, numBlocks, argsData, argsSize, cfg, stream);
}

ACLRT_API aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                                 aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize,
                                                 aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum)
{
    ACLRT_ENTER();
    if (ACLRT_UNLIKELY(funcHandle == NULL || hostArgs == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", funcHandle == NULL ? "funcHandle" : "hostArgs");
    uint32_t timeout_ms;
    aclError rc = aclrt_kernel_check_sizes(numBlocks, argsSize);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS) || ACLRT_UNLIKELY((rc = aclrt_kernel_cfg(cfg, &timeout_ms)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY(placeHolderNum > 0 && placeHolderArray == NULL))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "placeHolderArray is NULL with placeHolderNum %zu", placeHolderNum);
    for (size_t i = 0; i < placeHolderNum; i++)
        if ((size_t)placeHolderArray[i].addrOffset + sizeof(void *) > argsSize ||
            placeHolderArray[i].dataOffset >= argsSize)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "placeHolderArray[%zu] (addrOffset %u, dataOffset %u) does not lie in the %zu bytes of "
                              "hostArgs (an address takes %zu bytes at addrOffset)",
                              i, placeHolderArray[i].addrOffset, placeHolderArray[i].dataOffset, argsSize,
                              sizeof(void *));
    struct aclrt_stream *s;
    aclrtxHostKernel fn = NULL;
    struct aclrt_binary *b = NULL;
    if (ACLRT_UNLIKELY((rc = aclrt_kernel_acquire_on(stream, funcHandle, &s, &fn, &b)) != ACL_SUCCESS))
        return rc;
    struct aclrt_kernel_args_src src = {NULL, (const unsigned char *)hostArgs, placeHolderArray, placeHolderNum,
                                        (uint32_t)argsSize};
    return aclrt_kernel_submit_copy(s, funcHandle, numBlocks, fn, b, &src, timeout_ms);
}

ACLRT_API aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                               aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve)
{
    ACLRT_ENTER();
    if (ACLRT_UNLIKELY(funcHandle == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "funcHandle is NULL");
    if (ACLRT_UNLIKELY(numBlocks == 0))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "numBlocks is 0");
    if (ACLRT_UNLIKELY(reserve != NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "reserve is not NULL");
    struct aclrt_args *a;
    uint32_t timeout_ms;
    aclError rc = aclrt_args_resolve(argsHandle, &a);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS) || ACLRT_UNLIKELY((rc = aclrt_kernel_cfg(cfg, &timeout_ms)) != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    aclrtxHostKernel fn = NULL;
    struct aclrt_binary *b = NULL;
    if (ACLRT_UNLIKELY((rc = aclrt_kernel_acquire_on(stream, funcHandle, &s, &fn, &b)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_args_check(a, funcHandle)) != ACL_SUCCESS)) {
        aclrt_binary_done(b);
        return rc;
    }
    struct aclrt_kernel_args_src src = {a, NULL, NULL, 0, a->size};
    return aclrt_kernel_submit_copy(s, funcHandle, numBlocks, fn, b, &src, timeout_ms);
}

#endif /* ACLRT_IMPL_KERNEL_KERNEL_LAUNCH_H */
