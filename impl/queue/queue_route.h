/*
 * impl/queue/queue_route.h - routes between queues: bind, unbind, query.
 *
 * A route src -> dst is kept in both queues' shared headers (the source's
 * destinations, the destination's sources), so that any process enqueuing
 * into the source forwards (queue.h) and any process can query. Binding
 * refuses a route that would close a cycle, or that names no queue or the
 * same queue twice; each route's status says how it went (BIND, or UNBIND
 * for one that was refused), and the call fails if any was. Binding a
 * bound route again succeeds. Route changes of this process are serialised
 * by one lock (the runtime does not support concurrent calls either).
 */
#ifndef ACLRT_IMPL_QUEUE_QUEUE_ROUTE_H
#define ACLRT_IMPL_QUEUE_QUEUE_ROUTE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "queue_objects.h"
#include "queue_shared.h"
#include "queue.h"

static pthread_mutex_t aclrt_queue_route_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Lock two queues' headers (two qids), the lower qid first in every process
 * (the only place that holds two), so that binds in two processes cannot
 * deadlock.
 */
static void aclrt_queue_lock_pair(struct aclrt_queue_shared *a, struct aclrt_queue_shared *b)
{
    if (a->qid > b->qid) {
        struct aclrt_queue_shared *t = a;
        a = b;
        b = t;
    }
    aclrt_queue_lock(a);
    aclrt_queue_lock(b);
}

/* Does a message enqueued into `from` reach `to` along bound routes? */
static bool aclrt_queue_reaches(uint32_t from, uint32_t to, uint8_t *seen)
{
    if (from == to)
        return true;
    if (from >= ACLRT_QUEUE_MAX_QID || (seen[from / 8] >> (from % 8)) & 1)
        return false;
    seen[from / 8] |= (uint8_t)(1u << (from % 8));
    struct aclrt_queue_view *v = aclrt_queue_get(from, true);
    if (v == NULL)
        return false;
    uint32_t dst[ACLRT_QUEUE_MAX_ROUTES];
    aclrt_queue_lock(v->q);
    uint32_t n = v->q->ndst;
    memcpy(dst, v->q->dst, sizeof dst);
    aclrt_queue_unlock(v->q);
    aclrt_queue_put(v);
    for (uint32_t i = 0; i < n; i++)
        if (aclrt_queue_reaches(dst[i], to, seen))
            return true;
    return false;
}

static bool aclrt_queue_list_has(const uint32_t *list, uint32_t n, uint32_t qid)
{
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == qid)
            return true;
    return false;
}

/* Bind one route (under aclrt_queue_route_lock). */
static aclError aclrt_queue_bind_one(uint32_t src, uint32_t dst)
{
    if (src == dst)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the route %u -> %u has one queue at both ends", src, dst);
    struct aclrt_queue_view *s = aclrt_queue_get(src, true);
    struct aclrt_queue_view *d = s != NULL ? aclrt_queue_get(dst, true) : NULL;
    if (d == NULL) {
        if (s != NULL)
            aclrt_queue_put(s);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the route %u -> %u: qid %u is not a queue", src, dst,
                          s == NULL ? src : dst);
    }
    aclError rc = ACL_SUCCESS;
    uint8_t *seen = (uint8_t *)calloc(ACLRT_QUEUE_MAX_QID / 8, 1);
    if (seen == NULL)
        rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory to look for a cycle");
    else if (aclrt_queue_reaches(dst, src, seen))
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "the route %u -> %u would close a cycle", src, dst);
    free(seen);
    if (rc == ACL_SUCCESS) {
        aclrt_queue_lock_pair(s->q, d->q);
        bool bound = aclrt_queue_list_has(s->q->dst, s->q->ndst, dst);
        if (!bound && (s->q->ndst == ACLRT_QUEUE_MAX_ROUTES || d->q->nsrc == ACLRT_QUEUE_MAX_ROUTES)) {
            rc = ACL_ERROR_FAILURE;
        } else if (!bound) {
            s->q->dst[s->q->ndst++] = dst;
            if (!aclrt_queue_list_has(d->q->src, d->q->nsrc, src))
                d->q->src[d->q->nsrc++] = src;
        }
        aclrt_queue_unlock(d->q);
        aclrt_queue_unlock(s->q);
        if (rc != ACL_SUCCESS)
            aclrt_fail(rc, "the route %u -> %u: a queue has %u routes already", src, dst, ACLRT_QUEUE_MAX_ROUTES);
    }
    aclrt_queue_put(d);
    aclrt_queue_put(s);
    return rc;
}

