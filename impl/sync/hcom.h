/*
 * impl/sync/hcom.h - HCOM group record/wait tasks (aclrtx extension): the C form
 * of the graph engine's KernelLaunchInfo::CreateHcomRecordTask and its wait
 * counterpart. A record task wakes, on other streams, the wait tasks created
 * with the same group name.
 *
 *   - Descriptors: aclrtxCreateHcomRecordTask / aclrtxCreateHcomWaitTask
 *     (group name; NULL or "" is "group"), aclrtxHcomTaskSetStreamId (ids as
 *     aclrtStreamGetId gives them), aclrtxHcomTaskSerialize (bytes), and
 *     aclrtxLaunchHcomTaskList, which runs a concatenation of serialized
 *     tasks, each on its stream, in list order.
 *   - Groups live in a name registry (liburcu rculfhash, registry.h),
 *     created on first launch and kept until aclFinalize. Each counts the
 *     record tasks that ran (`records`, a sequence counter with a park list)
 *     and the wait tasks launched (`waits_issued`).
 *   - Counted pairs: the k-th wait launched on a group gets ticket k at
 *     launch (submission order) and is released once the group's k-th record
 *     has run. So a pipeline repeats without resets, and a wait launched
 *     before its record waits for it, holding no executor.
 *   - A task list is parsed and validated completely (format, names, stream
 *     ids: live streams of the caller's current context) before anything is
 *     submitted: a rejected list runs nothing.
 *
 * Serialized task (little endian, 14 + n bytes; a list is tasks back to back):
 *
 *     0  4  magic "AXHT"        8  4  stream id (int32)
 *     4  2  format version (1)  12 2  group name length n, 1..127
 *     6  1  kind (1 record, 2 wait)  14 n  group name (no NUL)
 *     7  1  reserved, 0
 */
#ifndef ACLRT_IMPL_SYNC_HCOM_H
#define ACLRT_IMPL_SYNC_HCOM_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/registry.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "../stream/wait_task.h"
#include "../context/context.h"

#define ACLRT_HCOM_MAGIC "AXHT"
#define ACLRT_HCOM_FORMAT_VERSION 1u
#define ACLRT_HCOM_HEADER_BYTES 14u
#define ACLRT_HCOM_KIND_RECORD 1u
#define ACLRT_HCOM_KIND_WAIT 2u
#define ACLRT_HCOM_STREAM_UNSET (-1)
/* aclFinalize adds this to every group's record count: every launched wait is released. */
#define ACLRT_HCOM_RELEASE_ALL (1ull << 40)

/* A task descriptor: host memory of the caller, nothing shared. */
struct aclrtxHcomTask {
    uint8_t kind;
    int32_t stream_id;
    uint16_t name_len;
    char name[ACLRTX_HCOM_GROUP_NAME_MAX + 1];
};

struct aclrt_hcom_group {
    struct aclrt_registry_node node; /* first: the registry hands this back */
    struct aclrt_hcom_group *all_next; /* every group, for aclFinalize (registry lock) */
    _Atomic uint64_t waits_issued;     /* tickets handed out at launch */
    uint16_t name_len;
    char name[ACLRTX_HCOM_GROUP_NAME_MAX + 1];
    struct aclrt_seq records ACLRT_ALIGNED(ACLRT_CACHELINE); /* record tasks that ran */
    struct aclrt_park_list waiters;                          /* waits parked until `records` reaches their ticket */
};

static struct aclrt_registry aclrt_hcom_groups = ACLRT_REGISTRY_INIT;
static struct aclrt_hcom_group *aclrt_hcom_all; /* registry lock */

/* ------------------------------------------------------------------------
 * Tasks (run by exec.h)
 * ------------------------------------------------------------------------ */

static int aclrt_hcom_record_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    struct aclrt_hcom_group *g = t->u.hcom.group;
    aclrt_counter_advance(&g->records, &g->waiters, 1); /* release (seq.h): the recording stream's work */
    return ACL_SUCCESS;
}

static bool aclrt_hcom_wait_ready(const struct aclrt_task *t)
{
    return aclrt_seq_reached(&t->u.hcom.group->records, t->u.hcom.ticket);
}

