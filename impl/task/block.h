/*
 * impl/task/block.h - why a task cannot run yet.
 *
 * A task's run function (exec.h) that cannot finish now fills a block and
 * returns ACLRT_TASK_BLOCKED; the executor then parks the stream (no thread
 * held) with a note where the blocking condition will change, and runs the
 * task again when it has.
 */
#ifndef ACLRT_IMPL_TASK_BLOCK_H
#define ACLRT_IMPL_TASK_BLOCK_H

#include "../core/base.h"
#include "../core/clock.h"
#include "task.h"

struct aclrt_report_item;

/*
 * Why a task cannot run yet: where to leave the park note, and until when.
 * Any counter that only grows can be waited on: a stream's completed count,
 * a notify's record count, a callback item's done count. Whoever advances
 * the counter wakes the notes due on its list (aclrt_counter_advance). A
 * task that waits for a condition on other state (a counting notify's value,
 * a memory word) waits for that state's version counter to move past the
 * version it evaluated, and is run again to re-evaluate. A block with only
 * a deadline is a poll: the stream is run again at that time.
 *
 * The park looks at the condition once more after the stream is parked
 * (exec.h), when the stream, and so its task record, may already belong to
 * the executor that a waker handed it to. So a block holds by value what
 * that look needs, and a reference to the one kind of object that can be
 * freed meanwhile (a callback item, dropped by the task's next run).
 */
struct aclrt_block {
    const struct aclrt_seq *seq;      /* waits for *seq >= key ... */
    struct aclrt_park_list *list;     /* ... leaving its note here (advancer wakes it) */
    uint64_t key;
    struct aclrt_event_ref event;     /* waits for a record of event after `record` (event NULL: none) */
    struct aclrt_report_item *held;   /* a reference the park drops when it is done looking (callback.h) */
    uint64_t deadline_ns;             /* ACLRT_NO_DEADLINE: none */
    bool in_flight;                   /* the stream waits for its own issued work: parks even while discarding */
};

#define ACLRT_BLOCK_NONE {NULL, NULL, 0, {NULL, 0, 0}, NULL, ACLRT_NO_DEADLINE, false}

/* Block on a counter: run again once *seq >= key. */
ACLRT_INLINE void aclrt_block_on_count(struct aclrt_block *b, const struct aclrt_seq *seq,
                                       struct aclrt_park_list *list, uint64_t key, uint64_t deadline_ns)
{
    b->seq = seq;
    b->list = list;
    b->key = key;
    b->deadline_ns = deadline_ns;
}

#endif /* ACLRT_IMPL_TASK_BLOCK_H */
