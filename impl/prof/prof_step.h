/*
 * impl/prof/prof_step.h - iteration steps (aclprofCreateStepInfo,
 * aclprofGetStepTimestamp) and trace records (aclrtProfTrace): markers put
 * into a stream's order (prof_marker.h).
 *
 * A step info is numbered when made (0, 1, ... in the process); its start
 * and its end are each recorded once (a second one is
 * ACL_ERROR_INVALID_PARAM), as instant events "step N start" / "step N end"
 * on the stream when it reaches them. They need no session: outside one
 * the stream passes them and nothing is recorded. Step infos are kept in a
 * list, so a NULL, destroyed or foreign one is refused, never a crash.
 */
#ifndef ACLRT_IMPL_PROF_PROF_STEP_H
#define ACLRT_IMPL_PROF_PROF_STEP_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "prof_trace.h"
#include "prof_marker.h"

struct aclprofStepInfo {
    uint64_t index;
    bool started, ended;
    struct aclprofStepInfo *next;
};

static struct aclprofStepInfo *aclrt_prof_steps; /* the live ones, under aclrt_prof.lock */
static uint64_t aclrt_prof_step_count;           /* step infos made, under aclrt_prof.lock */

/* The packed record of aclrtProfTrace. */
#define ACLRT_PROF_TRACE_RECORD 18

ACLRT_API aclprofStepInfo *aclprofCreateStepInfo(void)
{
    ACLRT_ENTER();
    struct aclprofStepInfo *st = (struct aclprofStepInfo *)calloc(1, sizeof *st);
    if (st == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory creating a step info");
        return NULL;
    }
    pthread_mutex_lock(&aclrt_prof.lock);
    st->index = aclrt_prof_step_count++;
    st->next = aclrt_prof_steps;
    aclrt_prof_steps = st;
    pthread_mutex_unlock(&aclrt_prof.lock);
    return st;
}

ACLRT_API void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
    ACLRT_ENTER();
    if (stepinfo == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "stepinfo is NULL");
        return;
    }
    pthread_mutex_lock(&aclrt_prof.lock);
    struct aclprofStepInfo **at = &aclrt_prof_steps;
    while (*at != NULL && *at != stepinfo)
        at = &(*at)->next;
    struct aclprofStepInfo *st = *at;
    if (st != NULL)
        *at = st->next;
    pthread_mutex_unlock(&aclrt_prof.lock);
    if (st == NULL)
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a step info (or was destroyed)", (void *)stepinfo);
    free(st);
}

ACLRT_API aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream)
{
    ACLRT_ENTER();
    if (stepInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stepInfo is NULL");
    if (tag != ACL_STEP_START && tag != ACL_STEP_END)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tag %d is not ACL_STEP_START or ACL_STEP_END", (int)tag);
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = ACL_SUCCESS;
    struct aclprofStepInfo *st = aclrt_prof_steps;
    while (st != NULL && st != stepInfo)
        st = st->next;
    uint64_t index = 0;
    if (st == NULL)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a step info (or was destroyed)", (void *)stepInfo);
    else if (tag == ACL_STEP_START && st->started)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "step %llu has started already", (unsigned long long)st->index);
    else if (tag == ACL_STEP_END && st->ended)
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "step %llu has ended already", (unsigned long long)st->index);
    else
        index = st->index;
    pthread_mutex_unlock(&aclrt_prof.lock);
    if (rc != ACL_SUCCESS)
        return rc;
    char msg[48];
    snprintf(msg, sizeof msg, "step %llu %s", (unsigned long long)index, tag == ACL_STEP_START ? "start" : "end");
    rc = aclrt_prof_stream_mark(stream, "step", aclrt_prof_intern(msg, strlen(msg), NULL), index, (uint64_t)tag, 0);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Flag it only now: a refused stream leaves the step as it was. The step is the caller's (one thread). */
    pthread_mutex_lock(&aclrt_prof.lock);
    for (st = aclrt_prof_steps; st != NULL; st = st->next)
        if (st == stepInfo) {
            if (tag == ACL_STEP_START)
                st->started = true;
            else
                st->ended = true;
        }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream)
{
    ACLRT_ENTER();
    if (userdata == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "userdata is NULL");
    if (length <= 0 || length > ACLRT_PROF_TRACE_RECORD)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "length %d is not in (0, %d]", (int)length,
                          ACLRT_PROF_TRACE_RECORD);
    unsigned char rec[ACLRT_PROF_TRACE_RECORD] = {0};
    memcpy(rec, userdata, (size_t)length);
    uint64_t id, model;
    uint16_t tag;
    memcpy(&id, rec, 8);
    memcpy(&model, rec + 8, 8);
    memcpy(&tag, rec + 16, 2);
    return aclrt_prof_stream_mark(stream, "trace", NULL, id, model, tag);
}

#endif /* ACLRT_IMPL_PROF_PROF_STEP_H */
