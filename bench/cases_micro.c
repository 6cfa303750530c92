/*
 * bench/cases_micro.c - the operations that take a few nanoseconds, timed in
 * batches with direct calls (no function pointer in the way):
 *
 *   query_event_status    aclrtQueryEventStatus on an event recorded on an
 *                         idle stream (complete): batch of 100 / sample
 *   record_event          aclrtRecordEvent on an idle stream, event from
 *                         aclrtCreateEventExWithFlag(ACL_EVENT_SYNC) (no
 *                         timing): batch of 100 / sample
 *   sync_finished_stream  aclrtSynchronizeStream on a stream whose work is
 *                         done: batch of 100 / sample
 *   launch_host_func      aclrtLaunchHostFunc(empty function) in bursts of
 *                         512 (the default ring holds 1023), the executor
 *                         awake: batch of 16 launches / sample
 *   launch_host_kernel    the same with aclrtxLaunchHostKernel(1 block)
 *   launch_kernel         the same with aclrtLaunchKernel(1 block) of an
 *                         empty kernel of a loaded binary, its arguments in
 *                         device memory (nothing copied)
 *   launch_kernel_args    the same with aclrtLaunchKernelWithConfig and an
 *                         args handle of two parameters (copied per launch)
 *
 * The naive baseline runs the same loops on its own functions (for the
 * kernel cases: its host-kernel launch of the binary's function, found
 * with dlsym). A sample is
 * the mean of one batch (clock cost taken off, divided by the batch), so
 * p99 and max show batches hit by an interrupt or a preemption, not single
 * calls.
 *
 * Bursts: each burst ends with a stamp task; the main thread spins until it
 * has run and starts the next burst at once, so the executor is still in its
 * idle spin (spin_ns) when the next burst starts: "awake". (Waiting with
 * aclrtSynchronizeStream could sleep, and the executor with it.) The stamp
 * also says on which CPU the burst was drained: the note of the result gives
 * the p50 of the bursts drained on another CPU than the launcher's (the
 * consumer reads the ring while the burst is written) and of those drained
 * on the launcher's own CPU (after it), two regimes with different costs.
 */
#include "bench.h"
#include "naive.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_KERNEL_PATH
#error "BENCH_KERNEL_PATH: the kernel binary of the launch_kernel cases (bench/bench.mk passes it)"
#endif

/* Time `n` samples (after n/10 warm-up ones) of K repetitions of `op`. */
#define BATCH_SAMPLES(smp, n, K, op)                                                                   \
    do {                                                                                               \
        for (size_t i_ = 0; i_ < (n) + (n) / 10; i_++) {                                               \
            uint64_t t0_ = bench_ticks();                                                              \
            for (int k_ = 0; k_ < (K); k_++) {                                                         \
                op;                                                                                    \
            }                                                                                          \
            uint64_t t1_ = bench_ticks();                                                              \
            if (i_ >= (n) / 10)                                                                        \
                samples_add((smp), bench_op_ns(t0_, t1_) / (K));                                       \
        }                                                                                              \
    } while (0)

static void check_errors(struct result *r, unsigned errors, bool state_ok, const char *state)
{
    if (errors > 0)
        bench_note(r, "%u calls returned an error", errors);
    if (!state_ok)
        bench_note(r, "unexpected: %s", state);
}

void case_query_event_status(const struct rt *rt)
{
    enum { K = 100 };
    size_t n = bench_iters(20000, 2000);
    void *s = rt->stream_create();
    void *ev = rt->event_create();
    rt->record(ev, s);
    rt->sync(s);
    struct samples smp;
    samples_init(&smp, n);
    unsigned errors = 0;
    bool complete = true;
    if (rt->is_aclrt) {
        aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        BATCH_SAMPLES(&smp, n, K, errors += aclrtQueryEventStatus(ev, &st) != ACL_SUCCESS);
        complete = st == ACL_EVENT_RECORDED_STATUS_COMPLETE;
    } else {
        BATCH_SAMPLES(&smp, n, K, complete &= nv_event_query(ev));
    }
    struct result *r = bench_record(bench_name(rt, "query_event_status"), "ns",
                                    rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE, &smp, K,
                                    "batch of 100 calls / sample, event recorded on an idle stream");
    check_errors(r, errors, complete, "the event was not complete");
    samples_free(&smp);
    rt->event_destroy(ev);
    rt->stream_destroy(s);
}