static int aclrt_hcom_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_hcom_group *g = t->u.hcom.group;
    /* Acquire (seq.h): the work before the ticket-th record is visible to what follows the wait. */
    if (aclrt_wait_holds(s, aclrt_hcom_wait_ready, t, ACLRT_NO_DEADLINE))
        return ACL_SUCCESS;
    aclrt_block_on_count(blk, &g->records, &g->waiters, t->u.hcom.ticket, ACLRT_NO_DEADLINE);
    return ACLRT_TASK_BLOCKED;
}

static const struct aclrt_task_kind aclrt_kind_hcom_record = {ACLRT_TASK_HCOM_RECORD, "HCOM record",
                                                              aclrt_hcom_record_run, NULL};
static const struct aclrt_task_kind aclrt_kind_hcom_wait = {ACLRT_TASK_HCOM_WAIT, "HCOM wait", aclrt_hcom_wait_run,
                                                            NULL};

/* ------------------------------------------------------------------------
 * Groups
 * ------------------------------------------------------------------------ */

struct aclrt_hcom_key {
    const char *name;
    uint16_t len;
};

static bool aclrt_hcom_group_match(const struct aclrt_registry_node *node, const void *key)
{
    const struct aclrt_hcom_group *g = (const struct aclrt_hcom_group *)(const void *)node;
    const struct aclrt_hcom_key *k = (const struct aclrt_hcom_key *)key;
    return g->name_len == k->len && memcmp(g->name, k->name, k->len) == 0;
}

/* The group a name names, created on first use; NULL only when memory runs out. */
static struct aclrt_hcom_group *aclrt_hcom_group_get(const char *name, uint16_t len)
{
    struct aclrt_hcom_key key = {name, len};
    uint64_t hash = aclrt_hash_bytes(name, len);
    aclrt_rcu_read_lock();
    struct aclrt_registry_node *found = aclrt_registry_find(&aclrt_hcom_groups, hash, aclrt_hcom_group_match, &key);
    aclrt_rcu_read_unlock();
    if (ACLRT_LIKELY(found != NULL))
        return (struct aclrt_hcom_group *)(void *)found; /* groups live until aclFinalize */
    size_t bytes = (sizeof(struct aclrt_hcom_group) + ACLRT_CACHELINE - 1) & ~(size_t)(ACLRT_CACHELINE - 1);
    struct aclrt_hcom_group *g = (struct aclrt_hcom_group *)aligned_alloc(ACLRT_CACHELINE, bytes);
    if (g == NULL)
        return NULL;
    memset(g, 0, bytes);
    g->node.hash = hash;
    g->name_len = len;
    memcpy(g->name, name, len);
    aclrt_seq_init(&g->records, 0);
    aclrt_park_list_init(&g->waiters);
    atomic_init(&g->waits_issued, 0);
    aclrt_registry_lock(&aclrt_hcom_groups);
    struct aclrt_registry_node *got = aclrt_registry_add_locked(&aclrt_hcom_groups, &g->node,
                                                                aclrt_hcom_group_match, &key);
    if (got == &g->node) {
        g->all_next = aclrt_hcom_all;
        aclrt_hcom_all = g;
    }
    aclrt_registry_unlock(&aclrt_hcom_groups);
    if (got != &g->node)
        free(g); /* another thread added it first (or the table could not be made: got is NULL) */
    return (struct aclrt_hcom_group *)(void *)got;
}

/* aclFinalize, before streams are torn down: every wait launched on any group is released. */
ACLRT_INTERNAL void aclrt_hcom_release_waits(void)
{
    aclrt_registry_lock(&aclrt_hcom_groups);
    for (struct aclrt_hcom_group *g = aclrt_hcom_all; g != NULL; g = g->all_next)
        aclrt_counter_advance(&g->records, &g->waiters, ACLRT_HCOM_RELEASE_ALL);
    aclrt_registry_unlock(&aclrt_hcom_groups);
}

