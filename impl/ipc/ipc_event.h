/*
 * impl/ipc/ipc_event.h - IPC events: aclrtIpcGetEventHandle and
 * aclrtIpcOpenEventHandle. Stream waits on them: ipc_wait.h.
 *
 * An event created with ACL_EVENT_IPC has a shared segment (segment.h, event.h);
 * its handle is the segment's key, NUL-padded to ACL_IPC_EVENT_HANDLE_SIZE
 * bytes. Opening the handle in another process makes a local event on the
 * same segment: records made through either event are the same records,
 * and status, synchronize and stream waits of either look at the same word.
 */
#ifndef ACLRT_IMPL_IPC_IPC_EVENT_H
#define ACLRT_IMPL_IPC_IPC_EVENT_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../context/context.h"
#include "../shm/segment.h"
#include "../sync/event.h"
#include "../sync/event_life.h"

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle (output) is NULL");
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!(ACLRT_EVENT_INFO_FLAGS(v.info) & ACL_EVENT_IPC))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "event %p is not an IPC event (create it with aclrtCreateEventExWithFlag(ACL_EVENT_IPC))",
                          event);
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_event_ipc_seg(event, e, &seg)) != ACL_SUCCESS)
        return rc;
    _Static_assert(ACLRT_IPC_KEY_LEN < ACL_IPC_EVENT_HANDLE_SIZE, "a key fits in an event handle");
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, seg->key, ACLRT_IPC_KEY_LEN);
    aclrt_ipc_seg_unref(seg);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    ACLRT_ENTER();
    if (event == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "event (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx); /* before the segment: a call without a device opens nothing */
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_open(handle.reserved, sizeof handle.reserved, ACLRT_IPC_EVENT, &seg)) != ACL_SUCCESS)
        return rc;
    return aclrt_event_create_ipc(event, seg);
}

#endif /* ACLRT_IMPL_IPC_IPC_EVENT_H */
