/*
 * tests/soak/exhaustion.c - running out of things, on device 1.
 *
 * One thread picks a scenario at random (SOAK_SKIP=<name> leaves one out):
 *
 *   ring_full      a stream parked on an unrecorded legacy event takes
 *                  3,000 launches from a launcher thread (the ring holds
 *                  1,023: the launcher waits for room), then the event is
 *                  recorded: every task runs, once, in order.
 *   self_full      a host function launches 1,500 tasks into its own stream:
 *                  each launch succeeds or returns
 *                  ACL_ERROR_RT_STREAM_TASK_FULL; the accepted ones run.
 *   streams        create streams until ACL_ERROR_RT_NO_STREAM_RESOURCE (the
 *                  fuzzer on this device may take some meanwhile), destroy
 *                  them all; the device still works.
 *   events         the same with events (ACL_ERROR_RT_NO_EVENT_RESOURCE) and
 *   notifies       notifies (ACL_ERROR_RT_NO_NOTIFY_RESOURCE).
 *   threads        256 threads at once, each with a stream of its own:
 *                  launch, record, synchronize, destroy.
 *   many_launchers 500 threads x 20 launches into one stream: all run.
 *
 * And, in a child process of its own (main.c runs it; release builds only,
 * as sanitizers reserve terabytes of address space): RLIMIT_AS a little
 * above what the runtime uses, then streams, events and allocations until
 * they fail. Every failure must be a documented code (no crash, no hang),
 * and after freeing, the runtime works again.
 */
#define _GNU_SOURCE
#include "soak.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

static aclrtContext ex_ctx; /* device 1 */
static atomic_long ex_runs[8];
static const char *const ex_names[] = {"ring_full", "self_full", "streams", "events", "notifies", "threads",
                                       "many_launchers"};
#define EX_SCENARIOS ((int)(sizeof ex_names / sizeof ex_names[0]))
static long ex_max_streams, ex_max_events, ex_max_notifies;

int exhaustion_setup(void)
{
    aclError rc = aclrtCreateContext(&ex_ctx, SOAK_DEV_FUZZ);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "exhaustion setup: %d %s\n", rc, soak_error_line());
        return 1;
    }
    return 0;
}

#define EX_OK(what, call)                                                                                   \
    do {                                                                                                    \
        aclError ex_rc_ = SOAK_BLOCKING(what, -1, (call));                                                  \
        if (ex_rc_ != ACL_SUCCESS) {                                                                        \
            soak_violation(SV_EXHAUSTION, "%s: %s returned %d: %s", scenario, what, ex_rc_,                 \
                           soak_error_line());                                                           \
            return;                                                                                         \
        }                                                                                                   \
    } while (0)

/* In-order counting task: arg = expected position; ex_order_next is the next one due. */
static atomic_long ex_order_next, ex_order_bad;

static void ex_ordered_fn(void *arg)
{
    long want = (long)(intptr_t)arg;
    long got = atomic_fetch_add(&ex_order_next, 1);
    if (got != want)
        atomic_fetch_add(&ex_order_bad, 1);
}

static void ex_count_fn(void *arg)
{
    atomic_fetch_add((atomic_long *)arg, 1);
}

struct ex_launcher {
    aclrtStream stream;
    long n;
    atomic_long launched;
    atomic_int bad_code;
};

static void *ex_launcher_main(void *arg)
{
    struct ex_launcher *l = (struct ex_launcher *)arg;
    static struct soak_thread *slot; /* one launcher at a time: the slot is reused */
    if (slot == NULL)
        slot = soak_thread_register("exhaustion launcher");
    else
        soak_thread_adopt(slot);
    (void)aclrtSetCurrentContext(ex_ctx);
    for (long i = 0; i < l->n; i++) {
        aclError rc = SOAK_BLOCKING("aclrtLaunchHostFunc (into a full ring)", -1,
                                    aclrtLaunchHostFunc(l->stream, ex_ordered_fn, (void *)(intptr_t)i));
        if (rc != ACL_SUCCESS) {
            atomic_store(&l->bad_code, rc);
            break;
        }
        atomic_fetch_add(&l->launched, 1);
    }
    return NULL;
}

