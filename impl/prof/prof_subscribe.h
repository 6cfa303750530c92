/*
 * impl/prof/prof_subscribe.h - op subscription: the configuration, the op
 * descriptor written into the subscriber's fd, and its getters. The model
 * side (which replays write them) is impl/model/model_subscribe.h.
 *
 * A descriptor is a fixed-size record, self-contained: the numbers CANN's
 * descriptor has (model id, flag, thread, times in microseconds, device),
 * then the op's type and name, NUL-terminated, and a checksum over all of
 * it in its first word. The getters check every descriptor of the buffer
 * they are given: a length that is not whole descriptors, or a descriptor
 * whose checksum does not match (not one of ours, or torn), is
 * ACL_ERROR_INVALID_PARAM, never a read past the buffer.
 *
 * A subscription (struct aclrt_prof_sub) is counted: the table of
 * subscriptions holds one reference, every replay in flight one more; the
 * last one closes the fd.
 */
#ifndef ACLRT_IMPL_PROF_PROF_SUBSCRIBE_H
#define ACLRT_IMPL_PROF_PROF_SUBSCRIBE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "prof_trace.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

struct aclrt_prof_op_desc {
    uint32_t signature; /* FNV-1a (32 bits) of the bytes after it */
    uint32_t model_id;
    uint32_t flag; /* aclprofSubscribeOpFlag */
    uint32_t thread_id;
    uint64_t op_index; /* the step of the model */
    uint64_t duration; /* microseconds */
    uint64_t start, end;
    uint64_t execution_time;
    uint64_t cube_fops, vector_fops;
    uint32_t device_id;
    uint32_t reserved;
    char type[ACL_PROF_MAX_OP_TYPE_LEN];
    char name[ACL_PROF_MAX_OP_NAME_LEN];
    char pad[6];
};

_Static_assert(sizeof(struct aclrt_prof_op_desc) <= 512, "a descriptor is written whole into a pipe");

struct aclprofSubscribeConfig {
    int8_t time_info;
    aclprofAicoreMetrics metrics;
    int fd;
    struct aclprofSubscribeConfig *next;
};

/* The fd descriptors go to: shared by the subscriptions given it, closed by the last one. */
struct aclrt_prof_sink {
    _Atomic uint32_t refs;
    int fd;
};

/* A model's subscription. */
struct aclrt_prof_sub {
    _Atomic uint32_t refs;
    struct aclrt_prof_sink *sink;
    bool time_info;
    void *model; /* the model's handle (a later model in the same slot is not subscribed) */
    uint32_t model_id;
    struct aclrt_prof_sub *next;
};

