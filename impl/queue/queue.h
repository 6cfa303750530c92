/*
 * impl/queue/queue.h - shared queues: create, destroy, enqueue, dequeue,
 * grant and attach, and this process's table of the queues it uses.
 *
 * The table maps a qid to this process's view of the queue's segment
 * (queue_shared.h) and to what the process may do with it: everything for
 * the creator, what a grant gave once the process has attached, nothing
 * for a queue mapped only to forward messages along a route. A view is
 * counted while a call uses it; destroying the queue (here, or seen
 * destroyed by another process) retires the view, and the last user unmaps
 * it. A child process made by fork() keeps the mappings but not the
 * rights: the table notices the new pid and clears them.
 *
 * Enqueuing writes the message (queue_msg.h) to a message object, then
 * waits for room; a queue that routes elsewhere passes the message to each
 * destination instead (with the same timeout), so what is enqueued after
 * acltdtBindQueueRoutes reaches the destinations. A queue's name, when the
 * attribute gives one, is claimed by the object /aclrt-tdtn-<uid>-<hash>
 * holding the creator's pid: a second live queue of the same name is
 * ACL_ERROR_INVALID_PARAM, the name of a dead creator is taken over.
 */
#ifndef ACLRT_IMPL_QUEUE_QUEUE_H
#define ACLRT_IMPL_QUEUE_QUEUE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "mbuf.h"
#include "queue_objects.h"
#include "queue_shared.h"
#include "queue_msg.h"

#include <fcntl.h>
#include <sys/mman.h>

#define ACLRT_QUEUE_MAX_HOPS 16u /* routes a message may follow */

struct aclrt_queue_view {
    uint32_t qid;
    uint32_t perm;  /* ACL_TDT_QUEUE_PERMISSION_* this process holds */
    uint32_t users; /* calls using the view, plus one while it is not retired */
    bool retired;
    struct aclrt_queue_shared *q;
    size_t bytes;
    struct aclrt_queue_view *next;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_queue_view *list;
    pid_t pid;
    uint32_t next_qid; /* where the next creation starts looking */
} aclrt_queues = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void aclrt_queue_view_unref_locked(struct aclrt_queue_view *v)
{
    if (--v->users > 0)
        return;
    for (struct aclrt_queue_view **pp = &aclrt_queues.list; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == v) {
            *pp = v->next;
            break;
        }
    }
    munmap(v->q, v->bytes);
    free(v);
}

static void aclrt_queue_retire_locked(struct aclrt_queue_view *v)
{
    if (!v->retired) {
        v->retired = true;
        aclrt_queue_view_unref_locked(v);
    }
}

/*
 * This process's view of `qid`, counted (aclrt_queue_put ends the use), or
 * NULL. `open`: map a queue the table does not hold yet (with no rights).
 */
ACLRT_INTERNAL struct aclrt_queue_view *aclrt_queue_get(uint32_t qid, bool open)
{
    pthread_mutex_lock(&aclrt_queues.lock);
    if (aclrt_queues.pid != getpid()) { /* a child of fork(): the rights were the parent's */
        aclrt_queues.pid = getpid();
        for (struct aclrt_queue_view *v = aclrt_queues.list; v != NULL; v = v->next)
            v->perm = 0;
    }
    struct aclrt_queue_view *found = NULL;
    for (struct aclrt_queue_view *v = aclrt_queues.list, *next; v != NULL; v = next) {
        next = v->next;
        if (v->qid != qid || v->retired)
            continue;
        aclrt_queue_lock(v->q);
        bool gone = v->q->destroyed != 0;
        aclrt_queue_unlock(v->q);
        if (gone) {
            aclrt_queue_retire_locked(v);
            continue;
        }
        found = v;
        break;
    }
    if (found == NULL && open) {
        size_t bytes;
        struct aclrt_queue_shared *q = aclrt_queue_map(qid, &bytes);
        if (q != NULL) {
            found = (struct aclrt_queue_view *)calloc(1, sizeof *found);
            if (found == NULL) {
                munmap(q, bytes);
            } else {
                *found = (struct aclrt_queue_view){qid, 0, 1, false, q, bytes, aclrt_queues.list};
                aclrt_queues.list = found;
            }
        }
    }
    if (found != NULL)
        found->users++;
    pthread_mutex_unlock(&aclrt_queues.lock);
    return found;
}

