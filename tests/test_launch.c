/*
 * tests/test_launch.c - pins launching into a stream's task ring
 * (docs/SEMANTICS.md, Streams: "Ring full", "Calls from inside a task"):
 *
 *   - the ring itself (impl/ring.h, driven directly): launchers commit
 *     independently, so a launch still open (reserved, not committed) stops
 *     no other launcher, and the consumer takes records in reservation
 *     order once each is committed; the capacity;
 *   - a launch from a runtime thread (a task's) into a full stream returns
 *     ACL_ERROR_RT_STREAM_TASK_FULL at once, so two tasks launching into
 *     each other's full streams cannot deadlock;
 *   - a launch from a user thread into a full stream waits for room, also
 *     when many threads wait, and also when the task the stream runs waits
 *     for that very launcher;
 *   - thousands of launching threads on a few CPUs all get their tasks in,
 *     each thread's in its order.
 *
 * The runtime runs with 64-task rings (ACLRT_RING_BYTES=4096, set in main)
 * so that rings fill quickly. Cases that could hang if the behaviour broke
 * synchronize with a generous timeout, and every case runs under an alarm:
 * a hang is reported as a failure and the program leaves (a thread stuck
 * inside the runtime cannot be taken back).
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "probe.h"

#include "../impl/task/ring.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SCALED(release, sanitized) (sanitized)
#else
#define SCALED(release, sanitized) (release)
#endif

#define RING_BYTES "4096"
#define RING_TASKS 64          /* 4096 / 64-byte records, the running task's slot included */
#define HANG_LIMIT_MS 60000    /* a hang detector, not a timing goal */

static aclrtContext main_ctx;

static void case_cleanup(void)
{
    gates_open_all();
}

/* Every case runs under an alarm: a case that hangs (threads stuck inside the runtime) fails and leaves. */
#define CASE_LIMIT_S 120 /* a hang detector, not a timing goal */

static void case_hangs(int sig)
{
    (void)sig;
    static const char head[] = "FAIL [";
    static const char tail[] = "]: the case did not finish within its limit: it hangs\n";
    ssize_t ignored = write(2, head, sizeof head - 1);
    ignored = write(2, check_case_name, strlen(check_case_name));
    ignored = write(2, tail, sizeof tail - 1);
    (void)ignored;
    _exit(1);
}

/* A synchronize that must come back: a timeout means the case hangs. Report and leave. */
static void sync_or_die(aclrtStream s, const char *what)
{
    aclError rc = aclrtSynchronizeStreamWithTimeout(s, HANG_LIMIT_MS);
    if (rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) {
        fprintf(stderr, "FAIL [%s]: %s did not finish within %d ms: it hangs\n", check_case_name, what,
                HANG_LIMIT_MS);
        fflush(stderr);
        _exit(1);
    }
    CHECK_OK(rc);
}

/* ------------------------------------------------------------------------
 * The ring itself
 * ------------------------------------------------------------------------ */

/* A ring driven directly owns its mapping (a stream's ring lives as long as its slot: the runtime never unmaps one). */
static void ring_unmap(struct aclrt_ring *r)
{
    munmap(r->slots, r->capacity_bytes);
    r->slots = NULL; /* a later init maps afresh */
    unsigned char *side = atomic_load_explicit(&r->side, memory_order_relaxed);
    if (side != NULL)
        munmap(side, aclrt_ring_side_size(r->capacity_bytes));
    atomic_store_explicit(&r->side, NULL, memory_order_relaxed);
}

static struct aclrt_task ring_record(uintptr_t value)
{
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = &aclrt_kind_nop;
    t.u.host_func.args = (void *)value;
    return t;
}

