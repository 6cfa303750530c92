/*
 * impl/prof/prof_tx.h - msproftx: stamps, instant marks, push/pop and
 * start/stop ranges, stream marks, tensor ranges, and aclprofStr2Id.
 *
 * The markers need a running session whose configuration has
 * ACL_PROF_MSPROFTX (ACL_ERROR_PROF_NOT_RUN otherwise); a stamp is made in
 * one and lives until aclprofDestroyStamp. Stamps are kept in a list, so a
 * NULL, destroyed or foreign stamp is ACL_ERROR_INVALID_PARAM.
 *
 * aclprofPush copies the stamp's message and the time into the list of
 * open markers (prof_trace.h), owned by the calling thread; aclprofPop
 * ends the thread's latest push and adds the range. A range of
 * aclprofRangeStart is found by its id, from any thread. A stop drops
 * what is still open: aclprofPop and aclprofRangeStop find nothing of an
 * earlier session. aclprofRangePushEx .. aclprofRangePop is a second
 * per-thread stack: the
 * range is named after the op (its opNameId looked up in the aclprofStr2Id
 * dictionary) and carries its ids and tensor count.
 */
#ifndef ACLRT_IMPL_PROF_PROF_TX_H
#define ACLRT_IMPL_PROF_PROF_TX_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "prof_trace.h"
#include "prof_marker.h"

#define ACLRT_PROF_MSG_MAX 127 /* bytes of a marker's message */

struct aclrt_prof_stamp {
    char msg[ACLRT_PROF_MSG_MAX + 1];
    struct aclrt_prof_stamp *next;
};

static struct aclrt_prof_stamp *aclrt_prof_stamps;   /* the live stamps, under aclrt_prof.lock */
static uint32_t aclrt_prof_range_ids;                /* the last range id given, under aclrt_prof.lock */
static uint64_t aclrt_prof_mark_ex_ids;              /* the last aclprofMarkEx id, under aclrt_prof.lock */
/* The categories of open markers: compared by address. */
static const char aclrt_prof_cat_push[] = "push", aclrt_prof_cat_range[] = "range", aclrt_prof_cat_tensor[] = "tensor";

/* Does a session take msproftx markers? Caller holds the lock; an error (with message) if not. */
static aclError aclrt_prof_tx_ready_locked(void)
{
    if (!aclrt_prof.running || aclrt_prof.stopping)
        return aclrt_fail(ACL_ERROR_PROF_NOT_RUN, "no profiling session runs (aclprofStart first)");
    if (!aclrt_prof.tx_on)
        return aclrt_fail(ACL_ERROR_PROF_NOT_RUN,
                          "the running profiling session does not collect msproftx (ACL_PROF_MSPROFTX)");
    return ACL_SUCCESS;
}

/* Is stamp live? Caller holds the lock; an error (with message) if not. */
static aclError aclrt_prof_stamp_check_locked(const void *stamp)
{
    if (stamp == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stamp is NULL");
    for (const struct aclrt_prof_stamp *it = aclrt_prof_stamps; it != NULL; it = it->next)
        if (it == stamp)
            return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a stamp (or was destroyed)", stamp);
}

ACLRT_API void *aclprofCreateStamp(void)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_prof.lock);
    struct aclrt_prof_stamp *st = NULL;
    if (aclrt_prof_tx_ready_locked() == ACL_SUCCESS) {
        st = (struct aclrt_prof_stamp *)calloc(1, sizeof *st);
        if (st == NULL) {
            aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory creating a stamp");
        } else {
            st->next = aclrt_prof_stamps;
            aclrt_prof_stamps = st;
        }
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return st;
}

ACLRT_API void aclprofDestroyStamp(void *stamp)
{
    ACLRT_ENTER();
    if (stamp == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "stamp is NULL");
        return;
    }
    pthread_mutex_lock(&aclrt_prof.lock);
    struct aclrt_prof_stamp **at = &aclrt_prof_stamps;
    while (*at != NULL && *at != stamp)
        at = &(*at)->next;
    struct aclrt_prof_stamp *st = *at;
    if (st != NULL)
        *at = st->next;
    pthread_mutex_unlock(&aclrt_prof.lock);
    if (st == NULL)
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a stamp (or was destroyed)", stamp);
    free(st);
}

