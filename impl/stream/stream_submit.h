/*
 * impl/stream/stream_submit.h - the launch path: submitting a task to a
 * stream. A capturing stream's tasks go to its capture (stream_capture.h);
 * others go into the ring: a reservation (the full ring's slow path: back
 * pressure, or ACL_ERROR_RT_STREAM_TASK_FULL on a runtime thread), the
 * publication of the record, and the kick that makes sure someone runs the
 * stream. Submitting takes no lock and makes no syscall unless a sleeping
 * executor has to be woken.
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_SUBMIT_H
#define ACLRT_IMPL_STREAM_STREAM_SUBMIT_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/ring.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "stream.h"
#include "stream_capture.h"
#include "snapshot_gate.h"
#include "stream_complete.h"

#include <sched.h>

/* The stream became READY: hand it to its backend. */
static ACLRT_NOINLINE void aclrt_stream_kick_slow(struct aclrt_stream *s, uint64_t w)
{
    while (aclrt_stream_state(w) == ACLRT_SCHED_IDLE && (w & ACLRT_SCHED_DYING) == 0) {
        uint64_t ready = aclrt_sched_in_state(w, ACLRT_SCHED_READY);
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, ready, memory_order_seq_cst,
                                                  memory_order_relaxed)) {
            aclrt_rt.backend->schedule(s->device, s);
            return;
        }
    }
}

/*
 * After a submission: make sure someone will run the stream. One load on
 * the fast path. Seq_cst, after the ring reservation (a seq_cst CAS, see
 * aclrt_ring_reserve): pairs with the executor's seq_cst CAS to IDLE followed
 * by its seq_cst look at the reserved position (aclrt_stream_release).
 * Either this load sees IDLE and schedules the stream, or the executor sees
 * the reservation (committed or not: it then keeps the stream until the
 * commit lands).
 */
ACLRT_INLINE uint64_t aclrt_stream_kick(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_seq_cst);
    if (ACLRT_UNLIKELY(aclrt_stream_state(w) == ACLRT_SCHED_IDLE))
        aclrt_stream_kick_slow(s, w);
    return w;
}

/*
 * A launcher waiting for room runs beside the thread that makes it: on the
 * one CPU the runtime's threads run on. There it does not spin, and the
 * holder wakes it once per lap of the ring rather than per quarter
 * (aclrt_ring_wait_room).
 */
ACLRT_INLINE bool aclrt_stream_room_beside(void)
{
    return aclrt_rt.only_cpu >= 0 && sched_getcpu() == aclrt_rt.only_cpu;
}

/*
 * A user thread waits for room in the full ring of a stream whose device
 * completes its tasks: its slots come back as the device's word moves,
 * which someone must fold in (aclrt_stream_fold wakes the launchers waiting
 * for room). The backend is asked for that (stream_await, the oldest task;
 * while launchers wait, its holder asks for it behind what it issues, see
 * backends/backend.h), then the wait is the ring's.
 */
static ACLRT_NOINLINE void aclrt_stream_wait_room_device(struct aclrt_stream *s, struct aclrt_ring_slot **slot,
                                                         uint32_t *position)
{
    aclrt_stream_await(s, aclrt_seq_read(&s->completed) + 1);
    *slot = aclrt_ring_wait_room(&s->ring, position, aclrt_stream_room_beside());
}

/*
 * Slow path of a reservation: the ring is full.
 *
 * A user thread waits for room (back pressure): the stream's executor is
 * independent of it and makes room.
 *
 * A runtime thread (one running a task of some stream: a host function or
 * host kernel on an executor, or any task an embedder's progress call runs)
 * never waits: ACL_ERROR_RT_STREAM_TASK_FULL at once. Its own stream cannot
 * move while it waits, and whatever would make room may itself be waiting
 * for it: two tasks launching into each other's full streams, or a chain of
 * streams whose executors all wait in launches, would deadlock with nothing
 * to report it. As on a device, where a launch from device-side work cannot
 * hold the queue it runs from, such a launch fails and the task decides
 * (retry later, launch elsewhere, or give up).
 */