ACLRT_INTERNAL void aclrt_queue_put(struct aclrt_queue_view *v)
{
    pthread_mutex_lock(&aclrt_queues.lock);
    aclrt_queue_view_unref_locked(v);
    pthread_mutex_unlock(&aclrt_queues.lock);
}

/* The view (*out, counted) of a queue this process may use for `need`. */
static aclError aclrt_queue_use(uint32_t qid, uint32_t need, const char *what, struct aclrt_queue_view **out)
{
    struct aclrt_queue_view *v = aclrt_queue_get(qid, true);
    if (v == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qid %u is not a queue", qid);
    pthread_mutex_lock(&aclrt_queues.lock);
    uint32_t perm = v->perm;
    pthread_mutex_unlock(&aclrt_queues.lock);
    if ((perm & need) != need) {
        aclrt_queue_put(v);
        return aclrt_fail(ACL_ERROR_RT_NO_PERMISSION,
                          "this process may not %s queue %u (create it, or be granted it and attach)", what, qid);
    }
    *out = v;
    return ACL_SUCCESS;
}

static aclError aclrt_queue_check_timeout(int32_t timeout)
{
    if (timeout < -1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1, 0 or milliseconds)", (int)timeout);
    return ACL_SUCCESS;
}

/* ---- names ---- */

static void aclrt_queue_name_path(char *out, size_t n, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    snprintf(out, n, "/aclrt-tdtn-%u-%016llx", (unsigned)getuid(), (unsigned long long)h);
}

/* Claim `name` for this process (ACL_ERROR_INVALID_PARAM while a live process holds it). */
static aclError aclrt_queue_name_claim(const char *name)
{
    char path[64];
    aclrt_queue_name_path(path, sizeof path, name);
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            int32_t pid = (int32_t)getpid();
            ssize_t w = write(fd, &pid, sizeof pid);
            close(fd);
            if (w == (ssize_t)sizeof pid)
                return ACL_SUCCESS;
            shm_unlink(path);
            return aclrt_fail(ACL_ERROR_FAILURE, "the name \"%s\" could not be recorded", name);
        }
        if (errno != EEXIST)
            return aclrt_fail(ACL_ERROR_FAILURE, "shm_open(%s) failed: %s", path, strerror(errno));
        int32_t holder = 0;
        fd = shm_open(path, O_RDONLY | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (read(fd, &holder, sizeof holder) != (ssize_t)sizeof holder)
                holder = 0;
            close(fd);
        }
        if (holder == 0 || aclrt_queue_pid_alive(holder))
            break;
        shm_unlink(path); /* its creator has died: take the name over */
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "a queue named \"%s\" exists", name);
}

static void aclrt_queue_name_release(const char *name)
{
    char path[64];
    aclrt_queue_name_path(path, sizeof path, name);
    shm_unlink(path);
}

/* ---- moving messages ---- */