/* Unbind one route (under aclrt_queue_route_lock). */
static aclError aclrt_queue_unbind_one(uint32_t src, uint32_t dst)
{
    if (src == dst) /* never bound; and one queue's lock cannot be taken twice */
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the route %u -> %u is not bound", src, dst);
    struct aclrt_queue_view *s = aclrt_queue_get(src, true);
    struct aclrt_queue_view *d = s != NULL ? aclrt_queue_get(dst, true) : NULL;
    if (d == NULL) {
        if (s != NULL)
            aclrt_queue_put(s);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the route %u -> %u: qid %u is not a queue", src, dst,
                          s == NULL ? src : dst);
    }
    aclrt_queue_lock_pair(s->q, d->q);
    bool bound = aclrt_queue_list_has(s->q->dst, s->q->ndst, dst);
    aclrt_queue_route_remove(s->q->dst, &s->q->ndst, dst);
    aclrt_queue_route_remove(d->q->src, &d->q->nsrc, src);
    aclrt_queue_unlock(d->q);
    aclrt_queue_unlock(s->q);
    aclrt_queue_put(d);
    aclrt_queue_put(s);
    if (!bound)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the route %u -> %u is not bound", src, dst);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
    ACLRT_ENTER();
    if (qRouteList == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL");
    if (qRouteList->count == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qRouteList holds no route");
    aclError first = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_queue_route_lock);
    for (size_t i = 0; i < qRouteList->count; i++) {
        struct acltdtQueueRoute *r = &qRouteList->routes[i];
        aclError rc = aclrt_queue_bind_one(r->srcId, r->dstId);
        r->status = rc == ACL_SUCCESS ? ACL_TDT_QUEUE_ROUTE_BIND : ACL_TDT_QUEUE_ROUTE_UNBIND;
        if (first == ACL_SUCCESS)
            first = rc;
    }
    pthread_mutex_unlock(&aclrt_queue_route_lock);
    return first;
}

ACLRT_API aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
    ACLRT_ENTER();
    if (qRouteList == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qRouteList is NULL");
    if (qRouteList->count == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qRouteList holds no route");
    aclError first = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_queue_route_lock);
    for (size_t i = 0; i < qRouteList->count; i++) {
        struct acltdtQueueRoute *r = &qRouteList->routes[i];
        aclError rc = aclrt_queue_unbind_one(r->srcId, r->dstId);
        if (rc == ACL_SUCCESS)
            r->status = ACL_TDT_QUEUE_ROUTE_UNBIND;
        if (first == ACL_SUCCESS)
            first = rc;
    }
    pthread_mutex_unlock(&aclrt_queue_route_lock);
    return first;
}

ACLRT_API aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
                                          acltdtQueueRouteList *qRouteList)
{
    ACLRT_ENTER();
    if (queryInfo == NULL || qRouteList == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", queryInfo == NULL ? "queryInfo" : "qRouteList");
    if (!queryInfo->has_mode)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the query has no mode (ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM)");
    acltdtQueueRouteQueryMode mode = queryInfo->mode;
    bool by_src = mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC || mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST;
    bool by_dst = mode == ACL_TDT_QUEUE_ROUTE_QUERY_DST || mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST;
    if ((by_src && !queryInfo->has_src) || (by_dst && !queryInfo->has_dst))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the query's mode %d needs its %s queue id", (int)mode,
                          by_src && !queryInfo->has_src ? "source" : "destination");
    qRouteList->count = 0;
    if (mode == ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL)
        return ACL_SUCCESS; /* a bound route never breaks here */
    uint32_t qid = by_src ? queryInfo->srcId : queryInfo->dstId;
    struct aclrt_queue_view *v = aclrt_queue_get(qid, true);
    if (v == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qid %u is not a queue", qid);
    uint32_t ids[ACLRT_QUEUE_MAX_ROUTES];
    aclrt_queue_lock(v->q);
    uint32_t n = by_src ? v->q->ndst : v->q->nsrc;
    memcpy(ids, by_src ? v->q->dst : v->q->src, sizeof ids);
    aclrt_queue_unlock(v->q);
    aclrt_queue_put(v);
    for (uint32_t i = 0; i < n; i++) {
        struct acltdtQueueRoute r = {by_src ? qid : ids[i], by_src ? ids[i] : qid, ACL_TDT_QUEUE_ROUTE_BIND};
        if (mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST && r.dstId != queryInfo->dstId)
            continue;
        if (!aclrt_route_list_push(qRouteList, r))
            return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for the routes found");
    }
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_QUEUE_QUEUE_ROUTE_H */