static ACLRT_NOINLINE aclError aclrt_stream_submit_full(struct aclrt_stream *s, struct aclrt_ring_slot **slot,
                                                       uint32_t *position)
{
    /* A device's word may say that tasks holding slots are complete: fold it in and look again. */
    if (aclrt_stream_device_word(s) != NULL) {
        aclrt_stream_fold(s);
        if ((*slot = aclrt_ring_reserve(&s->ring, position)) != NULL)
            return ACL_SUCCESS;
    }
    struct aclrt_stream *running = aclrt_running_stream();
    if (running == s)
        return aclrt_fail(ACL_ERROR_RT_STREAM_TASK_FULL,
                          "the stream's task ring is full (%u tasks) and this call comes from a task of the same "
                          "stream, which would wait for itself",
                          aclrt_ring_capacity(&s->ring));
    if (running != NULL)
        return aclrt_fail(ACL_ERROR_RT_STREAM_TASK_FULL,
                          "the stream's task ring is full (%u tasks) and this call comes from a task of stream %d "
                          "on a runtime thread, which never waits for room (it could wait for itself)",
                          aclrt_ring_capacity(&s->ring), (int)aclrt_slot_index(&running->hdr));
    if (aclrt_stream_device_word(s) != NULL) {
        aclrt_stream_wait_room_device(s, slot, position);
        return ACL_SUCCESS;
    }
    *slot = aclrt_ring_wait_room(&s->ring, position, aclrt_stream_room_beside());
    return ACL_SUCCESS;
}

/* Reserve a ring position; on a full ring, the slow path decides (back pressure, or TASK_FULL). */
ACLRT_INLINE aclError aclrt_stream_reserve_slot(struct aclrt_stream *s, struct aclrt_ring_slot **slot,
                                                uint32_t *position)
{
    *slot = aclrt_ring_reserve(&s->ring, position);
    if (ACLRT_UNLIKELY(*slot == NULL))
        return aclrt_stream_submit_full(s, slot, position);
    return ACL_SUCCESS;
}

/* Publish the record of a reserved position and make sure someone runs the stream. */
ACLRT_INLINE void aclrt_stream_publish(struct aclrt_stream *s, struct aclrt_ring_slot *slot, uint32_t position,
                                       const struct aclrt_task *task)
{
    ACLRT_SAN(task, s, task, aclrt_ring_extend(aclrt_seq_read(&s->completed), position + 1));
    aclrt_ring_commit(slot, position, task, aclrt_thread_tid());
    /* Task ids count from 1 in each life of the stream; position + 1 is the task's number mod 2^32 (ring.h). */
    aclrt_tls.last_task_id = position + 1u - (uint32_t)s->life_base;
    /*
     * The slots of the next launches, early: a few ahead into a stream its
     * executor holds (it drains a burst as it comes), the next one into any
     * other (that launch may come much later; ring.h).
     */
    bool held = aclrt_stream_state(aclrt_stream_kick(s)) == ACLRT_SCHED_RUNNING;
    aclrt_ring_prefetch_ahead(&s->ring, position, held ? ACLRT_RING_PREFETCH_AHEAD : 1u);
}

/*
 * Reserve the next position of s with `bytes` bytes of the ring's side area
 * at it (ring.h), for a task that owns bytes written at its launch: the
 * caller writes them at *dst, points its record at them and publishes with
 * aclrt_stream_publish. *dst NULL (ACL_SUCCESS, nothing reserved): they
 * cannot go there (more than ACLRT_RING_SIDE_BYTES, or the stream's tasks
 * go to a capture or a model, not its ring, or no memory for the area):
 * submit with a copy of their own. A failure (the context stopped, a full
 * ring on a runtime thread) reserves nothing.
 */
ACLRT_INLINE aclError aclrt_stream_reserve_side(struct aclrt_stream *s, size_t bytes, struct aclrt_ring_slot **slot,
                                                uint32_t *position, unsigned char **dst)
{
    *dst = NULL;
    if (ACLRT_UNLIKELY(bytes > ACLRT_RING_SIDE_BYTES || aclrt_stream_capturing(s) ||
                       (s->flags & ACL_STREAM_PERSISTENT)))
        return ACL_SUCCESS;
    unsigned char *side = aclrt_ring_side(&s->ring);
    if (ACLRT_UNLIKELY(side == NULL))
        return ACL_SUCCESS;
    aclrt_snapshot_gate(); /* as in aclrt_stream_submit */
    aclError rc = aclrt_stream_check_failure(s);
    if (ACLRT_LIKELY(rc == ACL_SUCCESS))
        rc = aclrt_stream_reserve_slot(s, slot, position);
    if (ACLRT_LIKELY(rc == ACL_SUCCESS))
        *dst = aclrt_ring_side_at(&s->ring, side, *position);
    return rc;
}