TEST(a_launch_commits_while_an_earlier_reservation_is_still_open)
{
    static struct aclrt_ring r;
    CHECK(aclrt_ring_init(&r, 16 * sizeof(struct aclrt_ring_slot), 41));
    uint32_t pa = 0, pb = 0;
    struct aclrt_ring_slot *a = aclrt_ring_reserve(&r, &pa);
    struct aclrt_ring_slot *b = aclrt_ring_reserve(&r, &pb);
    CHECK(a != NULL && b != NULL);
    CHECK_EQ(41, pa); /* positions continue from the count the ring was made at */
    CHECK_EQ(42, pb);
    struct aclrt_task t = ring_record(2);
    aclrt_ring_commit(b, pb, &t, 7); /* the later launch commits first: it does not wait for the earlier one */
    struct aclrt_task out;
    CHECK(!aclrt_ring_ready(&r));  /* the consumer waits for the earlier position only */
    CHECK(!aclrt_ring_take(&r, &out));
    t = ring_record(1);
    aclrt_ring_commit(a, pa, &t, 7);
    CHECK(aclrt_ring_take(&r, &out)); /* reservation order */
    CHECK_EQ(1, (uintptr_t)out.u.host_func.args);
    CHECK_EQ(7, out.tid);
    CHECK(aclrt_ring_take(&r, &out));
    CHECK_EQ(2, (uintptr_t)out.u.host_func.args);
    CHECK(!aclrt_ring_take(&r, &out));
    ring_unmap(&r);
}

TEST(a_ring_holds_its_capacity_and_takes_more_once_the_consumer_is_done_with_a_record)
{
    static struct aclrt_ring r;
    CHECK(aclrt_ring_init(&r, 16 * sizeof(struct aclrt_ring_slot), UINT32_MAX - 5)); /* positions wrap around */
    CHECK_EQ(16, aclrt_ring_capacity(&r));
    uint32_t p = 0;
    for (uintptr_t i = 0; i < 16; i++) {
        struct aclrt_ring_slot *s = aclrt_ring_reserve(&r, &p);
        CHECK(s != NULL);
        struct aclrt_task t = ring_record(i);
        aclrt_ring_commit(s, p, &t, 1);
    }
    CHECK(aclrt_ring_reserve(&r, &p) == NULL); /* full */
    struct aclrt_task out;
    CHECK(aclrt_ring_take(&r, &out));
    CHECK_EQ(0, (uintptr_t)out.u.host_func.args);
    CHECK(aclrt_ring_reserve(&r, &p) == NULL); /* taken, not done with: its slot is still the record's */
    aclrt_ring_free_taken(&r);
    struct aclrt_ring_slot *s = aclrt_ring_reserve(&r, &p);
    CHECK(s != NULL);
    struct aclrt_task t = ring_record(16);
    aclrt_ring_commit(s, p, &t, 1);
    for (uintptr_t i = 1; i <= 16; i++) {
        CHECK(aclrt_ring_pop(&r, &out));
        CHECK_EQ(i, (uintptr_t)out.u.host_func.args);
    }
    CHECK(!aclrt_ring_pop(&r, &out));
    ring_unmap(&r);
}

TEST(a_fresh_ring_takes_nothing_even_where_zero_would_mean_committed)
{
    static struct aclrt_ring r;
    struct aclrt_task out;
    /* Fresh pages are zero; for position 0xFFFFFFFF, "committed" is a sequence number of 0. */
    CHECK(aclrt_ring_init(&r, 16 * sizeof(struct aclrt_ring_slot), UINT32_MAX));
    CHECK(!aclrt_ring_ready(&r));
    CHECK(!aclrt_ring_take(&r, &out));
    uint32_t p = 0;
    struct aclrt_ring_slot *s = aclrt_ring_reserve(&r, &p);
    CHECK(s != NULL);
    CHECK_EQ(UINT32_MAX, p);
    struct aclrt_task t = ring_record(5);
    aclrt_ring_commit(s, p, &t, 1);
    CHECK(aclrt_ring_pop(&r, &out));
    CHECK_EQ(5, (uintptr_t)out.u.host_func.args);
    /* Forgotten (a freed stream's), the ring reads empty again when a new life starts further on. */
    aclrt_ring_forget(&r);
    CHECK(aclrt_ring_init(&r, 16 * sizeof(struct aclrt_ring_slot), 3));
    CHECK(!aclrt_ring_take(&r, &out));
    ring_unmap(&r);
}

