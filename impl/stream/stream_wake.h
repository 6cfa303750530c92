/*
 * impl/stream/stream_wake.h - waking parked streams: the waker's side of
 * parking (impl/task/park.h keeps the notes and lists; it sits below the
 * streams and cannot make one run).
 *
 * A waker takes a list with one exchange and makes READY the streams whose
 * notes are due (aclrt_stream_unpark: the CAS that ends a park, after which
 * the notes left for that park are stale); notes not due go back. Counters
 * that streams park on (a stream's completed count, a notify's version, a
 * device's value writes) advance through aclrt_counter_advance, which wakes
 * what became due with one load on the path where nobody is.
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_WAKE_H
#define ACLRT_IMPL_STREAM_STREAM_WAKE_H

#include "../core/base.h"
#include "../core/seq.h"
#include "../task/park.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "stream.h"

/*
 * Wake a parked stream if it is still in the park that `park_seq` names.
 * Returns false for a stale note. The CAS (acq_rel) pairs with the parker's
 * release CAS to PARKED: whoever runs the stream next sees its blocked task.
 */
static bool aclrt_stream_unpark(struct aclrt_stream *s, uint64_t park_seq)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    for (;;) {
        if (aclrt_stream_state(w) != ACLRT_SCHED_PARKED || aclrt_stream_park_seq(w) != park_seq)
            return false;
        uint64_t ready = aclrt_sched_unparked(w, w, ACLRT_SCHED_READY);
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, ready, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            aclrt_rt.backend->schedule(s->device, s);
            return true;
        }
    }
}

/* Wake the streams of a chain of notes taken off a list (each if still in that park), and free the notes. */
static void aclrt_park_notes_wake(struct aclrt_park_note *n)
{
    while (n != NULL) {
        struct aclrt_park_note *next = n->next;
        aclrt_stream_unpark(n->stream, n->park_seq);
        free(n);
        n = next;
    }
}

/* Wake the notes on a list that are due at `value`; put the others back (true if any). */
ACLRT_INTERNAL bool aclrt_park_list_wake(struct aclrt_park_list *l, uint64_t value)
{
    bool put_back;
    aclrt_park_notes_wake(aclrt_park_list_pick(l, value, NULL, &put_back));
    return put_back;
}

/* Wake every note of a keyless list (an event was recorded or destroyed). */
ACLRT_INTERNAL void aclrt_park_stack_wake_all(struct aclrt_park_stack *st)
{
    aclrt_park_notes_wake(aclrt_park_stack_take(st));
}

/*
 * Wake what is due on a counter's list, for counters that several threads
 * advance at once (a notify recorded on two streams). A waker takes the whole
 * list and pushes back the notes not due at *its* value; another advancer
 * that loads the minimum in between sees the list empty and wakes nobody. So
 * after pushing back, the waker fences and reads the counter again (pairs
 * with the other advancer's add-then-load of the minimum, seq_cst on both
 * sides): either it sees the newer count and goes round again, or the other
 * advancer's load comes after the push-back and sees the notes itself.
 */
ACLRT_INTERNAL ACLRT_NOINLINE void aclrt_counter_wake_slow(const struct aclrt_seq *seq,
                                                          struct aclrt_park_list *waiters, uint64_t value)
{
    do {
        aclrt_park_list_wake(waiters, value);
        atomic_thread_fence(memory_order_seq_cst);
        value = aclrt_seq_read(seq);
    } while (aclrt_park_list_due(waiters, value));
}

/*
 * Advance a counter that streams may be parked on (exec.h, struct
 * aclrt_block) and wake the ones now due. Returns the new count. The advance
 * is a locked add followed by ck_pr_fence_atomic_load (seq.h); with the
 * seq_cst load of the minimum it pairs with the parker's push-then-recheck
 * (park.h), so no parked stream is forgotten.
 */
ACLRT_INLINE uint64_t aclrt_counter_advance(struct aclrt_seq *seq, struct aclrt_park_list *waiters, uint64_t n)
{
    uint64_t value = aclrt_seq_advance(seq, n);
    if (ACLRT_UNLIKELY(aclrt_park_list_due(waiters, value)))
        aclrt_counter_wake_slow(seq, waiters, value);
    return value;
}

#endif /* ACLRT_IMPL_STREAM_STREAM_WAKE_H */
