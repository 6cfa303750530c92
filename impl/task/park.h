/*
 * impl/task/park.h - parking: how a stream whose next task cannot run yet gives
 * its executor thread back, and who wakes it.
 *
 * A blocked stream leaves a park note (stream, park sequence, key) on a list
 * owned by whatever will change the condition:
 *   - the completed counter of the stream it waits for (key: target count),
 *   - an event it waits to see recorded (key unused),
 *   - its device's timer list, when the wait has a deadline (key: deadline).
 * The waker takes the whole list with one exchange, wakes the notes that are
 * due, frees the stale ones, and pushes the rest back. A note is stale when
 * the stream has left that park (woken by another note, or destroyed): the
 * stream's park sequence moved on, so the wake-up CAS fails harmlessly.
 *
 * Lists are lock-free stacks (Treiber; no ABA problem, because nodes are
 * only ever removed all at once by exchange, never popped one by one).
 * Lists with keys also keep the smallest key, so that a waker can tell with
 * one load that nobody is due: the check on a stream's completion path.
 *
 * This file is the lists; making a parked stream run again needs the
 * streams, which sit above it: the wake-ups (unpark, waking a list's due
 * notes, advancing a counter that streams park on) are in
 * impl/stream/stream_wake.h.
 */
#ifndef ACLRT_IMPL_TASK_PARK_H
#define ACLRT_IMPL_TASK_PARK_H

#include "../core/base.h"

struct aclrt_stream;

struct aclrt_park_note {
    struct aclrt_park_note *next;
    struct aclrt_stream *stream;
    uint64_t park_seq; /* the stream's park sequence when it parked */
    uint64_t key;      /* target count or deadline; 0 for event lists */
};

/* A list without keys (events: everyone is due at the next record). */
struct aclrt_park_stack {
    _Atomic(struct aclrt_park_note *) head;
};

/* A list with keys and its minimum (stream counters, timers). */
struct aclrt_park_list {
    struct aclrt_park_stack stack;
    _Atomic uint64_t min_key; /* UINT64_MAX when empty */
};

ACLRT_INLINE void aclrt_park_list_init(struct aclrt_park_list *l)
{
    atomic_store_explicit(&l->stack.head, NULL, memory_order_relaxed);
    atomic_store_explicit(&l->min_key, UINT64_MAX, memory_order_relaxed);
}

ACLRT_INTERNAL struct aclrt_park_note *aclrt_park_note_new(struct aclrt_stream *s, uint64_t park_seq,
                                                           uint64_t key)
{
    struct aclrt_park_note *n = (struct aclrt_park_note *)malloc(sizeof *n);
    if (n != NULL) {
        n->next = NULL;
        n->stream = s;
        n->park_seq = park_seq;
        n->key = key;
    }
    return n;
}

/*
 * Push a note. Seq_cst: the parker's push is ordered before its re-check of
 * the condition, and the waker's change of the condition before its check
 * of the list, so at least one of them sees the other (no lost wake-up).
 */
ACLRT_INLINE void aclrt_park_stack_push(struct aclrt_park_stack *s, struct aclrt_park_note *n)
{
    struct aclrt_park_note *head = atomic_load_explicit(&s->head, memory_order_relaxed);
    do
        n->next = head;
    while (!atomic_compare_exchange_weak_explicit(&s->head, &head, n, memory_order_seq_cst,
                                                  memory_order_relaxed));
}

/* Take every note (acquire: the notes' contents are visible). */
ACLRT_INLINE struct aclrt_park_note *aclrt_park_stack_take(struct aclrt_park_stack *s)
{
    if (atomic_load_explicit(&s->head, memory_order_relaxed) == NULL)
        return NULL;
    return atomic_exchange_explicit(&s->head, NULL, memory_order_seq_cst);
}

ACLRT_INLINE bool aclrt_park_stack_empty(struct aclrt_park_stack *s)
{
    return atomic_load_explicit(&s->head, memory_order_seq_cst) == NULL;
}

static void aclrt_park_list_lower_min(struct aclrt_park_list *l, uint64_t key)
{
    uint64_t cur = atomic_load_explicit(&l->min_key, memory_order_relaxed);
    while (key < cur &&
           !atomic_compare_exchange_weak_explicit(&l->min_key, &cur, key, memory_order_seq_cst,
                                                  memory_order_relaxed))
        ;
}

/*
 * Push with a key: the note first, then the minimum (see aclrt_park_list_take).
 * The key is read before the push: once published, the note belongs to
 * whoever takes the list and may already be freed.
 */
ACLRT_INLINE void aclrt_park_list_push(struct aclrt_park_list *l, struct aclrt_park_note *n)
{
    uint64_t key = n->key;
    aclrt_park_stack_push(&l->stack, n);
    aclrt_park_list_lower_min(l, key);
}

/* Is any note due at `value` (a count reached, or the time now)? One load. */
ACLRT_INLINE bool aclrt_park_list_due(struct aclrt_park_list *l, uint64_t value)
{
    return atomic_load_explicit(&l->min_key, memory_order_seq_cst) <= value;
}

ACLRT_INLINE uint64_t aclrt_park_list_min(struct aclrt_park_list *l)
{
    return atomic_load_explicit(&l->min_key, memory_order_seq_cst);
}

/*
 * Take every note. The minimum is reset *before* the exchange: a note pushed
 * after the exchange lowers the minimum after the reset, so it is never
 * hidden; notes pushed back by the taker lower it again. Until then the
 * minimum reads "none" for notes the taker holds: whoever reads it then must
 * hear from the taker once they are back (a counter's advancer: the taker
 * reads the counter again, aclrt_counter_wake_slow; a timer's sleeper: the
 * taker tells the backend, aclrt_device_timers_put_back).
 */
ACLRT_INLINE struct aclrt_park_note *aclrt_park_list_take(struct aclrt_park_list *l)
{
    atomic_store_explicit(&l->min_key, UINT64_MAX, memory_order_seq_cst);
    return atomic_exchange_explicit(&l->stack.head, NULL, memory_order_seq_cst);
}

/*
 * Take every note of a list and keep for the caller those it settles now
 * (wakes, or frees as stale): with `of` NULL, the notes due at `due` (key <=
 * due); otherwise the notes of stream `of`. The others go back on the list
 * (their keys lower the minimum again) and *put_back says whether any did.
 * The chain returned keeps the list's order.
 */
ACLRT_INTERNAL struct aclrt_park_note *aclrt_park_list_pick(struct aclrt_park_list *l, uint64_t due,
                                                            const struct aclrt_stream *of, bool *put_back)
{
    struct aclrt_park_note *picked = NULL, **tail = &picked;
    *put_back = false;
    struct aclrt_park_note *n = aclrt_park_list_take(l);
    while (n != NULL) {
        struct aclrt_park_note *next = n->next;
        if (of != NULL ? n->stream == of : n->key <= due) {
            n->next = NULL;
            *tail = n;
            tail = &n->next;
        } else {
            aclrt_park_list_push(l, n);
            *put_back = true;
        }
        n = next;
    }
    return picked;
}

/* Free a chain of notes taken off a list (stale: their streams left those parks, or are gone). */
ACLRT_INTERNAL void aclrt_park_notes_free(struct aclrt_park_note *n)
{
    while (n != NULL) {
        struct aclrt_park_note *next = n->next;
        free(n);
        n = next;
    }
}

#endif /* ACLRT_IMPL_TASK_PARK_H */