void case_record_event(const struct rt *rt)
{
    enum { K = 100 };
    size_t n = bench_iters(20000, 2000);
    void *s = rt->stream_create();
    void *ev = rt->event_create();
    rt->sync(s);
    struct samples smp;
    samples_init(&smp, n);
    unsigned errors = 0;
    if (rt->is_aclrt)
        BATCH_SAMPLES(&smp, n, K, errors += aclrtRecordEvent(ev, s) != ACL_SUCCESS);
    else
        BATCH_SAMPLES(&smp, n, K, nv_event_record(ev, s));
    struct result *r = bench_record(bench_name(rt, "record_event"), "ns", rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE,
                                    &smp, K, "batch of 100 calls / sample, idle stream, event without timing");
    check_errors(r, errors, rt->query(ev), "the event was not complete");
    samples_free(&smp);
    rt->event_destroy(ev);
    rt->stream_destroy(s);
}

void case_sync_finished_stream(const struct rt *rt)
{
    enum { K = 100 };
    size_t n = bench_iters(20000, 2000);
    void *s = rt->stream_create();
    rt->launch(s, bench_nop, NULL);
    rt->sync(s);
    struct samples smp;
    samples_init(&smp, n);
    unsigned errors = 0;
    if (rt->is_aclrt)
        BATCH_SAMPLES(&smp, n, K, errors += aclrtSynchronizeStream(s) != ACL_SUCCESS);
    else
        BATCH_SAMPLES(&smp, n, K, nv_stream_synchronize(s));
    struct result *r = bench_record(bench_name(rt, "sync_finished_stream"), "ns",
                                    rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE, &smp, K,
                                    "batch of 100 calls / sample, every task of the stream done");
    check_errors(r, errors, true, "");
    samples_free(&smp);
    rt->stream_destroy(s);
}

/* ------------------------------------------------------------------------
 * Launch bursts
 * ------------------------------------------------------------------------ */

enum { BURST = 512, BURST_BATCH = 16 };

enum launch_kind { LAUNCH_HOST_FUNC, LAUNCH_HOST_KERNEL, LAUNCH_KERNEL, LAUNCH_KERNEL_ARGS };

static const struct {
    const char *name, *what;
} launch_kinds[] = {
    [LAUNCH_HOST_FUNC] = {"launch_host_func", "bursts of 512 aclrtLaunchHostFunc(empty), executor awake; batch of 16 / sample"},
    [LAUNCH_HOST_KERNEL] = {"launch_host_kernel",
                            "bursts of 512 aclrtxLaunchHostKernel(1 block), executor awake; batch of 16 / sample"},
    [LAUNCH_KERNEL] = {"launch_kernel", "bursts of 512 aclrtLaunchKernel(1 block, empty kernel of a loaded binary, "
                                        "16 bytes of device args), executor awake; batch of 16 / sample"},
    [LAUNCH_KERNEL_ARGS] = {"launch_kernel_args",
                            "bursts of 512 aclrtLaunchKernelWithConfig(1 block, args handle of 2 parameters, copied "
                            "per launch), executor awake; batch of 16 / sample"},
};

/* The binary of the kernel cases: aclrt loads it; the baseline runs the same function as a host kernel. */
struct launch_binary {
    aclrtBinHandle bin;
    aclrtFuncHandle func;
    aclrtArgsHandle args;
    void *dev_args;
    void *dl;
    aclrtxHostKernel fn;
};

