/*
 * impl/stream/callback_thread.h - report threads: the user threads a stream's
 * callbacks (aclrtSubscribeReport) or host functions (aclrtSubscribeHostFunc)
 * go to, and which streams each one serves.
 *
 * A report thread is registered under (kind, thread id) in an rculfhash
 * registry (registry.h); thread ids are pthread_self() values. A stream has
 * at most one thread of each kind (stream->report_threads[kind]); a thread
 * serves any number of streams, all of one device; at most
 * ACLRT_REPORT_MAX_THREADS threads of a kind are subscribed at once. Thread
 * objects are never freed while the process lives (about 200 bytes per
 * subscribing thread id, reused when an id subscribes again), so a stream
 * keeps a plain pointer to its thread. What is handed to a thread, and how
 * it runs it, is callback.h.
 */
#ifndef ACLRT_IMPL_STREAM_CALLBACK_THREAD_H
#define ACLRT_IMPL_STREAM_CALLBACK_THREAD_H

#include "../core/base.h"
#include "../core/registry.h"
#include "../core/seq.h"
#include "stream.h"

#include <urcu/wfcqueue.h>

#define ACLRT_REPORT_MAX_THREADS 1024 /* subscribed threads per kind, per process */

enum aclrt_report_kind {
    ACLRT_REPORT_CALLBACK = 0,  /* aclrtSubscribeReport / aclrtProcessReport */
    ACLRT_REPORT_HOST_FUNC = 1, /* aclrtSubscribeHostFunc / aclrtProcessHostFunc */
    ACLRT_REPORT_KINDS
};

struct aclrt_report_thread {
    struct aclrt_registry_node reg; /* key: (kind, thread_id) */
    uint64_t thread_id;
    uint32_t kind;
    /* Subscriptions: written under aclrt_report_registry's lock. */
    _Atomic uint32_t streams; /* streams bound to this thread */
    int32_t device;           /* their device; -1 while none */
    /* The hand-off queue: executors enqueue, then count in `posted`. */
    struct cds_wfcq_head head;
    struct cds_wfcq_tail tail;
    struct aclrt_seq posted;   /* items enqueued so far */
    _Atomic uint64_t taken;    /* items dequeued so far */
};

static struct aclrt_registry aclrt_report_registry = ACLRT_REGISTRY_INIT;
static uint32_t aclrt_report_subscribed[ACLRT_REPORT_KINDS]; /* threads with streams > 0 (registry lock) */

struct aclrt_report_key {
    uint64_t thread_id;
    uint32_t kind;
};

ACLRT_INLINE uint64_t aclrt_report_hash(const struct aclrt_report_key *k)
{
    uint64_t words[2] = {k->thread_id, k->kind};
    return aclrt_hash_bytes(words, sizeof words);
}

static bool aclrt_report_match(const struct aclrt_registry_node *node, const void *key)
{
    const struct aclrt_report_thread *t = caa_container_of(node, struct aclrt_report_thread, reg);
    const struct aclrt_report_key *k = (const struct aclrt_report_key *)key;
    return t->thread_id == k->thread_id && t->kind == k->kind;
}

/* The thread object for (kind, id), or NULL if that id never subscribed. Objects are never freed. */
ACLRT_INTERNAL struct aclrt_report_thread *aclrt_report_find(uint32_t kind, uint64_t thread_id)
{
    struct aclrt_report_key key = {thread_id, kind};
    aclrt_rcu_read_lock();
    struct aclrt_registry_node *n =
        aclrt_registry_find(&aclrt_report_registry, aclrt_report_hash(&key), aclrt_report_match, &key);
    aclrt_rcu_read_unlock();
    return n != NULL ? caa_container_of(n, struct aclrt_report_thread, reg) : NULL;
}

/* Find or create the object for (kind, id). Caller holds the registry lock. */
ACLRT_INTERNAL struct aclrt_report_thread *aclrt_report_get_locked(uint32_t kind, uint64_t thread_id)
{
    struct aclrt_report_thread *t = aclrt_report_find(kind, thread_id);
    if (t != NULL)
        return t;
    t = (struct aclrt_report_thread *)calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    struct aclrt_report_key key = {thread_id, kind};
    t->reg.hash = aclrt_report_hash(&key);
    t->thread_id = thread_id;
    t->kind = kind;
    t->device = -1;
    cds_wfcq_init(&t->head, &t->tail);
    aclrt_seq_init(&t->posted, 0);
    struct aclrt_registry_node *got =
        aclrt_registry_add_locked(&aclrt_report_registry, &t->reg, aclrt_report_match, &key);
    if (got != &t->reg) { /* cannot happen under the lock; or the table could not be made */
        cds_wfcq_destroy(&t->head, &t->tail);
        free(t);
        return got != NULL ? caa_container_of(got, struct aclrt_report_thread, reg) : NULL;
    }
    return t;
}

/* Unbind s from its thread of `kind` (caller holds the registry lock). */
ACLRT_INTERNAL void aclrt_report_unbind_locked(struct aclrt_stream *s, uint32_t kind, struct aclrt_report_thread *t)
{
    atomic_store_explicit(&s->report_threads[kind], NULL, memory_order_relaxed);
    uint32_t streams = atomic_load_explicit(&t->streams, memory_order_relaxed) - 1;
    atomic_store_explicit(&t->streams, streams, memory_order_relaxed);
    if (streams == 0) {
        t->device = -1;
        aclrt_report_subscribed[kind]--;
    }
}

/* A stream is being destroyed: it leaves its threads (stream_life.h calls this). */
ACLRT_INTERNAL void aclrt_report_stream_gone(struct aclrt_stream *s)
{
    if (atomic_load_explicit(&s->report_threads[0], memory_order_relaxed) == NULL &&
        atomic_load_explicit(&s->report_threads[1], memory_order_relaxed) == NULL)
        return;
    aclrt_registry_lock(&aclrt_report_registry);
    for (uint32_t kind = 0; kind < ACLRT_REPORT_KINDS; kind++) {
        struct aclrt_report_thread *t = atomic_load_explicit(&s->report_threads[kind], memory_order_relaxed);
        if (t != NULL)
            aclrt_report_unbind_locked(s, kind, t);
    }
    aclrt_registry_unlock(&aclrt_report_registry);
}

#endif /* ACLRT_IMPL_STREAM_CALLBACK_THREAD_H */