ACLRT_API aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
    ACLRT_ENTER();
    if (msg == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "msg is NULL");
    if (msgLen > ACLRT_PROF_MSG_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "msgLen %u is more than %d", msgLen, ACLRT_PROF_MSG_MAX);
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_stamp_check_locked(stamp);
    if (rc == ACL_SUCCESS) {
        struct aclrt_prof_stamp *st = (struct aclrt_prof_stamp *)stamp;
        size_t n = strnlen(msg, msgLen);
        memcpy(st->msg, msg, n);
        st->msg[n] = '\0';
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofMark(void *stamp)
{
    ACLRT_ENTER();
    struct aclrt_prof_mark m = {.begin_ns = aclrt_now_ns(), .cat = "mark", .ph = 'i', .tid = aclrt_thread_tid()};
    m.end_ns = m.begin_ns;
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    if (rc == ACL_SUCCESS)
        rc = aclrt_prof_stamp_check_locked(stamp);
    if (rc == ACL_SUCCESS) {
        memcpy(m.msg, ((const struct aclrt_prof_stamp *)stamp)->msg, sizeof m.msg);
        aclrt_prof_add_mark_locked(&m);
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
    ACLRT_ENTER();
    if (msg == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "msg is NULL");
    if (msgLen == 0 || msgLen > ACLRT_PROF_MSG_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "msgLen %zu is not in [1, %d]", msgLen, ACLRT_PROF_MSG_MAX);
    if (strnlen(msg, msgLen + 1) != msgLen)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "msgLen %zu is not the length of msg", msgLen);
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    uint64_t id = rc == ACL_SUCCESS ? ++aclrt_prof_mark_ex_ids : 0;
    pthread_mutex_unlock(&aclrt_prof.lock);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The stream's marker first: a bad stream leaves no host marker behind. */
    rc = aclrt_prof_stream_mark(stream, "markEx", aclrt_prof_intern(msg, msgLen, NULL), id, 0, 0);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_prof_mark m = {.begin_ns = aclrt_now_ns(), .cat = "markEx", .ph = 'i', .a = id};
    m.end_ns = m.begin_ns;
    memcpy(m.msg, msg, msgLen);
    aclrt_prof_host_mark(&m);
    return ACL_SUCCESS;
}

/* Begin a range: a copy of stamp's message and the time (caller holds the lock, stamp checked). */
static struct aclrt_prof_open *aclrt_prof_open_locked(const void *stamp, const char *cat)
{
    struct aclrt_prof_open *o = (struct aclrt_prof_open *)calloc(1, sizeof *o);
    if (o == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory beginning a range");
        return NULL;
    }
    o->mark.begin_ns = aclrt_now_ns();
    o->mark.cat = cat;
    o->mark.ph = 'X';
    if (stamp != NULL)
        memcpy(o->mark.msg, ((const struct aclrt_prof_stamp *)stamp)->msg, sizeof o->mark.msg);
    o->owner = aclrt_thread_tid();
    o->next = aclrt_prof.open;
    aclrt_prof.open = o;
    return o;
}

/* End the open marker at *at now, on the calling thread (caller holds the lock; it is unlinked and freed). */
static void aclrt_prof_close_locked(struct aclrt_prof_open **at)
{
    struct aclrt_prof_open *o = *at;
    *at = o->next;
    o->mark.end_ns = aclrt_now_ns();
    o->mark.tid = aclrt_thread_tid();
    aclrt_prof_add_mark_locked(&o->mark);
    free(o);
}

/* The open marker of category cat: the calling thread's latest (by_id false) or range `id`; NULL: none. */
static struct aclrt_prof_open **aclrt_prof_find_open_locked(const char *cat, bool by_id, uint32_t id)
{
    uint32_t me = aclrt_thread_tid();
    struct aclrt_prof_open **at = &aclrt_prof.open;
    while (*at != NULL && !((*at)->mark.cat == cat && (by_id ? (*at)->id == id : (*at)->owner == me)))
        at = &(*at)->next;
    return *at != NULL ? at : NULL;
}

ACLRT_API aclError aclprofPush(void *stamp)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    if (rc == ACL_SUCCESS)
        rc = aclrt_prof_stamp_check_locked(stamp);
    if (rc == ACL_SUCCESS) {
        if (aclrt_prof_open_locked(stamp, aclrt_prof_cat_push) == NULL)
            rc = ACL_ERROR_BAD_ALLOC;
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

/* End the calling thread's latest open marker of category cat. */
static aclError aclrt_prof_pop(const char *cat, const char *what)
{
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    struct aclrt_prof_open **at = rc == ACL_SUCCESS ? aclrt_prof_find_open_locked(cat, false, 0) : NULL;
    if (rc == ACL_SUCCESS && at == NULL)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "this thread has no %s to pop (in this session)", what);
    if (rc == ACL_SUCCESS)
        aclrt_prof_close_locked(at);
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofPop(void)
{
    ACLRT_ENTER();
    return aclrt_prof_pop(aclrt_prof_cat_push, "aclprofPush");
}

ACLRT_API aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
    ACLRT_ENTER();
    if (rangeId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "rangeId is NULL");
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    if (rc == ACL_SUCCESS)
        rc = aclrt_prof_stamp_check_locked(stamp);
    if (rc == ACL_SUCCESS) {
        struct aclrt_prof_open *o = aclrt_prof_open_locked(stamp, aclrt_prof_cat_range);
        if (o == NULL) {
            rc = ACL_ERROR_BAD_ALLOC;
        } else {
            if (++aclrt_prof_range_ids == 0) /* 0 is never an id */
                aclrt_prof_range_ids = 1;
            o->id = aclrt_prof_range_ids;
            o->mark.a = o->id;
            *rangeId = o->id;
        }
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofRangeStop(uint32_t rangeId)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    if (rc == ACL_SUCCESS) {
        struct aclrt_prof_open **at = aclrt_prof_find_open_locked(aclrt_prof_cat_range, true, rangeId);
        if (at == NULL)
            rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "range %u was not started in this session (or was stopped)",
                            rangeId);
        else
            aclrt_prof_close_locked(at);
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofRangePushEx(aclprofEventAttributes *attr)
{
    ACLRT_ENTER();
    if (attr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attr is NULL");
    if (attr->version == 0 || attr->size < sizeof *attr)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attr's version %u or size %u is not an aclprofEventAttributes",
                          (unsigned)attr->version, (unsigned)attr->size);
    if (attr->messageType != ACL_PROF_MESSAGE_TYPE_TENSOR_INFO)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "messageType %u is not ACL_PROF_MESSAGE_TYPE_TENSOR_INFO",
                          attr->messageType);
    const aclprofTensorInfo *info = attr->message.tensorInfo;
    if (info == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attr's tensorInfo is NULL");
    if (info->tensorNum != 0 && info->tensors == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensorInfo's tensors is NULL (tensorNum %u)", info->tensorNum);
    for (uint32_t i = 0; i < info->tensorNum; i++)
        if (info->tensors[i].shapeDim > ACL_PROF_TENSOR_DATA_SHAPE_LEN)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensor %u's shapeDim %u is more than %d", i,
                              info->tensors[i].shapeDim, ACL_PROF_TENSOR_DATA_SHAPE_LEN);
    char name[ACLRT_PROF_MSG_MAX + 1];
    if (!aclrt_prof_lookup(info->opNameId, name, sizeof name))
        name[0] = '\0';
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof_tx_ready_locked();
    if (rc == ACL_SUCCESS) {
        struct aclrt_prof_open *o = aclrt_prof_open_locked(NULL, aclrt_prof_cat_tensor);
        if (o == NULL) {
            rc = ACL_ERROR_BAD_ALLOC;
        } else {
            memcpy(o->mark.msg, name, sizeof name);
            o->mark.a = info->opNameId;
            o->mark.b = info->opTypeId;
            o->mark.c = info->tensorNum;
        }
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofRangePop(void)
{
    ACLRT_ENTER();
    return aclrt_prof_pop(aclrt_prof_cat_tensor, "aclprofRangePushEx");
}

ACLRT_API uint64_t aclprofStr2Id(const char *message)
{
    ACLRT_ENTER();
    if (message == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "message is NULL");
        return 0;
    }
    uint64_t id = 0;
    (void)aclrt_prof_intern(message, strlen(message), &id);
    return id;
}

#endif /* ACLRT_IMPL_PROF_PROF_TX_H */
