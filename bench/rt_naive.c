/* bench/rt_naive.c - the naive baseline (naive.c) behind the harness's runtime interface. */
#include "bench.h"
#include "naive.h"

static void n_nothing(void) {}
static void *n_stream_create(void) { return nv_stream_create(); }
static void n_stream_destroy(void *s) { nv_stream_destroy(s); }
static void *n_event_create(void) { return nv_event_create(); }
static void n_event_destroy(void *e) { nv_event_destroy(e); }
static void n_record(void *e, void *s) { nv_event_record(e, s); }
static bool n_query(void *e) { return nv_event_query(e); }
static void n_stream_wait(void *s, void *e) { nv_stream_wait_event(s, e); }
static void n_launch(void *s, bench_fn fn, void *arg) { nv_launch_host_func(s, fn, arg); }
static void n_launch_kernel(void *s, uint32_t blocks, aclrtxHostKernel fn, void *arg)
{
    nv_launch_host_kernel(s, blocks, fn, arg);
}
static void n_sync(void *s) { nv_stream_synchronize(s); }

const struct rt rt_naive = {
    .name = "naive",
    .prefix = "baseline_",
    .thread_prefix = "naive-w",
    .is_aclrt = false,
    .start = n_nothing,
    .stop = n_nothing,
    .thread_enter = n_nothing,
    .stream_create = n_stream_create,
    .stream_destroy = n_stream_destroy,
    .event_create = n_event_create,
    .event_destroy = n_event_destroy,
    .record = n_record,
    .query = n_query,
    .stream_wait = n_stream_wait,
    .launch = n_launch,
    .launch_kernel = n_launch_kernel,
    .sync = n_sync,
};
