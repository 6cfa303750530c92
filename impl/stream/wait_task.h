/*
 * impl/stream/wait_task.h - what wait tasks share (event waits, notifies, counting
 * notifies, value waits, HCOM waits): a deadline that starts when the
 * executor first reaches the wait and the device timer list that fires it,
 * a short spin while the executor has nothing else to do, and no pile-up of
 * stale park notes when a wait parks again and again.
 *
 * A wait task that cannot go on yet returns ACLRT_TASK_BLOCKED with a block
 * on a counter (block.h): its stream is parked and holds no executor thread.
 * Waits that park repeatedly (a value wait polling for a write the runtime
 * does not see, a counting-notify wait whose condition a record did not
 * make true) would leave one stale note per park on a list that may not be
 * taken for a long time; before parking again they take their own stale
 * notes off that list (aclrt_wait_prune).
 */
#ifndef ACLRT_IMPL_STREAM_WAIT_TASK_H
#define ACLRT_IMPL_STREAM_WAIT_TASK_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/seq.h"
#include "../core/spin_share.h"
#include "../task/park.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "stream.h"
#include "stream_wake.h"

/* A wait task whose deadline passed fails with this code (docs/SEMANTICS.md). */
#define ACLRT_WAIT_TIMEOUT_CODE ACL_ERROR_RT_TASK_TIMEOUT

/*
 * Notes went back on the device's timer list after a take. While they were
 * off it, its minimum read "none": a thread that chose how long to sleep
 * then (an executor, the backend's monitor) sleeps past their deadlines,
 * and may be the only one left to fire them (every other executor in user
 * code). So the backend hears of it as of a new earliest deadline. Its
 * seq_cst loads of who sleeps come after our seq_cst push-back; a sleeper
 * announces itself (seq_cst) before it reads the minimum: either we see it
 * and wake it, or it reads the minimum with the notes back.
 */
static void aclrt_device_timers_put_back(struct aclrt_device *dev)
{
    aclrt_rt.backend->timers_changed(dev);
}

/* The earliest deadline of a parked stream of dev, absolute ns; UINT64_MAX: none. */
ACLRT_INTERNAL uint64_t aclrt_device_next_deadline(struct aclrt_device *dev)
{
    return aclrt_park_list_min(&dev->timers);
}

/* Timers: wake the parked streams whose deadline passed (any thread may call this). */
ACLRT_INTERNAL void aclrt_device_fire_timers(struct aclrt_device *dev)
{
    uint64_t now = aclrt_now_ns();
    if (aclrt_park_list_due(&dev->timers, now) && aclrt_park_list_wake(&dev->timers, now))
        aclrt_device_timers_put_back(dev);
}

/* The deadline of a wait with a timeout in seconds (0: none); the clock starts at the first run. */
ACLRT_INLINE uint64_t aclrt_wait_deadline(uint64_t *deadline_ns, uint32_t timeout_s)
{
    if (timeout_s == 0)
        return ACLRT_NO_DEADLINE;
    if (*deadline_ns == 0)
        *deadline_ns = aclrt_now_ns() + (uint64_t)timeout_s * ACLRT_NS_PER_S;
    return *deadline_ns;
}

ACLRT_INLINE bool aclrt_wait_expired(uint64_t deadline_ns)
{
    return deadline_ns != ACLRT_NO_DEADLINE && aclrt_now_ns() >= deadline_ns;
}

/* A condition a waiting executor spins on: true when the wait should run again. */
typedef bool (*aclrt_wait_ready_fn)(const struct aclrt_task *t);

/* A wait task's condition as a spinner looks at it (aclrt_spin_phase, stream_sync.h). */
struct aclrt_wait_condition {
    aclrt_wait_ready_fn ready;
    const struct aclrt_task *t;
};

static bool aclrt_wait_condition_holds(const void *arg)
{
    const struct aclrt_wait_condition *c = (const struct aclrt_wait_condition *)arg;
    return c->ready(c->t);
}

