/*
 * impl/stream/stream_submit.h - submitting a task to a stream: the launch fast
 * path. A capturing stream's tasks go to its capture (stream_capture.h);
 * others go into the ring (stream.h: reservation, publication, the full
 * ring's slow path).
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_SUBMIT_H
#define ACLRT_IMPL_STREAM_STREAM_SUBMIT_H

#include "../core/base.h"
#include "../core/seq.h"
#include "../task/ring.h"
#include "stream.h"
#include "stream_capture.h"

/* Publish `task` as the reservation aclrt_stream_reserve handed out (`slot`, `ticket`). */
ACLRT_INLINE void aclrt_stream_commit_task(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket,
                                           const struct aclrt_task *task)
{
    (void)slot;
    aclrt_stream_publish(s, aclrt_ring_slot_of(&s->ring, ticket), ticket, task);
}

/* Submit one task record: the launch fast path. */
ACLRT_INLINE aclError aclrt_stream_submit(struct aclrt_stream *s, const struct aclrt_task *task, uint64_t *number)
{
    aclError rc;
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)) &&
        (rc = aclrt_stream_capture_task(s, task, number)) != ACLRT_CAPTURE_ENDED)
        return rc;
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