static struct {
    pthread_mutex_t lock;
    struct aclprofSubscribeConfig *configs; /* the live configurations */
    struct aclrt_prof_sub *subs;            /* the subscriptions */
    _Atomic uint32_t count;                 /* of subs: a replay's submission looks only when not 0 */
} aclrt_prof_subs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint32_t aclrt_prof_op_sign(const struct aclrt_prof_op_desc *d)
{
    const unsigned char *p = (const unsigned char *)d + sizeof d->signature;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < sizeof *d - sizeof d->signature; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* Let go of a reference to sub; the last one of the last subscription of its fd closes it. */
ACLRT_INTERNAL void aclrt_prof_sub_put(struct aclrt_prof_sub *sub)
{
    /* Acq_rel: the last one sees every replay's writes done before it closes. */
    if (atomic_fetch_sub_explicit(&sub->refs, 1, memory_order_acq_rel) == 1) {
        struct aclrt_prof_sink *sink = sub->sink;
        free(sub);
        if (atomic_fetch_sub_explicit(&sink->refs, 1, memory_order_acq_rel) == 1) {
            close(sink->fd);
            free(sink);
        }
    }
}

/*
 * Write one op's descriptor into sub's fd (from a replay's thread): step
 * `index` of model `model_id`, of type `type` and name `name`, run from
 * begin_ns to end_ns on device `device`. A write that fails (the reader
 * went, or an fd that does not block is full) loses the descriptor, not
 * the replay; a write end that blocks holds the replay while the pipe is
 * full.
 */
ACLRT_INTERNAL void aclrt_prof_sub_write(const struct aclrt_prof_sub *sub, uint32_t index, const char *type,
                                         const char *name, uint64_t begin_ns, uint64_t end_ns, uint32_t device)
{
    struct aclrt_prof_op_desc d;
    memset(&d, 0, sizeof d);
    d.model_id = sub->model_id;
    d.flag = ACL_SUBSCRIBE_OP;
    d.thread_id = aclrt_thread_tid();
    d.op_index = index;
    if (sub->time_info) {
        d.start = begin_ns / 1000;
        d.end = end_ns / 1000;
        d.duration = d.end - d.start;
        d.execution_time = d.duration;
    }
    d.device_id = device;
    snprintf(d.type, sizeof d.type, "%s", type);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.signature = aclrt_prof_op_sign(&d);
    /* A reader gone is EPIPE here, not SIGPIPE for the process: blocked around the write, a pending one taken. */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    const char *p = (const char *)&d;
    size_t left = sizeof d;
    bool broken = false;
    while (left > 0) {
        ssize_t n = write(sub->sink->fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            broken = n < 0 && errno == EPIPE;
            break;
        }
        p += n;
        left -= (size_t)n;
    }
    if (broken && !sigismember(&old, SIGPIPE)) {
        const struct timespec none = {0, 0};
        (void)sigtimedwait(&pipe_set, NULL, &none);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

ACLRT_API aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics,
                                                               void *fd)
{
    ACLRT_ENTER();
    if (fd == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "fd is NULL");
        return NULL;
    }
    if (timeInfoSwitch != 0 && timeInfoSwitch != 1) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "timeInfoSwitch %d is not 0 or 1", (int)timeInfoSwitch);
        return NULL;
    }
    if (!((int)aicoreMetrics >= ACL_AICORE_ARITHMETIC_UTILIZATION && (int)aicoreMetrics <= ACL_AICORE_MEMORY_ACCESS) &&
        aicoreMetrics != ACL_AICORE_NONE) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "aicoreMetrics %d is not an aclprofAicoreMetrics", (int)aicoreMetrics);
        return NULL;
    }
    int d = *(const int *)fd;
    if (d < 0 || fcntl(d, F_GETFL) == -1) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "fd %d is not an open file descriptor", d);
        return NULL;
    }
    if ((fcntl(d, F_GETFL) & O_ACCMODE) == O_RDONLY) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "fd %d is not open for writing (the pipe's write end is fd[1])", d);
        return NULL;
    }
    struct aclprofSubscribeConfig *c = (struct aclprofSubscribeConfig *)calloc(1, sizeof *c);
    if (c == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory creating a subscription configuration");
        return NULL;
    }
    c->time_info = timeInfoSwitch;
    c->metrics = aicoreMetrics;
    c->fd = d;
    pthread_mutex_lock(&aclrt_prof_subs.lock);
    c->next = aclrt_prof_subs.configs;
    aclrt_prof_subs.configs = c;
    pthread_mutex_unlock(&aclrt_prof_subs.lock);
    return c;
}

/* Is c a live subscription configuration? Caller holds aclrt_prof_subs.lock. */
ACLRT_INTERNAL bool aclrt_prof_sub_config_live(const aclprofSubscribeConfig *c)
{
    for (const struct aclprofSubscribeConfig *it = aclrt_prof_subs.configs; it != NULL; it = it->next)
        if (it == c)
            return true;
    return false;
}

ACLRT_API aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
    ACLRT_ENTER();
    if (profSubscribeConfig == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "profSubscribeConfig is NULL");
    pthread_mutex_lock(&aclrt_prof_subs.lock);
    struct aclprofSubscribeConfig **at = &aclrt_prof_subs.configs;
    while (*at != NULL && *at != profSubscribeConfig)
        at = &(*at)->next;
    struct aclprofSubscribeConfig *c = *at;
    if (c != NULL)
        *at = c->next;
    pthread_mutex_unlock(&aclrt_prof_subs.lock);
    if (c == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a subscription configuration (or was destroyed)",
                          (const void *)profSubscribeConfig);
    free(c);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclprofGetOpDescSize(size_t *opDescSize)
{
    ACLRT_ENTER();
    if (opDescSize == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "opDescSize is NULL");
    *opDescSize = sizeof(struct aclrt_prof_op_desc);
    return ACL_SUCCESS;
}

/* Are the opInfoLen bytes at opInfo whole, intact descriptors? An error (with message) if not. */
static aclError aclrt_prof_op_check(const void *opInfo, size_t opInfoLen)
{
    if (opInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "opInfo is NULL");
    if (opInfoLen == 0 || opInfoLen % sizeof(struct aclrt_prof_op_desc) != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "opInfoLen %zu is not a multiple of the op descriptor's %zu bytes",
                          opInfoLen, sizeof(struct aclrt_prof_op_desc));
    for (size_t off = 0; off < opInfoLen; off += sizeof(struct aclrt_prof_op_desc)) {
        struct aclrt_prof_op_desc d;
        memcpy(&d, (const char *)opInfo + off, sizeof d); /* the buffer need not be aligned */
        if (d.signature != aclrt_prof_op_sign(&d))
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the op descriptor at byte %zu is not one (its checksum differs)",
                              off);
    }
    return ACL_SUCCESS;
}