TEST(a_rings_positions_lie_in_pairs_scattered_over_their_page_and_each_lap_uses_every_slot_once)
{
    static const uint32_t slots[] = {16, 64, 128, 256, 512, 1024, 4096, 65536};
    for (size_t k = 0; k < sizeof slots / sizeof slots[0]; k++) {
        static struct aclrt_ring r;
        uint32_t n = slots[k];
        CHECK(aclrt_ring_init(&r, n * (uint32_t)sizeof(struct aclrt_ring_slot), UINT32_MAX - n / 2));
        unsigned char *seen = calloc(n, 1), *side = aclrt_ring_side(&r);
        CHECK(seen != NULL && side != NULL);
        uint32_t start = UINT32_MAX - n / 2; /* a lap across the wrap of the 32-bit positions */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = start + i;
            size_t slot = (size_t)(aclrt_ring_slot_of(&r, p) - r.slots);
            CHECK(slot < n);
            CHECK_EQ(0, seen[slot]); /* one position per slot in a lap */
            seen[slot] = 1;
            CHECK(aclrt_ring_slot_of(&r, p + n) == aclrt_ring_slot_of(&r, p)); /* the next lap's */
            /* The side area's bytes follow the slot's place. */
            CHECK(aclrt_ring_side_at(&r, side, p) == side + slot * ACLRT_RING_SIDE_BYTES);
            size_t mate = (size_t)(aclrt_ring_slot_of(&r, p ^ 1u) - r.slots);
            CHECK_EQ(slot / 2, mate / 2); /* p and p ^ 1 share a 128-byte pair of lines */
            CHECK_EQ((p & (n - 1)) / 64, slot / 64); /* the page of its 64 positions (one TLB entry) */
            if (n < 64) {
                CHECK_EQ(p & (n - 1), slot); /* less than a page: position order */
                continue;
            }
            /* The pairs of the next 8 pairs of positions lie 3 pairs or more from p's (what prefetchers fetch). */
            for (uint32_t m = 1; m <= 8; m++) {
                size_t later = (size_t)(aclrt_ring_slot_of(&r, (p & ~1u) + 2 * m) - r.slots);
                if (later / 64 == slot / 64)
                    CHECK(later / 2 >= slot / 2 + 3 || slot / 2 >= later / 2 + 3);
            }
        }
        free(seen);
        ring_unmap(&r);
    }
}

TEST(a_ring_of_many_pages_hands_out_every_record_in_order_across_laps_and_the_wrap)
{
    static struct aclrt_ring r;
    uint32_t n = 2048;
    CHECK(aclrt_ring_init(&r, n * (uint32_t)sizeof(struct aclrt_ring_slot), UINT32_MAX)); /* 0xFFFFFFFF first */
    struct aclrt_task out;
    CHECK(!aclrt_ring_take(&r, &out)); /* fresh: nothing, whatever slot 0xFFFFFFFF lies in */
    uintptr_t next = 0, expect = 0;
    for (int round = 0; round < 5; round++) {
        uint32_t p = 0;
        struct aclrt_ring_slot *slot;
        while ((slot = aclrt_ring_reserve(&r, &p)) != NULL) {
            struct aclrt_task t = ring_record(next++);
            aclrt_ring_commit(slot, p, &t, 1);
        }
        CHECK_EQ(n, next - expect); /* full at its capacity */
        for (uint32_t i = 0; i < n - 100 * (uint32_t)round; i++) {
            CHECK(aclrt_ring_pop(&r, &out));
            CHECK_EQ(expect, (uintptr_t)out.u.host_func.args);
            expect++;
        }
    }
    while (aclrt_ring_pop(&r, &out))
        CHECK_EQ(expect++, (uintptr_t)out.u.host_func.args);
    CHECK_EQ(next, expect);
    ring_unmap(&r);
}