static void aclrt_hcom_group_free(struct aclrt_registry_node *node)
{
    struct aclrt_hcom_group *g = (struct aclrt_hcom_group *)(void *)node;
    aclrt_park_notes_free(aclrt_park_list_take(&g->waiters)); /* stale: every stream is gone */
    free(g);
}

/* aclFinalize, after every stream is gone: forget every group. */
ACLRT_INTERNAL void aclrt_hcom_clear(void)
{
    aclrt_registry_lock(&aclrt_hcom_groups);
    aclrt_registry_clear_locked(&aclrt_hcom_groups, aclrt_hcom_group_free);
    aclrt_hcom_all = NULL;
    aclrt_registry_unlock(&aclrt_hcom_groups);
}

/* ------------------------------------------------------------------------
 * Descriptors
 * ------------------------------------------------------------------------ */

static aclError aclrt_hcom_task_create(aclrtxHcomTask **task, const char *groupName, uint8_t kind)
{
    if (task == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "task (output) is NULL");
    if (groupName == NULL || groupName[0] == '\0')
        groupName = ACLRTX_HCOM_DEFAULT_GROUP;
    size_t len = strlen(groupName);
    if (len > ACLRTX_HCOM_GROUP_NAME_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "group name of %zu bytes is longer than %u bytes", len,
                          (unsigned)ACLRTX_HCOM_GROUP_NAME_MAX);
    aclrtxHcomTask *t = (aclrtxHcomTask *)calloc(1, sizeof *t);
    if (t == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for an HCOM task descriptor");
    t->kind = kind;
    t->stream_id = ACLRT_HCOM_STREAM_UNSET;
    t->name_len = (uint16_t)len;
    memcpy(t->name, groupName, len);
    *task = t;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtxCreateHcomRecordTask(aclrtxHcomTask **task, const char *groupName)
{
    ACLRT_ENTER();
    return aclrt_hcom_task_create(task, groupName, ACLRT_HCOM_KIND_RECORD);
}

ACLRT_API aclError aclrtxCreateHcomWaitTask(aclrtxHcomTask **task, const char *groupName)
{
    ACLRT_ENTER();
    return aclrt_hcom_task_create(task, groupName, ACLRT_HCOM_KIND_WAIT);
}

ACLRT_API aclError aclrtxHcomTaskSetStreamId(aclrtxHcomTask *task, int32_t streamId)
{
    ACLRT_ENTER();
    if (task == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "task is NULL");
    if (streamId < 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "stream id %d is negative (ids come from aclrtStreamGetId)",
                          (int)streamId);
    task->stream_id = streamId;
    return ACL_SUCCESS;
}

static void aclrt_put_le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void aclrt_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint16_t aclrt_get_le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t aclrt_get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

ACLRT_API aclError aclrtxHcomTaskSerialize(const aclrtxHcomTask *task, void *buf, size_t size, size_t *needed)
{
    ACLRT_ENTER();
    if (task == NULL || needed == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", task == NULL ? "task" : "needed (output)");
    size_t bytes = ACLRT_HCOM_HEADER_BYTES + task->name_len;
    *needed = bytes;
    if (buf == NULL)
        return ACL_SUCCESS; /* a size query */
    if (size < bytes)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the buffer holds %zu bytes; the task needs %zu", size, bytes);
    unsigned char *p = (unsigned char *)buf;
    memcpy(p, ACLRT_HCOM_MAGIC, 4);
    aclrt_put_le16(p + 4, ACLRT_HCOM_FORMAT_VERSION);
    p[6] = task->kind;
    p[7] = 0;
    aclrt_put_le32(p + 8, (uint32_t)task->stream_id);
    aclrt_put_le16(p + 12, task->name_len);
    memcpy(p + ACLRT_HCOM_HEADER_BYTES, task->name, task->name_len);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtxDestroyHcomTask(aclrtxHcomTask *task)
{
    ACLRT_ENTER();
    if (task == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "task is NULL");
    free(task);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Launching a serialized task list
 * ------------------------------------------------------------------------ */

struct aclrt_hcom_parsed {
    uint8_t kind;
    uint16_t name_len;
    const char *name; /* inside the caller's bytes */
    struct aclrt_stream *stream;
    struct aclrt_hcom_group *group;
};

/* The live stream of context `ctx` with id `id`, or NULL. */
static struct aclrt_stream *aclrt_hcom_stream_by_id(int32_t id, const struct aclrt_context *ctx)
{
    /* Acquire: pairs with the release CAS that hands out a new slot (aclrt_table_alloc). */
    if (id < 0 || (uint32_t)id >= atomic_load_explicit(&aclrt_streams.high_water, memory_order_acquire))
        return NULL;
    struct aclrt_stream *s = (struct aclrt_stream *)(void *)aclrt_table_slot(&aclrt_streams, (uint32_t)id);
    /* Acquire: pairs with the stream's publish (its context pointer). */
    if (s == NULL || !(atomic_load_explicit(&s->hdr.generation, memory_order_acquire) & 1u) || s->ctx != ctx)
        return NULL;
    return s;
}

/*
 * Parse the task at `at` into *out (out may be NULL: validate only). Returns
 * the bytes it takes, or 0 after failing with ACL_ERROR_RT_PARAM_INVALID.
 */
static size_t aclrt_hcom_parse_one(const unsigned char *p, size_t size, size_t at, size_t index,
                                   const struct aclrt_context *ctx, struct aclrt_hcom_parsed *out)
{
    size_t left = size - at;
    const unsigned char *q = p + at;
    if (left < ACLRT_HCOM_HEADER_BYTES) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu at byte %zu is truncated: %zu bytes left, a header takes %u",
                   index, at, left, ACLRT_HCOM_HEADER_BYTES);
        return 0;
    }
    if (memcmp(q, ACLRT_HCOM_MAGIC, 4) != 0) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu at byte %zu does not start with the magic \"AXHT\"", index, at);
        return 0;
    }
    uint16_t version = aclrt_get_le16(q + 4);
    if (version != ACLRT_HCOM_FORMAT_VERSION) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu has format version %u; this runtime reads version %u", index,
                   version, ACLRT_HCOM_FORMAT_VERSION);
        return 0;
    }
    uint8_t kind = q[6];
    if ((kind != ACLRT_HCOM_KIND_RECORD && kind != ACLRT_HCOM_KIND_WAIT) || q[7] != 0) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu has kind %u / reserved byte %u (kinds: 1 record, 2 wait; "
                                               "reserved: 0)",
                   index, kind, q[7]);
        return 0;
    }
    int32_t id = (int32_t)aclrt_get_le32(q + 8);
    uint16_t len = aclrt_get_le16(q + 12);
    if (len == 0 || len > ACLRTX_HCOM_GROUP_NAME_MAX) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu has a group name of %u bytes (1..%u)", index, len,
                   (unsigned)ACLRTX_HCOM_GROUP_NAME_MAX);
        return 0;
    }
    if (left - ACLRT_HCOM_HEADER_BYTES < len) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu is truncated: its group name of %u bytes runs past the end",
                   index, len);
        return 0;
    }
    const char *name = (const char *)q + ACLRT_HCOM_HEADER_BYTES;
    if (memchr(name, '\0', len) != NULL) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %zu has a NUL byte in its group name", index);
        return 0;
    }
    struct aclrt_stream *s = aclrt_hcom_stream_by_id(id, ctx);
    if (s == NULL) {
        aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                   "task %zu names stream id %d, which is not a live stream of the calling thread's current context",
                   index, (int)id);
        return 0;
    }
    if (out != NULL)
        *out = (struct aclrt_hcom_parsed){kind, len, name, s, NULL};
    return ACLRT_HCOM_HEADER_BYTES + len;
}

