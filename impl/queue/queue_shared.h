/*
 * impl/queue/queue_shared.h - a queue's shared segment: its ring of
 * messages, its lock and condition, grants and routes, found by qid from
 * any process of the user.
 *
 * A queue is the POSIX shared-memory object /aclrt-tdtq-<uid>-<qid>: a
 * header (struct aclrt_queue_shared) and a ring of `depth` slots. qids are
 * unique among the user's live queues because the creator claims the name
 * with O_EXCL; a name whose creator has died is reclaimed. The header's
 * mutex and condition are process-shared (the mutex robust, so a process
 * that dies holding it does not stop the others); every change broadcasts
 * the one condition and each waiter checks its own predicate.
 *
 * A message is the object /aclrt-tdtm-<uid>-<pid>-<n> that the enqueuing
 * process <pid> writes before it takes the lock; the slot names it, and
 * the dequeuing process reads and unlinks it. The header is published by
 * its magic (stored last, with release): an opener that sees no magic
 * treats the qid as no queue.
 */
#ifndef ACLRT_IMPL_QUEUE_QUEUE_SHARED_H
#define ACLRT_IMPL_QUEUE_QUEUE_SHARED_H

#include "../core/base.h"
#include "../core/error.h"
#include "queue_objects.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define ACLRT_QUEUE_MAGIC 0x7571647474726c63ull /* "clrttdqu" */
#define ACLRT_QUEUE_MAX_QID 8192u
#define ACLRT_QUEUE_MAX_GRANTS 64u
#define ACLRT_QUEUE_MAX_ROUTES 32u
#define ACLRT_QUEUE_PERM_ALL                                                                      \
    (ACL_TDT_QUEUE_PERMISSION_MANAGE | ACL_TDT_QUEUE_PERMISSION_DEQUEUE |                          \
     ACL_TDT_QUEUE_PERMISSION_ENQUEUE)

/* A slot: the message object's name parts and its valid bytes. */
struct aclrt_queue_slot {
    int32_t pid;
    uint32_t pad;
    uint64_t n;
    uint64_t bytes; /* the message's data (valid lengths summed) */
};

struct aclrt_queue_grant {
    int32_t pid;
    uint32_t perm;
};

struct aclrt_queue_shared {
    _Atomic uint64_t magic; /* ACLRT_QUEUE_MAGIC once initialised */
    int32_t creator;
    uint32_t qid;
    uint32_t depth;
    uint32_t named; /* the name is the creator's, claimed (queue.h) */
    pthread_mutex_t lock; /* robust, process-shared: everything below */
    pthread_cond_t changed;
    uint32_t destroyed;
    uint32_t count, head;
    char name[ACLRT_QUEUE_NAME_LEN];
    uint32_t ngrants;
    struct aclrt_queue_grant grants[ACLRT_QUEUE_MAX_GRANTS];
    uint32_t ndst, nsrc; /* routes: to these queues, from these queues */
    uint32_t dst[ACLRT_QUEUE_MAX_ROUTES];
    uint32_t src[ACLRT_QUEUE_MAX_ROUTES];
    struct aclrt_queue_slot ring[];
};

ACLRT_INLINE size_t aclrt_queue_bytes(uint32_t depth)
{
    return sizeof(struct aclrt_queue_shared) + (size_t)depth * sizeof(struct aclrt_queue_slot);
}

ACLRT_INTERNAL void aclrt_queue_shm_name(char *out, size_t n, uint32_t qid)
{
    snprintf(out, n, "/aclrt-tdtq-%u-%u", (unsigned)getuid(), qid);
}

static void aclrt_queue_msg_name(char *out, size_t n, int32_t pid, uint64_t k)
{
    snprintf(out, n, "/aclrt-tdtm-%u-%d-%llu", (unsigned)getuid(), (int)pid, (unsigned long long)k);
}

