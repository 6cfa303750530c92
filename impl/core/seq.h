/*
 * impl/core/seq.h - sequence counters: a 64-bit count that only grows, which
 * threads can read with one load and wait on (spin, then futex sleep).
 *
 * A stream's `completed` count is one: task N of the stream is done when
 * completed >= N. Events, synchronize and stream waits are all "wait until
 * this counter reaches that value", so this file is where every wait sleeps.
 *
 * Built on Concurrency Kit's ck_ec64 event count: advancing costs one atomic
 * add and makes a futex syscall only when a waiter has flagged that it
 * sleeps; reading is a plain load. ck_ec keeps the value in bits 1..63, so a
 * counter holds up to 2^63 - 1, which no stream reaches.
 *
 * Deadlines: ck_ec's sleeping path is an exponential backoff whose steps end
 * 2 ms, 16 ms, 128 ms and 1.024 s after the wait began, and it hands each
 * step's end to the futex as that sleep's deadline without comparing it with
 * the caller's deadline; it checks the caller's only when a sleep returns.
 * Left alone, a wait with a 5 ms timeout would sleep until the 16 ms step,
 * one with 130 ms until the 1.024 s step. Every wait here therefore goes
 * through ck_ec64_wait_pred with a predicate that moves each step's end back
 * to the caller's deadline when it lies beyond it (which ck_ec allows: the
 * predicate may shorten the step), so a timed wait sleeps until its deadline
 * exactly (absolute CLOCK_MONOTONIC, the clock of aclrt_now_ns and of the
 * futex) and returns within a wake-up latency of it.
 *
 * A backend may instead have the waits run the device's work themselves
 * (struct aclrt_seq_driver, below): the deterministic schedule.
 */
#ifndef ACLRT_IMPL_CORE_SEQ_H
#define ACLRT_IMPL_CORE_SEQ_H

#include "base.h"
#include "clock.h"
#include "futex.h"

#include <ck_ec.h>

struct aclrt_seq {
    struct ck_ec64 ec;
};

static int aclrt_seq_gettime(const struct ck_ec_ops *ops, struct timespec *out)
{
    (void)ops;
    return clock_gettime(CLOCK_MONOTONIC, out);
}

static void aclrt_seq_wait32(const struct ck_ec_wait_state *state, const uint32_t *word,
                             uint32_t expected, const struct timespec *deadline)
{
    (void)state;
    uint64_t ns = ACLRT_NO_DEADLINE;
    if (deadline != NULL)
        ns = (uint64_t)deadline->tv_sec * ACLRT_NS_PER_S + (uint64_t)deadline->tv_nsec;
    aclrt_futex_wait(word, expected, ns);
}

/* The futex word is the low half of the 64-bit counter (little endian). */
static void aclrt_seq_wait64(const struct ck_ec_wait_state *state, const uint64_t *word,
                             uint64_t expected, const struct timespec *deadline)
{
    aclrt_seq_wait32(state, (const uint32_t *)word, (uint32_t)expected, deadline);
}

static void aclrt_seq_wake32(const struct ck_ec_ops *ops, const uint32_t *word)
{
    (void)ops;
    aclrt_futex_wake(word, INT_MAX);
}

static void aclrt_seq_wake64(const struct ck_ec_ops *ops, const uint64_t *word)
{
    (void)ops;
    aclrt_futex_wake(word, INT_MAX);
}

static const struct ck_ec_ops aclrt_seq_ops = {
    .gettime = aclrt_seq_gettime,
    .wait32 = aclrt_seq_wait32,
    .wait64 = aclrt_seq_wait64,
    .wake32 = aclrt_seq_wake32,
    .wake64 = aclrt_seq_wake64,
};

/*
 * Multiple-producer mode: the advance is a locked add, so a sleeper's flag
 * is never lost and a wake-up is never late. (ck_ec's single-producer mode
 * saves the lock prefix but may defer a wake-up to the waiter's backoff.)
 */
static const struct ck_ec_mode aclrt_seq_mode = {
    .ops = &aclrt_seq_ops,
    .single_producer = false,
};

/* Only while nobody else can see the counter (creation). */
ACLRT_INLINE void aclrt_seq_init(struct aclrt_seq *seq, uint64_t value)
{
    ck_ec64_init(&seq->ec, value);
}

/*
 * Acquire: pairs with the release in aclrt_seq_advance, so whatever the
 * advancing thread wrote before counting (a task's effects) is visible to a
 * reader that sees the new count.
 */
ACLRT_INLINE uint64_t aclrt_seq_read(const struct aclrt_seq *seq)
{
    uint64_t value = ck_ec64_value(&seq->ec);
    ACLRT_TSAN_ACQUIRE(seq);
    return value;
}

/*
 * Release (see aclrt_seq_read); wakes every sleeper if one is flagged.
 * Returns the new count. The add is a locked RMW and the fence after it
 * orders the caller's next loads (a waiter list) after the advance: the
 * store-load half of the park/wake hand-off (park.h).
 */