/* Put a message block into `q`, or along its routes. */
static aclError aclrt_queue_push(struct aclrt_queue_shared *q, const void *block, size_t n, uint64_t bytes,
                                 int32_t timeout, uint32_t hops)
{
    uint32_t dst[ACLRT_QUEUE_MAX_ROUTES];
    aclrt_queue_lock(q);
    uint32_t ndst = q->ndst, qid = q->qid, destroyed = q->destroyed;
    memcpy(dst, q->dst, sizeof dst);
    aclrt_queue_unlock(q);
    if (destroyed)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "queue %u was destroyed", qid);
    if (ndst > 0) {
        if (hops >= ACLRT_QUEUE_MAX_HOPS)
            return aclrt_fail(ACL_ERROR_FAILURE, "a message followed %u routes from queue %u", hops, qid);
        for (uint32_t i = 0; i < ndst; i++) {
            struct aclrt_queue_view *d = aclrt_queue_get(dst[i], true);
            if (d == NULL)
                continue; /* destroyed meanwhile: the route is gone */
            aclError rc = aclrt_queue_push(d->q, block, n, bytes, timeout, hops + 1);
            aclrt_queue_put(d);
            if (rc != ACL_SUCCESS)
                return rc;
        }
        return ACL_SUCCESS;
    }
    struct aclrt_queue_slot slot;
    aclError rc = aclrt_queue_msg_write(block, n, bytes, &slot);
    if (rc != ACL_SUCCESS)
        return rc;
    struct timespec deadline = timeout > 0 ? aclrt_queue_deadline(timeout) : (struct timespec){0, 0};
    aclrt_queue_lock(q);
    while (!q->destroyed && q->count == q->depth && aclrt_queue_wait(q, timeout, &deadline))
        ;
    if (q->destroyed) {
        rc = ACL_ERROR_INVALID_PARAM;
    } else if (q->count == q->depth) {
        rc = ACL_ERROR_RT_QUEUE_FULL;
    } else {
        q->ring[(q->head + q->count) % q->depth] = slot;
        q->count++;
        pthread_cond_broadcast(&q->changed);
    }
    aclrt_queue_unlock(q);
    if (rc != ACL_SUCCESS) {
        aclrt_queue_msg_drop(&slot);
        if (rc == ACL_ERROR_RT_QUEUE_FULL)
            return aclrt_fail(rc, "queue %u is full (depth %u; timeout %d ms)", qid, q->depth, (int)timeout);

        return aclrt_fail(rc, "queue %u was destroyed", qid);
    }
    return ACL_SUCCESS;
}

/*
 * Take the oldest message of `q` whose data fits `cap` bytes: its block
 * (malloc'd) and size. A message larger than `cap` stays; *need says its size.
 */
static aclError aclrt_queue_pop(struct aclrt_queue_shared *q, int32_t timeout, uint64_t cap, void **block,
                                size_t *n, uint64_t *need)
{
    struct timespec deadline = timeout > 0 ? aclrt_queue_deadline(timeout) : (struct timespec){0, 0};
    struct aclrt_queue_slot slot = {0, 0, 0, 0};
    aclError rc = ACL_SUCCESS;
    aclrt_queue_lock(q);
    uint32_t qid = q->qid;
    while (!q->destroyed && q->count == 0 && aclrt_queue_wait(q, timeout, &deadline))
        ;
    bool destroyed = q->destroyed != 0;
    if (destroyed) {
        rc = ACL_ERROR_INVALID_PARAM;
    } else if (q->count == 0) {
        rc = ACL_ERROR_RT_QUEUE_EMPTY;
    } else if (q->ring[q->head].bytes > cap) {
        *need = q->ring[q->head].bytes;
        rc = ACL_ERROR_INVALID_PARAM;
    } else {
        slot = q->ring[q->head];
        q->head = (q->head + 1) % q->depth;
        q->count--;
        pthread_cond_broadcast(&q->changed);
    }
    aclrt_queue_unlock(q);
    if (rc == ACL_ERROR_RT_QUEUE_EMPTY)
        return aclrt_fail(rc, "queue %u is empty (timeout %d ms)", qid, (int)timeout);
    if (destroyed)
        return aclrt_fail(rc, "queue %u was destroyed", qid);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "the next message of queue %u has %llu bytes, more than dataSize %llu", qid,
                          (unsigned long long)*need, (unsigned long long)cap);
    *need = slot.bytes;
    return aclrt_queue_msg_take(&slot, block, n);
}

/* ---- the calls ---- */