/* ------------------------------------------------------------------------
 * Runtime threads: TASK_FULL instead of waiting
 * ------------------------------------------------------------------------ */

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

#define CROSS_LAUNCHES 2000

struct cross {
    aclrtStream target;
    atomic_int *ran_on_target; /* counts the tasks this side launched that ran */
    int accepted, full, other; /* the launches' codes */
    char message[160];         /* the text of the first TASK_FULL */
};

static atomic_int cross_started;

static void cross_fn(void *arg)
{
    struct cross *c = (struct cross *)arg;
    aclrtSetCurrentContext(main_ctx);
    /* Both tasks run at once: each holds its stream while it fills the other's. */
    atomic_fetch_add(&cross_started, 1);
    while (atomic_load(&cross_started) < 2)
        sched_yield();
    for (int i = 0; i < CROSS_LAUNCHES; i++) {
        aclError rc = aclrtLaunchHostFunc(c->target, count_fn, c->ran_on_target);
        if (rc == ACL_SUCCESS) {
            c->accepted++;
        } else if (rc == ACL_ERROR_RT_STREAM_TASK_FULL) {
            if (c->full++ == 0) {
                const char *m = aclGetRecentErrMsg();
                snprintf(c->message, sizeof c->message, "%s", m != NULL ? m : "");
            }
        } else {
            c->other++;
        }
    }
}

TEST(host_functions_launching_into_each_others_full_streams_get_task_full_instead_of_deadlocking)
{
    aclrtStream x = new_stream(), y = new_stream();
    static atomic_int ran_on_x, ran_on_y;
    static struct cross on_x, on_y; /* on_x runs on x and launches into y */
    atomic_store(&ran_on_x, 0);
    atomic_store(&ran_on_y, 0);
    atomic_store(&cross_started, 0);
    memset(&on_x, 0, sizeof on_x);
    memset(&on_y, 0, sizeof on_y);
    on_x.target = y;
    on_x.ran_on_target = &ran_on_y;
    on_y.target = x;
    on_y.ran_on_target = &ran_on_x;
    CHECK_OK(aclrtLaunchHostFunc(x, cross_fn, &on_x));
    CHECK_OK(aclrtLaunchHostFunc(y, cross_fn, &on_y));
    sync_or_die(x, "stream x");
    sync_or_die(y, "stream y");
    sync_or_die(x, "stream x (what y's task launched)");
    CHECK_EQ(0, on_x.other);
    CHECK_EQ(0, on_y.other);
    CHECK_EQ(CROSS_LAUNCHES, on_x.accepted + on_x.full);
    CHECK_EQ(CROSS_LAUNCHES, on_y.accepted + on_y.full);
    /*
     * While both run, neither stream moves: the task that finishes first saw
     * the other's ring full for all its launches past a ring's worth.
     */
    CHECK(on_x.full + on_y.full >= CROSS_LAUNCHES - (RING_TASKS - 1));
    CHECK_STR_CONTAINS(on_x.full > 0 ? on_x.message : on_y.message, "runtime thread");
    /* Every accepted task ran once, none refused did. */
    CHECK_EQ(on_x.accepted, atomic_load(&ran_on_y));
    CHECK_EQ(on_y.accepted, atomic_load(&ran_on_x));
    CHECK_OK(aclrtDestroyStream(x));
    CHECK_OK(aclrtDestroyStream(y));
}

struct into_held {
    aclrtStream target;
    atomic_int *ran;
    int accepted;
    aclError refused;
};

static void into_held_fn(void *arg)
{
    struct into_held *h = (struct into_held *)arg;
    aclrtSetCurrentContext(main_ctx);
    h->refused = ACL_SUCCESS;
    for (int i = 0; i < 10 * RING_TASKS; i++) {
        aclError rc = aclrtLaunchHostFunc(h->target, count_fn, h->ran);
        if (rc != ACL_SUCCESS) {
            h->refused = rc;
            return;
        }
        h->accepted++;
    }
}