/* A wait task's spinning executor: its stream, and when it gives its CPU away next on crowded CPUs. */
struct aclrt_wait_spinner {
    struct aclrt_stream *self;
    uint64_t share;
};

/*
 * A spinning executor stops when other work waits for it or its stream is
 * being discarded (1). On crowded CPUs it lets the others run now and then:
 * the task it waits for may be queued behind it on its CPU.
 */
static int aclrt_wait_spin_stop(void *arg)
{
    struct aclrt_wait_spinner *w = (struct aclrt_wait_spinner *)arg;
    struct aclrt_device *dev = w->self->device;
    if (aclrt_rt.backend->has_other_work(dev) ||
        (atomic_load_explicit(&w->self->sched, memory_order_relaxed) & ACLRT_SCHED_DISCARD))
        return 1;
    if (aclrt_rt.backend->crowded != NULL && aclrt_rt.backend->crowded(dev))
        aclrt_spin_share(aclrt_now_ns(), &w->share);
    return 0;
}

/*
 * Spin for up to spin_ns until `ready` says so, while nobody else needs
 * this executor (as exec.h's count waits do): a record that comes within
 * microseconds releases the wait at cache-line speed instead of through a
 * park and a wake-up. Returns true if `ready` became true (the last look is
 * taken when the spin ends).
 */
ACLRT_INTERNAL bool aclrt_wait_spin(struct aclrt_stream *self, aclrt_wait_ready_fn ready, const struct aclrt_task *t,
                                    uint64_t deadline)
{
    uint64_t spin_ns = aclrt_rt.config.spin_ns;
    if (spin_ns == 0 || aclrt_rt.backend->has_other_work(self->device))
        return false;
    struct aclrt_wait_condition c = {ready, t};
    struct aclrt_wait_spinner w = {self, 0};
    int r = aclrt_spin_phase(aclrt_wait_condition_holds, &c, deadline, spin_ns, aclrt_wait_spin_stop, &w);
    return r == 0 || (r != ACLRT_SEQ_TIMEOUT && ready(t));
}

/* Does a wait's condition hold: at the first look, or after a spin (aclrt_wait_spin)? */
ACLRT_INLINE bool aclrt_wait_holds(struct aclrt_stream *self, aclrt_wait_ready_fn ready, const struct aclrt_task *t,
                                   uint64_t deadline)
{
    return ready(t) || aclrt_wait_spin(self, ready, t, deadline);
}

/*
 * Take `self`'s notes off a list (they are stale: self is running, so the
 * park they were left for is over) and put the others back. Returns true if
 * any note was put back.
 */
static bool aclrt_wait_drop_own_notes(struct aclrt_park_list *list, const struct aclrt_stream *self)
{
    bool kept;
    aclrt_park_notes_free(aclrt_park_list_pick(list, 0, self, &kept));
    return kept;
}

/*
 * Before parking again on a counter's list (and on the device's timers when
 * the wait has a deadline): drop the notes this stream left there when it
 * parked before. Notes of other streams go back; an advance that came while
 * they were off the list found it empty, so the count is read again after
 * they are back and whatever is due now is woken (the same hand-off as
 * aclrt_counter_wake_slow, stream_wake.h).
 */
ACLRT_INTERNAL ACLRT_NOINLINE void aclrt_wait_prune(struct aclrt_stream *self, const struct aclrt_seq *seq,
                                            struct aclrt_park_list *list, bool timers)
{
    if (aclrt_wait_drop_own_notes(list, self)) {
        atomic_thread_fence(memory_order_seq_cst);
        uint64_t value = aclrt_seq_read(seq);
        if (aclrt_park_list_due(list, value))
            aclrt_counter_wake_slow(seq, list, value);
    }
    if (timers && aclrt_wait_drop_own_notes(&self->device->timers, self)) {
        aclrt_device_fire_timers(self->device);
        aclrt_device_timers_put_back(self->device);
    }
}

#endif /* ACLRT_IMPL_STREAM_WAIT_TASK_H */