/* Does process `pid` exist (or might it: EPERM)? */
ACLRT_INTERNAL bool aclrt_queue_pid_alive(int32_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* Lock the header; a lock left by a dead process is taken over. */
ACLRT_INTERNAL void aclrt_queue_lock(struct aclrt_queue_shared *q)
{
    if (pthread_mutex_lock(&q->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&q->lock);
}

ACLRT_INTERNAL void aclrt_queue_unlock(struct aclrt_queue_shared *q)
{
    pthread_mutex_unlock(&q->lock);
}

/* A deadline `timeout` ms from now on CLOCK_MONOTONIC (timeout > 0). */
ACLRT_INTERNAL struct timespec aclrt_queue_deadline(int32_t timeout)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout / 1000;
    ts.tv_nsec += (long)(timeout % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/*
 * Wait (locked) for the header to change: false when the wait is over
 * (timeout 0, or the deadline passed). -1 waits without end.
 */
ACLRT_INTERNAL bool aclrt_queue_wait(struct aclrt_queue_shared *q, int32_t timeout, const struct timespec *deadline)
{
    int rc;
    if (timeout == 0)
        return false;
    if (timeout < 0)
        rc = pthread_cond_wait(&q->changed, &q->lock);
    else
        rc = pthread_cond_timedwait(&q->changed, &q->lock, deadline);
    if (rc == EOWNERDEAD)
        pthread_mutex_consistent(&q->lock);
    return rc != ETIMEDOUT;
}

/* Map the queue `qid` (NULL when there is none); *bytes: the mapping's size. */
ACLRT_INTERNAL struct aclrt_queue_shared *aclrt_queue_map(uint32_t qid, size_t *bytes)
{
    char name[64];
    aclrt_queue_shm_name(name, sizeof name, qid);
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= aclrt_queue_bytes(1))
        p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    struct aclrt_queue_shared *q = (struct aclrt_queue_shared *)p;
    /* Acquire: pairs with the creator's release of the magic; the header is initialised. */
    if (atomic_load_explicit(&q->magic, memory_order_acquire) != ACLRT_QUEUE_MAGIC ||
        aclrt_queue_bytes(q->depth) > (size_t)st.st_size) {
        munmap(p, (size_t)st.st_size);
        return NULL;
    }
    *bytes = (size_t)st.st_size;
    return q;
}

/* Remove a name whose queue's creator has died, with the messages it holds. */
static void aclrt_queue_reclaim(uint32_t qid)
{
    size_t bytes;
    struct aclrt_queue_shared *q = aclrt_queue_map(qid, &bytes);
    if (q == NULL)
        return; /* being created, or not a queue at all: leave it */
    if (!aclrt_queue_pid_alive(q->creator)) {
        char name[64];
        aclrt_queue_shm_name(name, sizeof name, qid);
        aclrt_queue_lock(q);
        q->destroyed = 1;
        aclrt_queue_unlock(q);
        shm_unlink(name);
    }
    munmap(q, bytes);
}

/* Create a queue: claim the first free qid from `start`. */
ACLRT_INTERNAL aclError aclrt_queue_create_shared(uint32_t depth, const char *name, uint32_t start,
                                                  struct aclrt_queue_shared **out, size_t *bytes_out,
                                                  uint32_t *qid_out)
{
    size_t bytes = aclrt_queue_bytes(depth);
    for (uint32_t i = 0; i < ACLRT_QUEUE_MAX_QID; i++) {
        uint32_t qid = (start + i) % ACLRT_QUEUE_MAX_QID;
        char shm[64];
        aclrt_queue_shm_name(shm, sizeof shm, qid);
        int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST) {
            aclrt_queue_reclaim(qid);
            fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        }
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return aclrt_fail(ACL_ERROR_FAILURE, "shm_open(%s) failed: %s", shm, strerror(errno));
        }
        void *p = MAP_FAILED;
        if (ftruncate(fd, (off_t)bytes) == 0)
            p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        int err = errno;
        close(fd);
        if (p == MAP_FAILED) {
            shm_unlink(shm);
            return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no shared memory for a queue of depth %u: %s", depth,
                              strerror(err));
        }
        struct aclrt_queue_shared *q = (struct aclrt_queue_shared *)p;
        pthread_mutexattr_t ma;
        pthread_mutexattr_init(&ma);
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(&q->lock, &ma);
        pthread_mutexattr_destroy(&ma);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&q->changed, &ca);
        pthread_condattr_destroy(&ca);
        q->creator = (int32_t)getpid();
        q->qid = qid;
        q->depth = depth;
        q->named = name[0] != '\0';
        if (q->named)
            memcpy(q->name, name, strlen(name) + 1);
        else
            snprintf(q->name, sizeof q->name, "queue_%u", qid);
        /* Release: publishes the initialised header; pairs with the acquire in aclrt_queue_map. */
        atomic_store_explicit(&q->magic, ACLRT_QUEUE_MAGIC, memory_order_release);
        *out = q;
        *bytes_out = bytes;
        *qid_out = qid;
        return ACL_SUCCESS;
    }
    return aclrt_fail(ACL_ERROR_FAILURE, "every qid (0 to %u) is in use", ACLRT_QUEUE_MAX_QID - 1);
}

/* The message objects this process has written so far (their names' last part). */
static _Atomic uint64_t aclrt_queue_msg_seq;

/* Write a message object; *slot names it. */
ACLRT_INTERNAL aclError aclrt_queue_msg_write(const void *msg, size_t n, uint64_t bytes, struct aclrt_queue_slot *slot)
{
    slot->pid = (int32_t)getpid();
    slot->pad = 0;
    slot->n = atomic_fetch_add_explicit(&aclrt_queue_msg_seq, 1, memory_order_relaxed);
    slot->bytes = bytes;
    char name[80];
    aclrt_queue_msg_name(name, sizeof name, slot->pid, slot->n);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return aclrt_fail(ACL_ERROR_FAILURE, "shm_open(%s) failed: %s", name, strerror(errno));
    const unsigned char *p = (const unsigned char *)msg;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int err = errno;
            close(fd);
            shm_unlink(name);
            return aclrt_fail(ACL_ERROR_BAD_ALLOC, "no shared memory for a message of %zu bytes: %s", n,
                              strerror(err));
        }
        done += (size_t)w;
    }
    close(fd);
    return ACL_SUCCESS;
}

/* Read a message object into malloc'd memory (*block, *n bytes) and unlink it. */
ACLRT_INTERNAL aclError aclrt_queue_msg_take(const struct aclrt_queue_slot *slot, void **block, size_t *n)
{
    char name[80];
    aclrt_queue_msg_name(name, sizeof name, slot->pid, slot->n);
    int fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0600);
    shm_unlink(name);
    struct stat st;
    unsigned char *buf = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0)
        buf = (unsigned char *)malloc((size_t)st.st_size ? (size_t)st.st_size : 1);
    size_t done = 0;
    while (buf != NULL && done < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + done, (size_t)st.st_size - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            buf = NULL;
            break;
        }
        done += (size_t)r;
    }
    if (fd >= 0)
        close(fd);
    if (buf == NULL)
        return aclrt_fail(ACL_ERROR_FAILURE, "the message %s could not be read", name);
    *block = buf;
    *n = done;
    return ACL_SUCCESS;
}

/* Drop a message object unread. */
ACLRT_INTERNAL void aclrt_queue_msg_drop(const struct aclrt_queue_slot *slot)
{
    char name[80];
    aclrt_queue_msg_name(name, sizeof name, slot->pid, slot->n);
    shm_unlink(name);
}

#endif /* ACLRT_IMPL_QUEUE_QUEUE_SHARED_H */