TEST(a_task_launching_into_another_streams_full_ring_gets_task_full_at_once)
{
    aclrtStream held = new_stream(), launcher = new_stream();
    static atomic_int ran;
    static struct into_held h;
    atomic_store(&ran, 0);
    memset(&h, 0, sizeof h);
    h.target = held;
    h.ran = &ran;
    struct gate *g = busy(held); /* held cannot move until the gate opens */
    CHECK_OK(aclrtLaunchHostFunc(launcher, into_held_fn, &h));
    sync_or_die(launcher, "the launching task");
    CHECK_EQ(ACL_ERROR_RT_STREAM_TASK_FULL, h.refused);
    CHECK_EQ(RING_TASKS - 1, h.accepted); /* the running gate keeps its slot */
    CHECK_EQ(0, atomic_load(&ran));
    gate_open(g);
    sync_or_die(held, "the held stream");
    CHECK_EQ(RING_TASKS - 1, atomic_load(&ran));
    CHECK_OK(aclrtDestroyStream(held));
    CHECK_OK(aclrtDestroyStream(launcher));
}

/* ------------------------------------------------------------------------
 * User threads: back pressure
 * ------------------------------------------------------------------------ */

#define WAITERS SCALED(64, 16)
#define WAITER_LAUNCHES 200

static aclrtStream waiters_stream;
static atomic_int waiters_launched;
static long waiter_last[WAITERS]; /* written by the tasks of one stream, in order */
static atomic_int waiter_out_of_order, waiter_ran, waiter_failed;

static void waiter_task(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    int thread = (int)(v & 0xffff);
    long seq = (long)(v >> 16);
    if (seq != waiter_last[thread] + 1)
        atomic_store(&waiter_out_of_order, 1);
    waiter_last[thread] = seq;
    atomic_fetch_add(&waiter_ran, 1);
}

static void *waiter_main(void *arg)
{
    uintptr_t thread = (uintptr_t)arg;
    aclrtSetCurrentContext(main_ctx);
    for (uintptr_t i = 1; i <= WAITER_LAUNCHES; i++) {
        if (aclrtLaunchHostFunc(waiters_stream, waiter_task, (void *)(thread | (i << 16))) != ACL_SUCCESS)
            atomic_fetch_add(&waiter_failed, 1);
        atomic_fetch_add(&waiters_launched, 1);
    }
    return NULL;
}

TEST(many_threads_waiting_for_room_in_a_full_stream_all_get_in_in_order)
{
    waiters_stream = new_stream();
    atomic_store(&waiters_launched, 0);
    atomic_store(&waiter_out_of_order, 0);
    atomic_store(&waiter_ran, 0);
    atomic_store(&waiter_failed, 0);
    memset(waiter_last, 0, sizeof waiter_last);
    struct gate *g = busy(waiters_stream);
    pthread_t threads[WAITERS];
    for (uintptr_t i = 0; i < WAITERS; i++)
        CHECK_EQ(0, pthread_create(&threads[i], NULL, waiter_main, (void *)i));
    /* The ring fills while the gate holds the stream; the other launchers wait for room. */
    while (atomic_load(&waiters_launched) < RING_TASKS - 1)
        sched_yield();
    CHECK_EQ(0, atomic_load(&waiter_ran));
    gate_open(g);
    for (int i = 0; i < WAITERS; i++)
        pthread_join(threads[i], NULL);
    sync_or_die(waiters_stream, "the stream");
    CHECK_EQ(0, atomic_load(&waiter_failed));
    CHECK_EQ(WAITERS * WAITER_LAUNCHES, atomic_load(&waiter_ran));
    CHECK_EQ(0, atomic_load(&waiter_out_of_order));
    CHECK_OK(aclrtDestroyStream(waiters_stream));
}