/* The ticket of the next wait launched on g: it is the k-th (relaxed: only the count matters). */
ACLRT_INLINE uint64_t aclrt_hcom_take_ticket(struct aclrt_hcom_group *g)
{
    return atomic_fetch_add_explicit(&g->waits_issued, 1, memory_order_relaxed) + 1;
}

/*
 * Submit a wait. It takes its ticket only once it is sure to be queued (its
 * ring slot reserved): a refused launch (a task launching into its own full
 * stream) takes none, or every later wait of the group would be released by
 * the record before its own. On an idle stream, a wait whose record has run
 * is over at once, with no task.
 */
static aclError aclrt_hcom_submit_wait(struct aclrt_stream *s, struct aclrt_hcom_group *g)
{
    aclError rc = aclrt_stream_check_context(s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_hcom_wait, .u.hcom.group = g};
    if (aclrt_stream_acts_now(s)) {
        t.u.hcom.ticket = aclrt_hcom_take_ticket(g);
        if (aclrt_seq_reached(&g->records, t.u.hcom.ticket)) {
            aclrt_stream_acted_now(s, &t);
            return ACL_SUCCESS;
        }
    }
    /* Never refused after an idle look: only a task of s is refused, and s is busy with that task. */
    struct aclrt_task *slot;
    unsigned int ring_ticket;
    if ((rc = aclrt_stream_reserve(s, &slot, &ring_ticket, NULL)) != ACL_SUCCESS)
        return rc;
    if (t.u.hcom.ticket == 0)
        t.u.hcom.ticket = aclrt_hcom_take_ticket(g);
    aclrt_stream_commit_task(s, slot, ring_ticket, &t);
    return ACL_SUCCESS;
}