static void sc_ring_full(uint64_t *rng)
{
    const char *scenario = "ring_full";
    (void)rng;
    aclrtStream s = NULL, other = NULL;
    aclrtEvent e = NULL;
    EX_OK("aclrtCreateStream", aclrtCreateStream(&s));
    EX_OK("aclrtCreateStream", aclrtCreateStream(&other));
    EX_OK("aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    EX_OK("aclrtStreamWaitEvent (parks the stream)", aclrtStreamWaitEvent(s, e));
    atomic_store(&ex_order_next, 0);
    atomic_store(&ex_order_bad, 0);
    struct ex_launcher l = {s, 3000, 0, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, ex_launcher_main, &l) != 0)
        return;
    /* Let the launcher fill the ring (pacing only: the outcome does not depend on it). */
    for (int i = 0; i < 200 && atomic_load(&l.launched) < 1000; i++)
        soak_sleep_us(1000);
    EX_OK("aclrtRecordEvent (releases the stream)", aclrtRecordEvent(e, other));
    soak_block_begin("joining the ring_full launcher", -1, soak_bound_ms());
    pthread_join(t, NULL);
    soak_block_end();
    EX_OK("aclrtSynchronizeStream", aclrtSynchronizeStream(s));
    if (atomic_load(&l.bad_code) != 0)
        soak_violation(SV_EXHAUSTION, "ring_full: a launch into the full ring returned %d", atomic_load(&l.bad_code));
    if (atomic_load(&ex_order_next) != atomic_load(&l.launched) || atomic_load(&ex_order_bad) != 0)
        soak_violation(SV_EXHAUSTION, "ring_full: %ld launched, %ld ran, %ld out of order", atomic_load(&l.launched),
                       atomic_load(&ex_order_next), atomic_load(&ex_order_bad));
    EX_OK("aclrtDestroyEvent", aclrtDestroyEvent(e));
    EX_OK("aclrtDestroyStream", aclrtDestroyStream(s));
    EX_OK("aclrtDestroyStream", aclrtDestroyStream(other));
}

struct ex_self {
    aclrtStream stream;
    atomic_long ran;
    long ok, full, other;
    aclError other_code;
};

static void ex_self_fn(void *arg)
{
    struct ex_self *x = (struct ex_self *)arg;
    for (int i = 0; i < 1500; i++) {
        aclError rc = aclrtLaunchHostFunc(x->stream, ex_count_fn, &x->ran);
        if (rc == ACL_SUCCESS)
            x->ok++;
        else if (rc == ACL_ERROR_RT_STREAM_TASK_FULL)
            x->full++;
        else {
            x->other++;
            x->other_code = rc;
        }
    }
}

static void sc_self_full(uint64_t *rng)
{
    const char *scenario = "self_full";
    (void)rng;
    static struct ex_self x;
    memset(&x, 0, sizeof x);
    EX_OK("aclrtCreateStream", aclrtCreateStream(&x.stream));
    EX_OK("aclrtLaunchHostFunc (self launcher)", aclrtLaunchHostFunc(x.stream, ex_self_fn, &x));
    EX_OK("aclrtSynchronizeStream", aclrtSynchronizeStream(x.stream));
    EX_OK("aclrtSynchronizeStream (again)", aclrtSynchronizeStream(x.stream));
    if (x.other != 0)
        soak_violation(SV_EXHAUSTION, "self_full: a launch into the task's own full stream returned %d", x.other_code);
    if (x.full == 0)
        soak_violation(SV_EXHAUSTION, "self_full: 1500 launches into its own stream from a task: none was refused as full");
    if (atomic_load(&x.ran) != x.ok)
        soak_violation(SV_EXHAUSTION, "self_full: %ld accepted, %ld ran", x.ok, atomic_load(&x.ran));
    EX_OK("aclrtDestroyStream", aclrtDestroyStream(x.stream));
}