/*
 * The stream's next task waits for a user thread that is itself waiting for
 * room in that stream's full ring. A slot is free (the task before it is
 * done), so the launch must get in and the task finish, even though the
 * consumer takes no further task meanwhile.
 */
static aclrtStream loop_stream;
static atomic_int loop_launch_returned, loop_launch_started;
static atomic_int loop_ran;

static void loop_waits_for_launcher(void *arg)
{
    (void)arg;
    while (!atomic_load(&loop_launch_returned))
        sched_yield();
}

static void *loop_launcher(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(main_ctx);
    atomic_store(&loop_launch_started, 1);
    if (aclrtLaunchHostFunc(loop_stream, count_fn, &loop_ran) == ACL_SUCCESS)
        atomic_store(&loop_launch_returned, 1);
    return NULL;
}

TEST(a_task_waiting_for_a_launcher_that_waits_for_room_in_its_stream_lets_it_in)
{
    loop_stream = new_stream();
    atomic_store(&loop_launch_returned, 0);
    atomic_store(&loop_launch_started, 0);
    atomic_store(&loop_ran, 0);
    struct gate *g = busy(loop_stream);
    CHECK_OK(aclrtLaunchHostFunc(loop_stream, loop_waits_for_launcher, NULL));
    for (int i = 0; i < RING_TASKS - 2; i++) /* the ring is full: gate, the waiting task, these */
        CHECK_OK(aclrtLaunchHostFunc(loop_stream, count_fn, &loop_ran));
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, loop_launcher, NULL));
    CHECK(eventually(&loop_launch_started));
    chance(&loop_launch_returned); /* it finds the ring full and goes to sleep (not needed for the property) */
    CHECK_EQ(0, atomic_load(&loop_launch_returned));
    gate_open(g); /* one slot frees; the next task then waits for the launcher */
    pthread_join(t, NULL);
    sync_or_die(loop_stream, "the stream");
    CHECK_EQ(1, atomic_load(&loop_launch_returned));
    CHECK_EQ(RING_TASKS - 2 + 1, atomic_load(&loop_ran));
    CHECK_OK(aclrtDestroyStream(loop_stream));
}

/* ------------------------------------------------------------------------
 * Many more launchers than CPUs
 * ------------------------------------------------------------------------ */

#define CROWD_THREADS SCALED(2000, 200)
#define CROWD_LAUNCHES SCALED(100, 50)

static aclrtStream crowd_stream;
static long crowd_last[CROWD_THREADS]; /* written by the tasks of one stream, in order */
static atomic_int crowd_out_of_order, crowd_failed, crowd_go;
static atomic_long crowd_ran;

static void crowd_task(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    int thread = (int)(v & 0xffff);
    long seq = (long)(v >> 16);
    if (seq != crowd_last[thread] + 1)
        atomic_store(&crowd_out_of_order, 1);
    crowd_last[thread] = seq;
    atomic_fetch_add(&crowd_ran, 1);
}

static void *crowd_main(void *arg)
{
    uintptr_t thread = (uintptr_t)arg;
    aclrtSetCurrentContext(main_ctx);
    while (!atomic_load(&crowd_go))
        sched_yield();
    for (uintptr_t i = 1; i <= CROWD_LAUNCHES; i++)
        if (aclrtLaunchHostFunc(crowd_stream, crowd_task, (void *)(thread | (i << 16))) != ACL_SUCCESS)
            atomic_fetch_add(&crowd_failed, 1);
    return NULL;
}

