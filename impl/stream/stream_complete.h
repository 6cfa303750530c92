/*
 * impl/stream/stream_complete.h - a stream's completion: tasks counted done
 * (the completed count moves, the streams parked on it and the launchers
 * waiting for room in its ring are woken), and the completion word a
 * backend's device writes (backends/backend.h), folded into the count.
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_COMPLETE_H
#define ACLRT_IMPL_STREAM_STREAM_COMPLETE_H

#include "../core/base.h"
#include "../core/seq.h"
#include "../task/ring.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "stream.h"
#include "stream_wake.h"

/*
 * Count `n` more tasks as done and wake the streams parked on us that are
 * now due, and the launchers waiting for room in our ring (the slots of the
 * tasks taken off it are free; the advance is the locked RMW that
 * aclrt_ring_wake_room relies on). With a device word, the count goes into
 * it too, for the device's waiters on s (a cross-stream wait there): tasks
 * completed on the host come only while nothing of s is in flight on the
 * device (backends/backend.h), so the device writes nothing smaller after it.
 * The word is raised, never stored: the advance wakes the stream, whose next
 * task may reach the device and complete there (a larger word) before this
 * thread gets to the word; a plain store would take that completion back.
 */
static ACLRT_NOINLINE void aclrt_stream_complete_device(struct aclrt_stream *s, _Atomic uint64_t *word, uint64_t n)
{
    uint64_t value = aclrt_seq_read(&s->completed) + n;
    aclrt_ring_free_to(&s->ring, (uint32_t)value); /* slots go back as their tasks complete (exec.h) */
    aclrt_counter_advance(&s->completed, &s->waiters, n);
    uint64_t w = atomic_load_explicit(word, memory_order_relaxed);
    /* Release: pairs with aclrt_stream_reached's acquire. */
    while (w < value &&
           !atomic_compare_exchange_weak_explicit(word, &w, value, memory_order_release, memory_order_relaxed))
        ;
    aclrt_ring_wake_room(&s->ring, true);
}

ACLRT_INLINE void aclrt_stream_complete(struct aclrt_stream *s, uint64_t n)
{
    _Atomic uint64_t *word = aclrt_stream_device_word(s);
    if (ACLRT_UNLIKELY(word != NULL)) {
        aclrt_stream_complete_device(s, word, n);
        return;
    }
    aclrt_counter_advance(&s->completed, &s->waiters, n);
    aclrt_ring_wake_room(&s->ring, false);
}

/*
 * Bring `completed` up to the device's word and wake what is due then (any
 * thread: a backend's completion callback, a holder, a waiter; one fold at a
 * time per slot). The word is loaded before the count: a word the host
 * stored (aclrt_stream_complete) was stored after its count, so the count
 * read after it is at least as large and nothing is counted twice; a word
 * the device wrote is ahead only by tasks it completed, which nobody else
 * counts while they are in flight. The ring slots of the tasks now complete
 * are freed first, before the advance (the locked RMW ring.h pairs with).
 */
ACLRT_INTERNAL void aclrt_stream_fold(struct aclrt_stream *s)
{
    _Atomic uint64_t *word = aclrt_stream_device_word(s);
    if (word == NULL || atomic_load_explicit(word, memory_order_acquire) <= aclrt_seq_read(&s->completed))
        return;
    /* Acquire: pairs with the previous fold's release below (its count is ours to read). */
    while (atomic_exchange_explicit(&s->folding, true, memory_order_acquire))
        aclrt_cpu_relax();
    uint64_t w = atomic_load_explicit(word, memory_order_acquire); /* as in aclrt_stream_reached */
    uint64_t done = aclrt_seq_read(&s->completed);
    if (w > done) {
        aclrt_ring_free_to(&s->ring, (uint32_t)w);
        aclrt_counter_advance(&s->completed, &s->waiters, w - done);
        aclrt_ring_wake_room(&s->ring, true);
    }
    atomic_store_explicit(&s->folding, false, memory_order_release);
}

/*
 * A thread is about to sleep, or a stream to park, until s has completed
 * `target`: a backend whose device writes the completion word makes sure the
 * completed count gets there (backends/backend.h, stream_await).
 */
ACLRT_INLINE void aclrt_stream_await(struct aclrt_stream *s, uint64_t target)
{
    if (aclrt_stream_device_word(s) != NULL && aclrt_rt.backend->stream_await != NULL)
        aclrt_rt.backend->stream_await(s, target);
}

#endif /* ACLRT_IMPL_STREAM_STREAM_COMPLETE_H */