/*
 * Reservations in two halves, for callers that must act between reserving
 * and committing (a reservation can be refused; after it, nothing can):
 * aclrt_stream_reserve hands out a record to fill and the task's ticket
 * (its ring position); aclrt_stream_commit (or _commit_task) publishes it.
 * The record is the calling thread's staging copy, not the ring slot (a
 * slot's last bytes hold its sequence number, which only atomics touch), so
 * a thread holds one reservation at a time.
 */
static _Thread_local struct aclrt_task aclrt_stream_staged;

/*
 * Reserve the next ring position and return the record to fill and the
 * task's number. A full ring: a user thread waits for room (back pressure,
 * never a dropped task), a runtime thread gets ACL_ERROR_RT_STREAM_TASK_FULL
 * (aclrt_stream_submit_full).
 */
ACLRT_INLINE aclError aclrt_stream_reserve(struct aclrt_stream *s, struct aclrt_task **slot, unsigned int *ticket,
                                           uint64_t *number)
{
    uint64_t base = number != NULL ? aclrt_seq_read(&s->completed) : 0; /* before our task exists */
    struct aclrt_ring_slot *ring_slot;
    uint32_t position;
    aclError rc = aclrt_stream_reserve_slot(s, &ring_slot, &position);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    *slot = &aclrt_stream_staged;
    *ticket = position;
    if (number != NULL)
        *number = aclrt_ring_extend(base, position + 1);
    return ACL_SUCCESS;
}

/* Publish the record aclrt_stream_reserve handed out. */
ACLRT_INLINE void aclrt_stream_commit(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket)
{
    aclrt_stream_publish(s, aclrt_ring_slot_of(&s->ring, ticket), ticket, slot);
}

/* Publish `task` as the reservation aclrt_stream_reserve handed out (`slot`, `ticket`). */
ACLRT_INLINE void aclrt_stream_commit_task(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket,
                                           const struct aclrt_task *task)
{
    (void)slot;
    aclrt_stream_publish(s, aclrt_ring_slot_of(&s->ring, ticket), ticket, task);
}

/*
 * A task that took effect at once on an idle stream (aclrt_stream_acts_now:
 * a record or a wait with nothing before it), with no ring entry: the
 * stream-ordering sanitizer sees it as the stream's latest task.
 */
ACLRT_INLINE void aclrt_stream_acted_now(struct aclrt_stream *s, const struct aclrt_task *t)
{
    ACLRT_SAN(task, s, t, aclrt_stream_submitted(s));
}

/* Submit one task record: the launch fast path. */
/*
 * Work for a persistent stream that does not collect it for a model (not
 * bound, or its tasks have ended): its tasks only ever run in a model.
 */
static ACLRT_NOINLINE aclError aclrt_stream_refuse_persistent(const struct aclrt_stream *s)
{
    return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL,
                      "stream %d is persistent (ACL_STREAM_PERSISTENT): its tasks go into a model being built "
                      "(aclmdlRIBindStream), and it is not collecting any now",
                      (int)aclrt_slot_index(&s->hdr));
}

ACLRT_INLINE aclError aclrt_stream_submit(struct aclrt_stream *s, const struct aclrt_task *task, uint64_t *number)
{
    aclError rc;
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)) &&
        (rc = aclrt_stream_capture_task(s, task, number)) != ACLRT_CAPTURE_ENDED)
        return rc;
    if (ACLRT_UNLIKELY(s->flags & ACL_STREAM_PERSISTENT))
        return aclrt_stream_refuse_persistent(s);
    aclrt_snapshot_gate(); /* held while the process is locked for a snapshot (snapshot_gate.h) */
    rc = aclrt_stream_check_failure(s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    uint64_t base = number != NULL ? aclrt_seq_read(&s->completed) : 0; /* before our task exists */
    struct aclrt_ring_slot *slot;
    uint32_t position;
    rc = aclrt_stream_reserve_slot(s, &slot, &position);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    if (number != NULL)
        *number = aclrt_ring_extend(base, position + 1);
    aclrt_stream_publish(s, slot, position, task);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_STREAM_STREAM_SUBMIT_H */