#define EX_HANDLES 70000
static void *ex_handles[EX_HANDLES];

static void sc_quota(int which)
{
    const char *scenario = ex_names[2 + which];
    static const int want[] = {ACL_ERROR_RT_NO_STREAM_RESOURCE, ACL_ERROR_RT_NO_EVENT_RESOURCE,
                               ACL_ERROR_RT_NO_NOTIFY_RESOURCE};
    long n = 0;
    aclError rc = ACL_SUCCESS;
    soak_block_begin(scenario, -1, soak_bound_ms());
    while (n < EX_HANDLES) {
        switch (which) {
        case 0: rc = aclrtCreateStream(&ex_handles[n]); break;
        case 1: rc = aclrtCreateEvent(&ex_handles[n]); break;
        default: rc = aclrtCreateNotify(&ex_handles[n], ACL_NOTIFY_DEFAULT); break;
        }
        if (rc != ACL_SUCCESS)
            break;
        n++;
    }
    soak_block_end();
    if (rc != want[which])
        soak_violation(SV_EXHAUSTION, "%s: creation number %ld failed with %d, not the quota code %d: %s", scenario,
                       n + 1, rc, want[which], soak_error_line());
    long *max = which == 0 ? &ex_max_streams : which == 1 ? &ex_max_events : &ex_max_notifies;
    if (n > *max)
        *max = n;
    /* At the quota, the device still works (with what it has). */
    atomic_long ran = 0;
    if (which != 0 && n > 0) {
        aclrtStream s = NULL;
        if (aclrtCreateStream(&s) == ACL_SUCCESS) {
            (void)aclrtLaunchHostFunc(s, ex_count_fn, &ran);
            if (which == 1)
                (void)aclrtRecordEvent(ex_handles[0], s);
            aclError r = SOAK_BLOCKING("aclrtSynchronizeStream (at the quota)", -1, aclrtSynchronizeStream(s));
            if (r != ACL_SUCCESS || atomic_load(&ran) != 1)
                soak_violation(SV_EXHAUSTION, "%s: at the quota, a stream's task did not run (%d)", scenario, r);
            (void)aclrtDestroyStream(s);
        }
    }
    soak_block_begin("destroying what the quota scenario created", -1, soak_bound_ms());
    for (long i = 0; i < n; i++) {
        switch (which) {
        case 0: rc = aclrtDestroyStream(ex_handles[i]); break;
        case 1: rc = aclrtDestroyEvent(ex_handles[i]); break;
        default: rc = aclrtDestroyNotify(ex_handles[i]); break;
        }
        if (rc != ACL_SUCCESS) {
            soak_violation(SV_EXHAUSTION, "%s: destroy number %ld returned %d", scenario, i, rc);
            break;
        }
    }
    soak_block_end();
}

struct ex_worker {
    atomic_long *ran;
    aclrtStream shared;
    int launches;
    atomic_int *bad;
};

static void *ex_thread_own_stream(void *arg)
{
    struct ex_worker *w = (struct ex_worker *)arg;
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    aclError rc = aclrtSetCurrentContext(ex_ctx);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&s);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC);
    for (int i = 0; i < w->launches && rc == ACL_SUCCESS; i++)
        rc = aclrtLaunchHostFunc(s, ex_count_fn, w->ran);
    if (rc == ACL_SUCCESS)
        rc = aclrtRecordEvent(e, s);
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeEvent(e);
    if (e != NULL)
        (void)aclrtDestroyEvent(e);
    if (s != NULL && aclrtDestroyStream(s) != ACL_SUCCESS && rc == ACL_SUCCESS)
        rc = -1;
    /* The fuzzer and the quota scenarios share this device: running out of streams or events is legitimate. */
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_NO_STREAM_RESOURCE && rc != ACL_ERROR_RT_NO_EVENT_RESOURCE)
        atomic_store(w->bad, rc);
    return NULL;
}