ACLRT_INLINE uint64_t aclrt_seq_advance(struct aclrt_seq *seq, uint64_t delta)
{
    ACLRT_TSAN_RELEASE(seq);
    uint64_t before = ck_ec64_add(&seq->ec, &aclrt_seq_mode, delta);
    ck_pr_fence_atomic_load();
    return before + delta;
}

/*
 * Wake every thread sleeping on the counter without changing it, so that
 * each re-checks its stop condition (aclrt_seq_wait_until's stop_fn).
 * The sleepers wait on the low half of the counter (aclrt_seq_wait64).
 */
ACLRT_INLINE void aclrt_seq_wake_all(struct aclrt_seq *seq)
{
    aclrt_futex_wake(&seq->ec.counter, INT_MAX);
}

/* Reached: counts never go down, so `>=` is the whole test. */
ACLRT_INLINE bool aclrt_seq_reached(const struct aclrt_seq *seq, uint64_t target)
{
    return aclrt_seq_read(seq) >= target;
}

/*
 * A reason to stop waiting other than the counter: checked while spinning
 * and at every wake-up. Returns 0 to keep waiting, else the value that
 * aclrt_seq_wait_until returns.
 */
typedef int (*aclrt_seq_stop_fn)(void *data);

/* What ck_ec's predicate sees (ck_ec_wait_state.data) during one wait. */
struct aclrt_seq_wait_ctx {
    aclrt_seq_stop_fn fn;     /* NULL: none */
    void *data;
    struct timespec deadline; /* the caller's; valid when has_deadline */
    bool has_deadline;
};

/*
 * Called by ck_ec before every sleep with that backoff step's deadline:
 * checks the stop condition, and clamps the step's deadline to the
 * caller's, so that no sleep runs past it.
 */
static int aclrt_seq_pred(const struct ck_ec_wait_state *state, struct timespec *step_deadline)
{
    const struct aclrt_seq_wait_ctx *ctx = (const struct aclrt_seq_wait_ctx *)state->data;
    if (ctx->fn != NULL) {
        int why = ctx->fn(ctx->data);
        if (why != 0)
            return why;
    }
    if (ctx->has_deadline &&
        (step_deadline->tv_sec > ctx->deadline.tv_sec ||
         (step_deadline->tv_sec == ctx->deadline.tv_sec && step_deadline->tv_nsec > ctx->deadline.tv_nsec)))
        *step_deadline = ctx->deadline;
    return 0;
}

#define ACLRT_SEQ_TIMEOUT (-1)

/* A condition a spinning waiter looks at: true when its wait is over. */
typedef bool (*aclrt_spin_ready_fn)(const void *arg);

#define ACLRT_SPIN_SLEEP (-2) /* aclrt_spin_phase: the spin is over, the waiter sleeps next */

/*
 * The spin of a wait before it sleeps: look at `ready(arg)` until it holds,
 * reading the clock (and asking stop_fn, if not NULL) every 64 turns, for
 * up to spin_ns. Returns 0 when ready, stop_fn's non-zero answer,
 * ACLRT_SEQ_TIMEOUT once deadline_ns passed (after one more look), or
 * ACLRT_SPIN_SLEEP once the spin time is over: the caller sleeps, and looks
 * again before it does.
 */
ACLRT_INLINE int aclrt_spin_phase(aclrt_spin_ready_fn ready, const void *arg, uint64_t deadline_ns, uint64_t spin_ns,
                                  aclrt_seq_stop_fn stop_fn, void *stop_data)
{
    uint64_t now = aclrt_now_ns();
    uint64_t spin_end = spin_ns > ACLRT_NO_DEADLINE - now ? ACLRT_NO_DEADLINE : now + spin_ns;
    for (unsigned i = 1;; i++) {
        if (ready(arg))
            return 0;
        aclrt_cpu_relax();
        if ((i & 63) != 0)
            continue;
        if (stop_fn != NULL) {
            int why = stop_fn(stop_data);
            if (why != 0)
                return why;
        }
        now = aclrt_now_ns();
        if (now >= deadline_ns)
            return ready(arg) ? 0 : ACLRT_SEQ_TIMEOUT;
        if (now >= spin_end)
            return ACLRT_SPIN_SLEEP;
    }
}

/*
 * Waits that run the device's work themselves. A backend that starts no
 * thread to run streams and wants every wait of the runtime to make
 * progress on the waiting thread sets `aclrt_seq_driver` while it runs:
 * the host backend's deterministic schedule (backends/host/host_det.h).
 * Every wait then goes through `wait`, with aclrt_seq_wait_until's contract
 * and return values (0 when ready(arg) holds, ACLRT_SEQ_TIMEOUT past
 * deadline_ns, or stop_fn's non-zero value): it runs steps of the ready
 * work until the condition holds. `handoff`: the waiter waits for another
 * program thread (a report thread's wait for callbacks), not for the
 * device's work. `step` runs one step, if any work is ready: a status query
 * that finds work not done calls it (aclrt_seq_drive_step), so that a
 * program spinning on a query makes progress. NULL, the default: waits spin
 * and sleep as below, and the only cost is one load on a wait's slow path.
 */