/* Descriptor `index` of the buffer, copied into *d; an error (with message) if the buffer or index is bad. */
static aclError aclrt_prof_op_at(const void *opInfo, size_t opInfoLen, uint32_t index, struct aclrt_prof_op_desc *d)
{
    aclError rc = aclrt_prof_op_check(opInfo, opInfoLen);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t n = opInfoLen / sizeof *d;
    if (index >= n)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "index %u is not in [0, %zu)", index, n);
    memcpy(d, (const char *)opInfo + (size_t)index * sizeof *d, sizeof *d);
    d->type[sizeof d->type - 1] = '\0';
    d->name[sizeof d->name - 1] = '\0';
    return ACL_SUCCESS;
}

ACLRT_API aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
    ACLRT_ENTER();
    if (opNumber == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "opNumber is NULL");
    aclError rc = aclrt_prof_op_check(opInfo, opInfoLen);
    if (rc == ACL_SUCCESS)
        *opNumber = (uint32_t)(opInfoLen / sizeof(struct aclrt_prof_op_desc));
    return rc;
}

/* Copy a descriptor's string s into out (n bytes, truncated, always terminated). */
static aclError aclrt_prof_op_string(const char *s, char *out, size_t n, const char *what)
{
    if (out == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", what);
    if (n == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the length of %s is 0", what);
    snprintf(out, n, "%s", s);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen)
{
    ACLRT_ENTER();
    if (opTypeLen == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "opTypeLen is NULL");
    struct aclrt_prof_op_desc d;
    aclError rc = aclrt_prof_op_at(opInfo, opInfoLen, index, &d);
    if (rc == ACL_SUCCESS)
        *opTypeLen = strlen(d.type) + 1;
    return rc;
}

ACLRT_API aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType,
                                    size_t opTypeLen)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    aclError rc = aclrt_prof_op_at(opInfo, opInfoLen, index, &d);
    return rc != ACL_SUCCESS ? rc : aclrt_prof_op_string(d.type, opType, opTypeLen, "opType");
}

ACLRT_API aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen)
{
    ACLRT_ENTER();
    if (opNameLen == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "opNameLen is NULL");
    struct aclrt_prof_op_desc d;
    aclError rc = aclrt_prof_op_at(opInfo, opInfoLen, index, &d);
    if (rc == ACL_SUCCESS)
        *opNameLen = strlen(d.name) + 1;
    return rc;
}

ACLRT_API aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName,
                                    size_t opNameLen)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    aclError rc = aclrt_prof_op_at(opInfo, opInfoLen, index, &d);
    return rc != ACL_SUCCESS ? rc : aclrt_prof_op_string(d.name, opName, opNameLen, "opName");
}

ACLRT_API uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    return aclrt_prof_op_at(opInfo, opInfoLen, index, &d) == ACL_SUCCESS ? d.start : 0;
}

ACLRT_API uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    return aclrt_prof_op_at(opInfo, opInfoLen, index, &d) == ACL_SUCCESS ? d.end : 0;
}

ACLRT_API uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    return aclrt_prof_op_at(opInfo, opInfoLen, index, &d) == ACL_SUCCESS ? d.duration : 0;
}

ACLRT_API size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    return aclrt_prof_op_at(opInfo, opInfoLen, index, &d) == ACL_SUCCESS ? d.model_id : 0;
}

ACLRT_API aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    ACLRT_ENTER();
    struct aclrt_prof_op_desc d;
    return aclrt_prof_op_at(opInfo, opInfoLen, index, &d) == ACL_SUCCESS ? (aclprofSubscribeOpFlag)d.flag
                                                                         : ACL_SUBSCRIBE_NONE;
}

ACLRT_API const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
                                             aclprofSubscribeOpAttri attri)
{
    ACLRT_ENTER();
    static _Thread_local char value[24]; /* the calling thread's: valid until its next call */
    if (attri != ACL_SUBSCRIBE_ATTRI_THREADID) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "attri %d is not ACL_SUBSCRIBE_ATTRI_THREADID", (int)attri);
        return NULL;
    }
    struct aclrt_prof_op_desc d;
    if (aclrt_prof_op_at(opInfo, opInfoLen, index, &d) != ACL_SUCCESS)
        return NULL;
    snprintf(value, sizeof value, "%u", d.thread_id);
    return value;
}

#endif /* ACLRT_IMPL_PROF_PROF_SUBSCRIBE_H */