static void *ex_thread_shared_stream(void *arg)
{
    struct ex_worker *w = (struct ex_worker *)arg;
    aclError rc = aclrtSetCurrentContext(ex_ctx);
    for (int i = 0; i < w->launches && rc == ACL_SUCCESS; i++)
        rc = aclrtLaunchHostFunc(w->shared, ex_count_fn, w->ran);
    if (rc != ACL_SUCCESS)
        atomic_store(w->bad, rc);
    return NULL;
}

static void sc_threads(bool shared)
{
    const char *scenario = shared ? "many_launchers" : "threads";
    int nthreads = shared ? 500 : 256;
    int launches = shared ? 20 : 8;
    static pthread_t t[512];
    atomic_long ran = 0;
    atomic_int bad = 0;
    struct ex_worker w = {&ran, NULL, launches, &bad};
    if (shared)
        EX_OK("aclrtCreateStream", aclrtCreateStream(&w.shared));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SOAK_SANITIZED ? 1u << 20 : 128u << 10);
    int started = 0;
    soak_block_begin(shared ? "500 threads launching into one stream" : "256 threads with a stream each", -1,
                     soak_bound_ms());
    for (int i = 0; i < nthreads; i++) {
        if (pthread_create(&t[i], &attr, shared ? ex_thread_shared_stream : ex_thread_own_stream, &w) != 0)
            break;
        started++;
    }
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    soak_block_end();
    pthread_attr_destroy(&attr);
    if (shared) {
        EX_OK("aclrtSynchronizeStream (many launchers)", aclrtSynchronizeStream(w.shared));
        EX_OK("aclrtDestroyStream", aclrtDestroyStream(w.shared));
    }
    if (atomic_load(&bad) != 0)
        soak_violation(SV_EXHAUSTION, "%s: a thread's call returned %d", scenario, atomic_load(&bad));
    else if (shared && atomic_load(&ran) != (long)started * launches)
        soak_violation(SV_EXHAUSTION, "%s: %ld of %ld tasks ran", scenario, atomic_load(&ran), (long)started * launches);
}

void *exhaustion_thread(void *arg)
{
    (void)arg;
    soak_thread_register("exhaustion");
    uint64_t rng = soak_cfg.seed ^ 0xE4A5u;
    if (aclrtSetCurrentContext(ex_ctx) != ACL_SUCCESS)
        return NULL;
    while (soak_running()) {
        int k = (int)soak_pick(&rng, EX_SCENARIOS);
        if (soak_skipped(ex_names[k]))
            continue;
        switch (k) {
        case 0: sc_ring_full(&rng); break;
        case 1: sc_self_full(&rng); break;
        case 2: sc_quota(0); break;
        case 3: sc_quota(1); break;
        case 4: sc_quota(2); break;
        case 5: sc_threads(false); break;
        default: sc_threads(true); break;
        }
        atomic_fetch_add(&ex_runs[k], 1);
        soak_count(SO_EXHAUSTION);
        /* Pacing: the quota scenarios are heavy; leave the machine to the others for a moment. */
        soak_sleep_us(100000);
    }
    return NULL;
}

void exhaustion_summary(void)
{
    long total = 0;
    for (int k = 0; k < EX_SCENARIOS; k++)
        total += atomic_load(&ex_runs[k]);
    if (total == 0)
        return;
    printf("exhaustion scenarios:");
    for (int k = 0; k < EX_SCENARIOS; k++)
        printf(" %s %ld,", ex_names[k], atomic_load(&ex_runs[k]));
    printf(" (quotas reached at %ld streams, %ld events, %ld notifies)\n", ex_max_streams, ex_max_events,
           ex_max_notifies);
}

/* ------------------------------------------------------------------------
 * The RLIMIT_AS child (a fresh process)
 * ------------------------------------------------------------------------ */