struct aclrt_seq_driver {
    int (*wait)(aclrt_spin_ready_fn ready, const void *arg, uint64_t deadline_ns, aclrt_seq_stop_fn stop_fn,
                void *stop_data, bool handoff);
    bool (*step)(void);
};

/* Set and cleared (release) while no wait can be under way: the runtime's start and stop. */
static _Atomic(const struct aclrt_seq_driver *) aclrt_seq_driver;

/* The driver of the waits, or NULL. Acquire: pairs with the release that set it (aclrt_seq_drive_set). */
ACLRT_INLINE const struct aclrt_seq_driver *aclrt_seq_driven(void)
{
    return atomic_load_explicit(&aclrt_seq_driver, memory_order_acquire);
}

ACLRT_INLINE void aclrt_seq_drive_set(const struct aclrt_seq_driver *d)
{
    atomic_store_explicit(&aclrt_seq_driver, d, memory_order_release);
}

/* A query found work not done: with a driver, run one step and say so (look again); else false. */
ACLRT_INLINE bool aclrt_seq_drive_step(void)
{
    const struct aclrt_seq_driver *d = aclrt_seq_driven();
    return ACLRT_UNLIKELY(d != NULL) && d->step();
}

/* A count a spinner waits for. */
struct aclrt_seq_target {
    struct aclrt_seq *seq;
    uint64_t target;
};

ACLRT_INLINE bool aclrt_seq_target_reached(const void *arg)
{
    const struct aclrt_seq_target *t = arg;
    return aclrt_seq_reached(t->seq, t->target);
}

/*
 * Slow path: wait until seq >= target. Spins for spin_ns, then sleeps.
 * Returns 0 when reached, ACLRT_SEQ_TIMEOUT once deadline_ns (absolute
 * CLOCK_MONOTONIC ns, ACLRT_NO_DEADLINE for none) has passed, or the
 * non-zero value of stop_fn. Never returns ACLRT_SEQ_TIMEOUT before the
 * deadline, and sleeps no later than the deadline. With a driver (above),
 * the driver's wait does all of it (`handoff`: aclrt_seq_wait_handoff).
 */
static ACLRT_NOINLINE int aclrt_seq_wait(struct aclrt_seq *seq, uint64_t target, uint64_t deadline_ns,
                                          uint64_t spin_ns, aclrt_seq_stop_fn stop_fn, void *stop_data,
                                          bool handoff)
{
    if (aclrt_seq_reached(seq, target))
        return 0;
    const struct aclrt_seq_driver *d = aclrt_seq_driven();
    if (ACLRT_UNLIKELY(d != NULL)) {
        struct aclrt_seq_target t = {seq, target};
        return d->wait(aclrt_seq_target_reached, &t, deadline_ns, stop_fn, stop_data, handoff);
    }

    if (spin_ns > 0) {
        struct aclrt_seq_target t = {seq, target};
        int r = aclrt_spin_phase(aclrt_seq_target_reached, &t, deadline_ns, spin_ns, stop_fn, stop_data);
        if (r != ACLRT_SPIN_SLEEP)
            return r;
    }

    struct aclrt_seq_wait_ctx ctx = {stop_fn, stop_data, aclrt_timespec_from_ns(deadline_ns),
                                     deadline_ns != ACLRT_NO_DEADLINE};
    for (;;) {
        uint64_t seen = aclrt_seq_read(seq);
        if (seen >= target)
            return 0;
        /* Past the deadline: no sleep (ck_ec would flag the counter first, costing the next advance a wake). */
        if (ctx.has_deadline && aclrt_now_ns() >= deadline_ns)
            return ACLRT_SEQ_TIMEOUT;
        int r = ck_ec64_wait_pred(&seq->ec, &aclrt_seq_mode, seen, aclrt_seq_pred, &ctx,
                                  ctx.has_deadline ? &ctx.deadline : NULL);
        if (r == -1)
            return aclrt_seq_reached(seq, target) ? 0 : ACLRT_SEQ_TIMEOUT;
        if (r != 0)
            return r;
    }
}

ACLRT_INTERNAL int aclrt_seq_wait_until(struct aclrt_seq *seq, uint64_t target, uint64_t deadline_ns,
                                        uint64_t spin_ns, aclrt_seq_stop_fn stop_fn, void *stop_data)
{
    return aclrt_seq_wait(seq, target, deadline_ns, spin_ns, stop_fn, stop_data, false);
}

/*
 * aclrt_seq_wait_until for a count that another program thread moves, not
 * the device's work (a report thread waits for the callbacks handed to it):
 * the same wait, except for a driver (above), which is told so.
 */
ACLRT_INTERNAL int aclrt_seq_wait_handoff(struct aclrt_seq *seq, uint64_t target, uint64_t deadline_ns,
                                          uint64_t spin_ns, aclrt_seq_stop_fn stop_fn, void *stop_data)
{
    return aclrt_seq_wait(seq, target, deadline_ns, spin_ns, stop_fn, stop_data, true);
}

#endif /* ACLRT_IMPL_CORE_SEQ_H */