/* Submit one parsed task (on an idle stream, what it does happens at once). */
static aclError aclrt_hcom_submit(const struct aclrt_hcom_parsed *p)
{
    struct aclrt_hcom_group *g = p->group;
    if (p->kind == ACLRT_HCOM_KIND_WAIT)
        return aclrt_hcom_submit_wait(p->stream, g);
    struct aclrt_task t = {.kind = &aclrt_kind_hcom_record, .u.hcom.group = g};
    if (aclrt_stream_acts_now(p->stream)) {
        aclrt_stream_acted_now(p->stream, &t);
        aclrt_counter_advance(&g->records, &g->waiters, 1);
        return ACL_SUCCESS;
    }
    return aclrt_stream_submit(p->stream, &t, NULL);
}

ACLRT_API aclError aclrtxLaunchHcomTaskList(const void *bytes, size_t size)
{
    ACLRT_ENTER();
    if (bytes == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "bytes is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the task list is empty (size 0)");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    const unsigned char *p = (const unsigned char *)bytes;
    /* Pass 1: validate everything and count. */
    size_t count = 0;
    for (size_t at = 0; at < size; count++) {
        size_t n = aclrt_hcom_parse_one(p, size, at, count, ctx, NULL);
        if (n == 0)
            return ACL_ERROR_RT_PARAM_INVALID; /* aclrt_hcom_parse_one said why */
        at += n;
    }
    struct aclrt_hcom_parsed *tasks = (struct aclrt_hcom_parsed *)calloc(count, sizeof *tasks);
    if (tasks == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a list of %zu HCOM tasks", count);
    /* Pass 2: the groups (created on first use) and the streams' state; still nothing submitted. */
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        size_t n = aclrt_hcom_parse_one(p, size, at, i, ctx, &tasks[i]);
        if (n == 0) { /* a stream destroyed since pass 1 (a race in the caller): still nothing submitted */
            free(tasks);
            return ACL_ERROR_RT_PARAM_INVALID;
        }
        at += n;
        tasks[i].group = aclrt_hcom_group_get(tasks[i].name, tasks[i].name_len);
        if (tasks[i].group == NULL) {
            rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for HCOM group \"%.*s\"", (int)tasks[i].name_len,
                            tasks[i].name);
            free(tasks);
            return rc;
        }
        if ((rc = aclrt_stream_check_context(tasks[i].stream)) != ACL_SUCCESS) {
            free(tasks);
            return rc;
        }
    }
    /* Pass 3: submit, in list order. */
    for (size_t i = 0; i < count && rc == ACL_SUCCESS; i++)
        rc = aclrt_hcom_submit(&tasks[i]);
    free(tasks);
    return rc;
}

#endif /* ACLRT_IMPL_SYNC_HCOM_H */