static long vm_size_bytes(void)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld", &pages) != 1)
        pages = 0;
    fclose(f);
    return pages * sysconf(_SC_PAGESIZE);
}

int exhaustion_rlimit_child(void)
{
    int failures = 0;
    atomic_long ran = 0;
    aclrtStream s = NULL;
    aclError rc = aclrtSetDevice(0);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&s);
    if (rc == ACL_SUCCESS)
        rc = aclrtLaunchHostFunc(s, ex_count_fn, &ran);
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(s);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "rlimit child: setup failed: %d\n", rc);
        return 1;
    }
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = (rlim_t)vm_size_bytes() + (32u << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0) {
        perror("rlimit child: setrlimit");
        return 1;
    }
    static const int ok_codes[] = {ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_NO_STREAM_RESOURCE,
                                   ACL_ERROR_RT_NO_EVENT_RESOURCE, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                                   ACL_ERROR_BAD_ALLOC, -1};
    enum { KINDS = 3 };
    static void *made[20000];
    long n[KINDS] = {0, 0, 0};
    /* Each kind until it fails, then all of it freed before the next kind. */
    for (int kind = 0; kind < KINDS; kind++) {
        for (;;) {
            if (n[kind] >= 20000) {
                rc = ACL_ERROR_RT_MEMORY_ALLOCATION; /* enough: nothing failed, nothing to judge */
                break;
            }
            void *h = NULL;
            switch (kind) {
            case 0: rc = aclrtCreateStream(&h); break;
            case 1: rc = aclrtCreateEvent(&h); break;
            default: rc = aclrtMalloc(&h, 1u << 20, ACL_MEM_MALLOC_HUGE_FIRST); break;
            }
            if (rc != ACL_SUCCESS)
                break;
            made[n[kind]++] = h;
            if (kind == 0 && n[kind] % 8 == 0) { /* and the new streams still work, under the limit */
                rc = aclrtLaunchHostFunc(h, ex_count_fn, &ran);
                if (rc == ACL_SUCCESS)
                    rc = aclrtSynchronizeStream(h);
                if (rc != ACL_SUCCESS && !soak_code_in(rc, ok_codes)) {
                    fprintf(stderr, "rlimit child: a task on stream %ld under the limit: %d %s\n", n[kind], rc,
                            soak_error_line());
                    failures++;
                }
            }
        }
        if (!soak_code_in(rc, ok_codes)) {
            fprintf(stderr, "rlimit child: %s number %ld under RLIMIT_AS failed with %d (not a documented code): %s\n",
                    kind == 0 ? "stream" : kind == 1 ? "event" : "1 MiB allocation", n[kind] + 1, rc,
                    soak_error_line());
            failures++;
        }
        for (long i = 0; i < n[kind]; i++) {
            rc = kind == 0 ? aclrtDestroyStream(made[i]) : kind == 1 ? aclrtDestroyEvent(made[i]) : aclrtFree(made[i]);
            if (rc != ACL_SUCCESS) {
                fprintf(stderr, "rlimit child: freeing %d/%ld: %d\n", kind, i, rc);
                failures++;
                break;
            }
        }
    }
    /* Freed: the runtime works again. */
    atomic_store(&ran, 0);
    rc = aclrtLaunchHostFunc(s, ex_count_fn, &ran);
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(s);
    if (rc != ACL_SUCCESS || atomic_load(&ran) != 1) {
        fprintf(stderr, "rlimit child: after freeing, a task: %d (ran %ld)\n", rc, atomic_load(&ran));
        failures++;
    }
    if (getenv("SOAK_VERBOSE"))
        fprintf(stderr, "rlimit child: under RLIMIT_AS: %ld streams, %ld events, %ld MiB allocated before failing\n",
                n[0], n[1], n[2]);
    rc = aclFinalize();
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "rlimit child: aclFinalize: %d\n", rc);
        failures++;
    }
    return failures ? 1 : 0;
}