static bool launch_binary_open(const struct rt *rt, struct launch_binary *k)
{
    memset(k, 0, sizeof *k);
    if (!rt->is_aclrt) {
        k->dl = dlopen(BENCH_KERNEL_PATH, RTLD_NOW | RTLD_LOCAL);
        void *sym = k->dl != NULL ? dlsym(k->dl, "nop") : NULL;
        memcpy(&k->fn, &sym, sizeof k->fn);
        return k->fn != NULL;
    }
    uint64_t a = 1;
    uint32_t b = 2;
    aclrtParamHandle p;
    return aclrtBinaryLoadFromFile(BENCH_KERNEL_PATH, NULL, &k->bin) == ACL_SUCCESS &&
           aclrtBinaryGetFunction(k->bin, "nop", &k->func) == ACL_SUCCESS &&
           aclrtMalloc(&k->dev_args, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
           aclrtKernelArgsInit(k->func, &k->args) == ACL_SUCCESS &&
           aclrtKernelArgsAppend(k->args, &a, sizeof a, &p) == ACL_SUCCESS &&
           aclrtKernelArgsAppend(k->args, &b, sizeof b, &p) == ACL_SUCCESS &&
           aclrtKernelArgsFinalize(k->args) == ACL_SUCCESS;
}

static void launch_binary_close(struct launch_binary *k)
{
    if (k->dev_args != NULL)
        aclrtFree(k->dev_args);
    if (k->bin != NULL)
        aclrtBinaryUnLoad(k->bin);
    if (k->dl != NULL)
        dlclose(k->dl);
}

static void launch_bursts(const struct rt *rt, enum launch_kind kind)
{
    size_t bursts = bench_iters(800, 80);
    size_t warm = bursts / 10;
    struct launch_binary k;
    bool binary = kind == LAUNCH_KERNEL || kind == LAUNCH_KERNEL_ARGS;
    if (binary && !launch_binary_open(rt, &k)) {
        struct samples none;
        samples_init(&none, 1);
        struct result *r = bench_record(bench_name(rt, launch_kinds[kind].name), "ns",
                                        rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE, &none, BURST_BATCH,
                                        launch_kinds[kind].what);
        bench_note(r, "unexpected: cannot load %s: %s", BENCH_KERNEL_PATH,
                   rt->is_aclrt ? aclGetRecentErrMsg() : dlerror());
        samples_free(&none);
        launch_binary_close(&k);
        return;
    }
    void *s = rt->stream_create();
    struct bench_stamp done;
    struct samples all, apart, together;
    samples_init(&all, bursts * (BURST / BURST_BATCH));
    samples_init(&apart, bursts * (BURST / BURST_BATCH));
    samples_init(&together, bursts * (BURST / BURST_BATCH));
    double burst[BURST / BURST_BATCH];
    unsigned errors = 0, timeouts = 0;
    double start = bench_now_s();
    for (size_t b = 0; b < bursts + warm; b++) {
        atomic_store_explicit(&done.t, 0, memory_order_relaxed);
        int cpu = sched_getcpu();
        for (int j = 0; j < BURST / BURST_BATCH; j++) {
            uint64_t t0 = bench_ticks();
            if (rt->is_aclrt && kind == LAUNCH_HOST_FUNC)
                for (int i = 0; i < BURST_BATCH; i++)
                    errors += aclrtLaunchHostFunc(s, bench_nop, NULL) != ACL_SUCCESS;
            else if (rt->is_aclrt && kind == LAUNCH_HOST_KERNEL)
                for (int i = 0; i < BURST_BATCH; i++)
                    errors += aclrtxLaunchHostKernel(s, 1, bench_nop_kernel, NULL) != ACL_SUCCESS;
            else if (rt->is_aclrt && kind == LAUNCH_KERNEL)
                for (int i = 0; i < BURST_BATCH; i++)
                    errors += aclrtLaunchKernel(k.func, 1, k.dev_args, 16, s) != ACL_SUCCESS;
            else if (rt->is_aclrt)
                for (int i = 0; i < BURST_BATCH; i++)
                    errors += aclrtLaunchKernelWithConfig(k.func, 1, s, NULL, k.args, NULL) != ACL_SUCCESS;
            else if (kind == LAUNCH_HOST_FUNC)
                for (int i = 0; i < BURST_BATCH; i++)
                    nv_launch_host_func(s, bench_nop, NULL);
            else
                for (int i = 0; i < BURST_BATCH; i++)
                    nv_launch_host_kernel(s, 1, binary ? k.fn : bench_nop_kernel, NULL);
            uint64_t t1 = bench_ticks();
            burst[j] = bench_op_ns(t0, t1) / BURST_BATCH;
        }
        rt->launch(s, bench_stamp_fn, &done);
        if (!bench_wait_flag(&done.t, 10ull * 1000000000ull, 0))
            timeouts++;
        if (b >= warm) {
            /* Where the burst's last task ran: on the launcher's CPU, nothing drained it concurrently. */
            struct samples *group = done.cpu == cpu ? &together : &apart;
            for (int j = 0; j < BURST / BURST_BATCH; j++) {
                samples_add(&all, burst[j]);
                samples_add(group, burst[j]);
            }
        }
        if (b > warm + 10 && bench_over_budget(start, 6.0))
            break;
    }
    rt->sync(s);
    struct result *r = bench_record(bench_name(rt, launch_kinds[kind].name), "ns",
                                    rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE, &all, BURST_BATCH,
                                    launch_kinds[kind].what);
    size_t nb_apart = apart.n / (BURST / BURST_BATCH), nb_together = together.n / (BURST / BURST_BATCH);
    struct summary sa = samples_summarize(&apart), st = samples_summarize(&together);
    bench_note(r, "%zu bursts drained on another CPU than the launcher's (p50 %.1f ns), %zu on the launcher's (p50 %.1f ns)",
               nb_apart, sa.p50, nb_together, st.p50);
    check_errors(r, errors, timeouts == 0, "a burst did not finish within 10 s");
    samples_free(&all);
    samples_free(&apart);
    samples_free(&together);
    rt->stream_destroy(s);
    if (binary)
        launch_binary_close(&k);
}

void case_launch_host_func(const struct rt *rt)
{
    launch_bursts(rt, LAUNCH_HOST_FUNC);
}

void case_launch_host_kernel(const struct rt *rt)
{
    launch_bursts(rt, LAUNCH_HOST_KERNEL);
}

void case_launch_kernel(const struct rt *rt)
{
    launch_bursts(rt, LAUNCH_KERNEL);
}

void case_launch_kernel_args(const struct rt *rt)
{
    launch_bursts(rt, LAUNCH_KERNEL_ARGS);
}