TEST(thousands_of_threads_launching_into_one_stream_all_get_in_in_each_threads_order)
{
    crowd_stream = new_stream();
    atomic_store(&crowd_out_of_order, 0);
    atomic_store(&crowd_failed, 0);
    atomic_store(&crowd_go, 0);
    atomic_store(&crowd_ran, 0);
    memset(crowd_last, 0, sizeof crowd_last);
    static pthread_t threads[CROWD_THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int started = 0;
    for (uintptr_t i = 0; i < CROWD_THREADS; i++)
        if (pthread_create(&threads[i], &attr, crowd_main, (void *)i) == 0)
            started++;
        else
            break;
    pthread_attr_destroy(&attr);
    atomic_store(&crowd_go, 1);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    CHECK_EQ(CROWD_THREADS, started);
    sync_or_die(crowd_stream, "the stream");
    CHECK_EQ(0, atomic_load(&crowd_failed));
    CHECK_EQ((long)CROWD_THREADS * CROWD_LAUNCHES, atomic_load(&crowd_ran));
    CHECK_EQ(0, atomic_load(&crowd_out_of_order));
    CHECK_OK(aclrtDestroyStream(crowd_stream));
}

/* A task works in its stream's context, whatever an earlier task on the same thread set. */
static aclrtContext other_ctx;
static aclrtStream ctx_stream;
static atomic_int set_rc = -1, launch_rc = -1;

static void set_other_context_fn(void *arg)
{
    (void)arg;
    atomic_store(&set_rc, aclrtSetCurrentContext(other_ctx));
}

static void nop_fn(void *arg)
{
    (void)arg;
}

static void launch_into_own_stream_fn(void *arg)
{
    (void)arg;
    atomic_store(&launch_rc, aclrtLaunchHostFunc(ctx_stream, nop_fn, NULL));
}

TEST(a_task_works_in_its_streams_context_whatever_an_earlier_task_set)
{
    CHECK_OK(aclrtCreateContext(&other_ctx, 0));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
    CHECK_OK(aclrtCreateStream(&ctx_stream));
    /* Both tasks queued behind a gate: one executor holds the stream and runs them in a row. */
    struct gate *g = launch_gate(ctx_stream);
    CHECK_OK(aclrtLaunchHostFunc(ctx_stream, set_other_context_fn, NULL));
    CHECK_OK(aclrtLaunchHostFunc(ctx_stream, launch_into_own_stream_fn, NULL));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(ctx_stream));
    CHECK_EQ(ACL_SUCCESS, atomic_load(&set_rc));
    CHECK_EQ(ACL_SUCCESS, atomic_load(&launch_rc)); /* not ACL_ERROR_RT_STREAM_CONTEXT */
    CHECK_OK(aclrtDestroyStream(ctx_stream));
    CHECK_OK(aclrtDestroyContext(other_ctx));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

int main(void)
{
    setenv("ACLRT_RING_BYTES", RING_BYTES, 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    signal(SIGALRM, case_hangs);
#define RUN_CASE(name)         \
    do {                       \
        alarm(CASE_LIMIT_S);   \
        RUN(name);             \
        alarm(0);              \
        case_cleanup();        \
    } while (0)
    RUN_CASE(a_launch_commits_while_an_earlier_reservation_is_still_open);
    RUN_CASE(a_task_works_in_its_streams_context_whatever_an_earlier_task_set);
    RUN_CASE(a_ring_holds_its_capacity_and_takes_more_once_the_consumer_is_done_with_a_record);
    RUN_CASE(a_fresh_ring_takes_nothing_even_where_zero_would_mean_committed);
    RUN_CASE(a_rings_positions_lie_in_pairs_scattered_over_their_page_and_each_lap_uses_every_slot_once);
    RUN_CASE(a_ring_of_many_pages_hands_out_every_record_in_order_across_laps_and_the_wrap);
    RUN_CASE(host_functions_launching_into_each_others_full_streams_get_task_full_instead_of_deadlocking);
    RUN_CASE(a_task_launching_into_another_streams_full_ring_gets_task_full_at_once);
    RUN_CASE(many_threads_waiting_for_room_in_a_full_stream_all_get_in_in_order);
    RUN_CASE(a_task_waiting_for_a_launcher_that_waits_for_room_in_its_stream_lets_it_in);
    RUN_CASE(thousands_of_threads_launching_into_one_stream_all_get_in_in_each_threads_order);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("launch");
}