ACLRT_API aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid)
{
    ACLRT_ENTER();
    if (qid == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qid is NULL");
    const char *name = attr != NULL ? attr->name : "";
    uint32_t depth = attr != NULL ? attr->depth : ACLRT_QUEUE_DEFAULT_DEPTH;
    if (name[0] != '\0') {
        aclError rc = aclrt_queue_name_claim(name);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    pthread_mutex_lock(&aclrt_queues.lock);
    uint32_t start = aclrt_queues.next_qid;
    pthread_mutex_unlock(&aclrt_queues.lock);
    struct aclrt_queue_shared *q = NULL;
    size_t bytes = 0;
    uint32_t id = 0;
    aclError rc = aclrt_queue_create_shared(depth, name, start, &q, &bytes, &id);
    struct aclrt_queue_view *v = NULL;
    if (rc == ACL_SUCCESS) {
        v = (struct aclrt_queue_view *)calloc(1, sizeof *v);
        if (v == NULL) {
            char shm[64];
            aclrt_queue_shm_name(shm, sizeof shm, id);
            shm_unlink(shm);
            munmap(q, bytes);
            rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "no memory for a queue");
        }
    }
    if (rc != ACL_SUCCESS) {
        if (name[0] != '\0')
            aclrt_queue_name_release(name);
        return rc;
    }
    pthread_mutex_lock(&aclrt_queues.lock);
    if (aclrt_queues.pid != getpid()) {
        aclrt_queues.pid = getpid();
        for (struct aclrt_queue_view *o = aclrt_queues.list; o != NULL; o = o->next)
            o->perm = 0;
    }
    *v = (struct aclrt_queue_view){id, ACLRT_QUEUE_PERM_ALL, 1, false, q, bytes, aclrt_queues.list};
    aclrt_queues.list = v;
    aclrt_queues.next_qid = (id + 1) % ACLRT_QUEUE_MAX_QID;
    pthread_mutex_unlock(&aclrt_queues.lock);
    *qid = id;
    return ACL_SUCCESS;
}

/* Remove `qid` from the route list `list` of length *n (under the queue's lock). */
ACLRT_INTERNAL void aclrt_queue_route_remove(uint32_t *list, uint32_t *n, uint32_t qid)
{
    for (uint32_t i = 0; i < *n; i++) {
        if (list[i] == qid) {
            list[i] = list[--*n];
            return;
        }
    }
}

ACLRT_API aclError acltdtDestroyQueue(uint32_t qid)
{
    ACLRT_ENTER();
    struct aclrt_queue_view *v = NULL;
    aclError rc = aclrt_queue_use(qid, ACL_TDT_QUEUE_PERMISSION_MANAGE, "destroy", &v);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_queue_shared *q = v->q;
    uint32_t src[ACLRT_QUEUE_MAX_ROUTES], dst[ACLRT_QUEUE_MAX_ROUTES], nsrc, ndst;
    char name[ACLRT_QUEUE_NAME_LEN];
    aclrt_queue_lock(q);
    q->destroyed = 1;
    for (uint32_t i = 0; i < q->count; i++)
        aclrt_queue_msg_drop(&q->ring[(q->head + i) % q->depth]);
    q->count = 0;
    nsrc = q->nsrc;
    ndst = q->ndst;
    memcpy(src, q->src, sizeof src);
    memcpy(dst, q->dst, sizeof dst);
    q->nsrc = q->ndst = 0;
    memcpy(name, q->name, sizeof name);
    bool named = q->named != 0;
    pthread_cond_broadcast(&q->changed); /* waiters see it destroyed */
    aclrt_queue_unlock(q);
    char shm[64];
    aclrt_queue_shm_name(shm, sizeof shm, qid);
    shm_unlink(shm);
    if (named)
        aclrt_queue_name_release(name);
    /* The routes into and out of it end with it. */
    for (uint32_t i = 0; i < nsrc + ndst; i++) {
        struct aclrt_queue_view *o = aclrt_queue_get(i < nsrc ? src[i] : dst[i - nsrc], true);
        if (o == NULL)
            continue;
        aclrt_queue_lock(o->q);
        if (i < nsrc)
            aclrt_queue_route_remove(o->q->dst, &o->q->ndst, qid);
        else
            aclrt_queue_route_remove(o->q->src, &o->q->nsrc, qid);
        aclrt_queue_unlock(o->q);
        aclrt_queue_put(o);
    }
    pthread_mutex_lock(&aclrt_queues.lock);
    aclrt_queue_retire_locked(v);
    aclrt_queue_view_unref_locked(v);
    pthread_mutex_unlock(&aclrt_queues.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout)
{
    ACLRT_ENTER();
    aclError rc = aclrt_queue_check_timeout(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (buf == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    struct aclrt_queue_view *v = NULL;
    rc = aclrt_queue_use(qid, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, "enqueue into", &v);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t n = 0;
    uint64_t bytes = 0;
    void *block = NULL;
    rc = aclrt_qmsg_from_chain(buf, &block, &n, &bytes);
    if (rc != ACL_SUCCESS) {
        aclrt_queue_put(v);
        return rc;
    }
    rc = aclrt_queue_push(v->q, block, n, bytes, timeout, 0);
    free(block);
    aclrt_queue_put(v);
    if (rc == ACL_SUCCESS) { /* the queue holds the message now: the chain is spent */
        aclrt_mbuf_lock();
        struct aclrt_mbuf *m = aclrt_mbuf_find(buf);
        if (m != NULL && m->owner == NULL)
            aclrt_mbuf_free_chain(m);
        aclrt_mbuf_unlock();
    }
    return rc;
}

ACLRT_API aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout)
{
    ACLRT_ENTER();
    aclError rc = aclrt_queue_check_timeout(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (buf == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "buf is NULL");
    struct aclrt_queue_view *v = NULL;
    rc = aclrt_queue_use(qid, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, "dequeue from", &v);
    if (rc != ACL_SUCCESS)
        return rc;
    void *block = NULL;
    size_t n = 0;
    uint64_t need = 0;
    rc = aclrt_queue_pop(v->q, timeout, UINT64_MAX, &block, &n, &need);
    aclrt_queue_put(v);
    if (rc != ACL_SUCCESS)
        return rc;
    void *chain = NULL;
    rc = aclrt_qmsg_to_chain(block, n, &chain);
    free(block);
    if (rc == ACL_SUCCESS)
        *buf = chain;
    return rc;
}

ACLRT_API aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize, const void *userData,
                                     size_t userDataSize, int32_t timeout, uint32_t rsv)
{
    ACLRT_ENTER();
    (void)rsv; /* reserved */
    aclError rc = aclrt_queue_check_timeout(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (data == NULL || dataSize == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, data == NULL ? "data is NULL" : "dataSize is 0");
    if (userDataSize > ACLRT_MBUF_USER_DATA_SIZE || (userDataSize > 0 && userData == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "userDataSize %zu is invalid (at most %u, with userData)",
                          userDataSize, ACLRT_MBUF_USER_DATA_SIZE);
    struct aclrt_queue_view *v = NULL;
    rc = aclrt_queue_use(qid, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, "enqueue into", &v);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t n;
    void *block = aclrt_qmsg_from_data(data, dataSize, userData, userDataSize, &n);
    rc = block != NULL ? aclrt_queue_push(v->q, block, n, dataSize, timeout, 0) : ACL_ERROR_BAD_ALLOC;
    free(block);
    aclrt_queue_put(v);
    return rc;
}

ACLRT_API aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize, size_t *retDataSize,
                                     void *userData, size_t userDataSize, int32_t timeout)
{
    ACLRT_ENTER();
    aclError rc = aclrt_queue_check_timeout(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (data == NULL || retDataSize == NULL || dataSize == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s",
                          data == NULL ? "data is NULL" : retDataSize == NULL ? "retDataSize is NULL"
                                                                              : "dataSize is 0");
    if (userDataSize > ACLRT_MBUF_USER_DATA_SIZE || (userDataSize > 0 && userData == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "userDataSize %zu is invalid (at most %u, with userData)",
                          userDataSize, ACLRT_MBUF_USER_DATA_SIZE);
    struct aclrt_queue_view *v = NULL;
    rc = aclrt_queue_use(qid, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, "dequeue from", &v);
    if (rc != ACL_SUCCESS)
        return rc;
    void *block = NULL;
    size_t n = 0;
    uint64_t need = 0;
    rc = aclrt_queue_pop(v->q, timeout, dataSize, &block, &n, &need);
    aclrt_queue_put(v);
    if (rc == ACL_ERROR_INVALID_PARAM && need > dataSize)
        *retDataSize = (size_t)need;
    if (rc != ACL_SUCCESS)
        return rc;
    size_t written = 0;
    rc = aclrt_qmsg_to_data(block, n, data, dataSize, userData, userDataSize, &written);
    free(block);
    if (rc == ACL_SUCCESS)
        *retDataSize = written;
    return rc;
}

ACLRT_API aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission, int32_t timeout)
{
    ACLRT_ENTER();
    aclError rc = aclrt_queue_check_timeout(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (pid <= 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pid %d is not a process id", (int)pid);
    if (permission == 0 || (permission & ~(uint32_t)ACLRT_QUEUE_PERM_ALL) != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "permission %#x is not a set of ACL_TDT_QUEUE_PERMISSION_*",
                          permission);
    struct aclrt_queue_view *v = NULL;
    rc = aclrt_queue_use(qid, ACL_TDT_QUEUE_PERMISSION_MANAGE, "grant", &v);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_queue_shared *q = v->q;
    aclrt_queue_lock(q);
    uint32_t i = 0;
    while (i < q->ngrants && q->grants[i].pid != pid)
        i++;
    if (i < q->ngrants) {
        q->grants[i].perm |= permission;
    } else if (i < ACLRT_QUEUE_MAX_GRANTS) {
        q->grants[i] = (struct aclrt_queue_grant){pid, permission};
        q->ngrants++;
    } else {
        rc = ACL_ERROR_FAILURE;
    }
    pthread_cond_broadcast(&q->changed); /* attaching processes look again */
    aclrt_queue_unlock(q);
    aclrt_queue_put(v);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "queue %u already has grants for %u processes", qid, ACLRT_QUEUE_MAX_GRANTS);
    return ACL_SUCCESS;
}

ACLRT_API aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission)
{
    ACLRT_ENTER();
    aclError rc = aclrt_queue_check_timeout(timeout);
    if (rc != ACL_SUCCESS)
        return rc;
    if (permission == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "permission is NULL");
    struct aclrt_queue_view *v = aclrt_queue_get(qid, true);
    if (v == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "qid %u is not a queue", qid);
    pthread_mutex_lock(&aclrt_queues.lock);
    uint32_t perm = v->perm;
    pthread_mutex_unlock(&aclrt_queues.lock);
    if (perm != ACLRT_QUEUE_PERM_ALL) { /* not the creator: read the grants, waiting for one if it has none */
        struct aclrt_queue_shared *q = v->q;
        int32_t self = (int32_t)getpid();
        uint32_t granted = 0;
        struct timespec deadline = timeout > 0 ? aclrt_queue_deadline(timeout) : (struct timespec){0, 0};
        aclrt_queue_lock(q);
        for (;;) {
            for (uint32_t i = 0; i < q->ngrants; i++)
                if (q->grants[i].pid == self)
                    granted = q->grants[i].perm;
            if (granted != 0 || perm != 0 || q->destroyed || !aclrt_queue_wait(q, timeout, &deadline))
                break;
        }
        bool destroyed = q->destroyed != 0;
        aclrt_queue_unlock(q);
        if (destroyed || (perm | granted) == 0) {
            aclrt_queue_put(v);
            if (destroyed)
                return aclrt_fail(ACL_ERROR_INVALID_PARAM, "queue %u was destroyed", qid);
            return aclrt_fail(ACL_ERROR_RT_NO_PERMISSION, "queue %u granted this process (pid %d) nothing "
                              "within the timeout (%d ms)", qid, (int)self, (int)timeout);
        }
        pthread_mutex_lock(&aclrt_queues.lock);
        v->perm |= granted;
        perm = v->perm;
        pthread_mutex_unlock(&aclrt_queues.lock);
    }
    aclrt_queue_put(v);
    *permission = perm;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_QUEUE_QUEUE_H */
