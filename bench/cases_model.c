/*
 * bench/cases_model.c - capture and replay (aclrt only: the naive baseline
 * has no models).
 *
 *   launch_100            100 aclrtLaunchHostFunc calls of a no-op, timed on
 *                         the submitting thread (ns per 100 tasks)
 *   model_replay_100      one aclmdlRIExecuteAsync of a model captured from
 *                         the same 100 launches, timed the same way
 *   launch_100_preempted  the calls of those two during which the executor
 *   model_replay_100_preempted  they woke preempted the submitting thread
 *                         (an involuntary context switch, getrusage): its
 *                         run is in the figure too. Where the runtime's
 *                         threads share the submitter's CPU the kernel
 *                         decides per call, so the two modes are reported
 *                         apart, each with its share of the calls
 *   launch_100_e2e        TSC before the first launch -> TSC in a host
 *   model_replay_100_e2e  function launched behind the 100 tasks (the
 *                         replay): the work done end to end
 *
 * The two alternate on one stream, each iteration waiting for its stamp
 * before the next, so both see the executors in the same state.
 */
#include "bench.h"

#define MODEL_TASKS 100

void case_model_replay(const struct rt *rt)
{
    if (!rt->is_aclrt)
        return;
    aclrtStream s = rt->stream_create();
    aclmdlRI model = NULL;
    bool ok = aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == ACL_SUCCESS;
    for (int i = 0; ok && i < MODEL_TASKS; i++)
        ok = aclrtLaunchHostFunc(s, bench_nop, NULL) == ACL_SUCCESS;
    if (aclmdlRICaptureEnd(s, &model) != ACL_SUCCESS || !ok) {
        fprintf(stderr, "bench: model capture failed: %s\n", aclGetRecentErrMsg());
        rt->stream_destroy(s);
        return;
    }
    size_t n = bench_iters(4000, 400);
    size_t warm = n / 10;
    struct samples launch_sub, model_sub, launch_e2e, model_e2e;
    struct samples preempted[2]; /* [replay]: the calls another thread preempted */
    samples_init(&launch_sub, n);
    samples_init(&model_sub, n);
    samples_init(&preempted[0], n);
    samples_init(&preempted[1], n);
    samples_init(&launch_e2e, n);
    samples_init(&model_e2e, n);
    static struct bench_stamp done;
    unsigned errors = 0, timeouts = 0;
    double start = bench_now_s();
    for (size_t i = 0; i < n + warm; i++) {
        for (int replay = 0; replay < 2; replay++) {
            atomic_store_explicit(&done.t, 0, memory_order_relaxed);
            uint64_t switches = bench_thread_nivcsw();
            uint64_t t0 = bench_ticks();
            if (replay)
                errors += aclmdlRIExecuteAsync(model, s) != ACL_SUCCESS;
            else
                for (int k = 0; k < MODEL_TASKS; k++)
                    errors += aclrtLaunchHostFunc(s, bench_nop, NULL) != ACL_SUCCESS;
            uint64_t t1 = bench_ticks();
            bool was_preempted = bench_thread_nivcsw() != switches;
            rt->launch(s, bench_stamp_fn, &done);
            if (!bench_wait_flag(&done.t, 10ull * 1000000000ull, 0)) {
                timeouts++;
                continue;
            }
            if (i < warm)
                continue;
            if (was_preempted)
                samples_add(&preempted[replay], bench_op_ns(t0, t1));
            else
                samples_add(replay ? &model_sub : &launch_sub, bench_op_ns(t0, t1));
            samples_add(replay ? &model_e2e : &launch_e2e,
                        (double)(int64_t)(atomic_load_explicit(&done.t, memory_order_acquire) - t0) *
                            bench_ns_per_tick);
        }
        if (i > warm + 50 && bench_over_budget(start, 4.0))
            break;
    }
    rt->sync(s);
    struct result *ls = bench_record_modes("launch_100", "ns", RESULT_ACLRT, &launch_sub, &preempted[0],
                                           "submitter: 100 x aclrtLaunchHostFunc(no-op), ns per 100 tasks");
    struct result *ms = bench_record_modes(
        "model_replay_100", "ns", RESULT_ACLRT, &model_sub, &preempted[1],
        "submitter: aclmdlRIExecuteAsync, model of 100 captured aclrtLaunchHostFunc(no-op)");
    struct result *le = bench_record("launch_100_e2e", "ns", RESULT_ACLRT, &launch_e2e, 1,
                                     "TSC before the first of 100 launches -> TSC in a host function behind them");
    struct result *me = bench_record("model_replay_100_e2e", "ns", RESULT_ACLRT, &model_e2e, 1,
                                     "TSC before aclmdlRIExecuteAsync (100 tasks) -> TSC in a host function behind it");
    if (ls->s.p50 > 0 && ms->s.p50 > 0)
        bench_note(ms, "%.1fx cheaper than launch_100 for the submitting thread (p50)", ls->s.p50 / ms->s.p50);
    if (le->s.p50 > 0 && me->s.p50 > 0)
        bench_note(me, "%.1fx faster than launch_100_e2e (p50)", le->s.p50 / me->s.p50);
    if (errors || timeouts)
        bench_note(le, "unexpected: %u failed calls, %u stamps that never ran", errors, timeouts);
    samples_free(&launch_sub);
    samples_free(&model_sub);
    samples_free(&preempted[0]);
    samples_free(&preempted[1]);
    samples_free(&launch_e2e);
    samples_free(&model_e2e);
    aclmdlRIDestroy(model);
    rt->stream_destroy(s);
}
