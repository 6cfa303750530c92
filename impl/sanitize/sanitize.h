/*
 * impl/sanitize/sanitize.h - the stream-ordering sanitizer (aclrt.sanitize
 * "streams", ACLRT_SANITIZE=streams; docs/SANITIZER.md): the hooks the
 * layers below call (core/sanitize_hook.h), what each does to the
 * happens-before relation and the access records (san_state.h), and the
 * aclrtx calls of the sanitizer.
 *
 * What orders what:
 *   - tasks of one stream, in submission order;
 *   - the host before a task it submits (everything the host did before the
 *     call), and a task that runs host code (a host function, a callback)
 *     before the tasks that code submits;
 *   - an event record (stream X up to task T) before what a stream submits
 *     after a wait on it, or what the host does after synchronizing it or
 *     finding it complete; a stream or device synchronize, likewise;
 *   - a notify, counting-notify, value-word, group or IPC record before the
 *     waits on it submitted after it. A wait submitted before its record (a
 *     notify waited for first) is followed once the record comes; the tasks
 *     of its stream in between are ordered by something the sanitizer
 *     learns late, so their accesses are never reported ("unsure").
 * The host is one agent: the sanitizer cannot see what orders the
 * program's own threads, and this way it never reports a race between
 * them. It judges by the order the documented semantics give, not by
 * what this runtime happens to do (a synchronous copy waits for nothing).
 */
#ifndef ACLRT_IMPL_SANITIZE_SANITIZE_H
#define ACLRT_IMPL_SANITIZE_SANITIZE_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../sync/value.h"
#include "../context/stream_api.h"
#include "san_clock.h"
#include "san_report.h"
#include "san_state.h"
#include "san_task.h"

/* aclrtxSanitizerIgnoreBegin/End on this thread: how deep. */
static _Thread_local uint32_t aclrt_san_ignoring ACLRT_TLS_MODEL;

/* ------------------------------------------------------------------------
 * Who is calling: the host, or the code of a task (its stream and number)
 * ------------------------------------------------------------------------ */

struct aclrt_san_who {
    uint32_t agent;
    uint64_t epoch;
    struct aclrt_san_site site;
};

static int32_t aclrt_san_stream_id(const struct aclrt_stream *s)
{
    return (int32_t)aclrt_slot_index(&s->hdr);
}

/* The agent of stream slot s (made on first sight, named by its current life). */
static uint32_t aclrt_san_stream_agent(struct aclrt_stream *s)
{
    return aclrt_san_agent_of(s, aclrt_san_stream_id(s), (int32_t)s->device->id);
}

static struct aclrt_san_who aclrt_san_caller(void)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    struct aclrt_san_who w = {0};
    w.site.api = aclrt_tls.api;
    w.site.caller = aclrt_tls.caller;
    w.site.what = "host";
    struct aclrt_stream *r = aclrt_tls.running;
    uint64_t task = 0;
    if (r != NULL)
        task = aclrt_seq_read(&r->completed) + 1; /* the task running now: tasks complete in order */
    else if ((r = aclrt_tls.report_stream) != NULL)
        task = aclrt_tls.report_task;
    if (r == NULL) {
        w.agent = 0;
        w.epoch = st->agents[0].count;
        w.site.stream_id = -1;
        w.site.device = -1;
        return w;
    }
    w.agent = aclrt_san_stream_agent(r);
    w.epoch = task;
    w.site.what = "host code of a task";
    w.site.stream_id = aclrt_san_stream_id(r);
    w.site.device = (int32_t)r->device->id;
    w.site.task_id = (uint32_t)(task - r->life_base);
    return w;
}

/* The host's epoch is over once a task may follow it: later host accesses are not ordered before that task. */
static void aclrt_san_host_release(void)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    if (!st->host_dirty)
        return;
    struct aclrt_san_agent *h = &st->agents[0];
    h->count++;
    aclrt_san_clock_put(&h->clock, 0, h->count);
    st->host_dirty = false;
    aclrt_san_host_changed();
}

/* Stream agent a is about to order something after whatever called: the caller's clock joins a's. */
static void aclrt_san_follow_caller(uint32_t a, const struct aclrt_san_who *w)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    struct aclrt_san_agent *ag = &st->agents[a];
    if (w->agent == 0) {
        if (ag->host_version != st->host_version) {
            aclrt_san_clock_join(&ag->clock, &st->agents[0].clock);
            ag = &st->agents[a];
            ag->host_version = st->host_version;
        }
        aclrt_san_host_release();
    } else if (w->agent != a) {
        aclrt_san_clock_join(&st->agents[a].clock, &st->agents[w->agent].clock);
    }
}

/* ------------------------------------------------------------------------
 * Access records
 * ------------------------------------------------------------------------ */

/* Can record r race with nothing any more (every agent's clock has passed it)? */
static bool aclrt_san_dead(const struct aclrt_san_access *r)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    for (uint32_t i = 0; i < st->nagents; i++)
        if (i != r->agent && aclrt_san_clock_get(&st->agents[i].clock, r->agent) < r->epoch)
            return false;
    return true;
}

static void aclrt_san_gc(struct aclrt_san_block *b)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < b->n; i++)
        if (!aclrt_san_dead(&b->a[i]))
            b->a[k++] = b->a[i];
    b->n = k;
    b->gc_at = 2 * k > 64 ? 2 * k : 64;
}

struct aclrt_san_touch {
    uint32_t agent;
    uint64_t epoch;
    const struct aclrt_san_clock *clock; /* what is ordered before the access */
    bool unsure;
    unsigned mode;
    const struct aclrt_san_site *site;
};

/* Check [lo, hi) of b (a block, or the loose list) against its records, then record it. */
static void aclrt_san_touch_block(struct aclrt_san_block *b, bool is_block, uintptr_t lo, uintptr_t hi,
                                  const struct aclrt_san_touch *x)
{
    bool write = (x->mode & ACLRT_SAN_WRITE) != 0;
    if (is_block && b->freed) {
        if (x->mode & ACLRT_SAN_DEVICE) /* else: maybe the program's own memory, back at that address */
            aclrt_san_report(ACLRTX_SANITIZER_USE_AFTER_FREE, lo, hi, b, &b->free_site, true, x->site, write);
        return;
    }
    if (is_block && (aclrt_san_st.flags & ACLRT_SANITIZE_UNINIT) && !write && !aclrt_san_block_was_written(b, lo, hi))
        aclrt_san_report(ACLRTX_SANITIZER_UNINIT, lo, hi, b, x->site, false, x->site, false);
    for (uint32_t i = 0; i < b->n; i++) {
        const struct aclrt_san_access *r = &b->a[i];
        if (r->hi <= lo || r->lo >= hi || r->agent == x->agent || (!write && !r->write))
            continue;
        if (aclrt_san_clock_get(x->clock, r->agent) >= r->epoch || r->unsure || x->unsure)
            continue;
        aclrt_san_report(r->freed ? ACLRTX_SANITIZER_FREE_RACE : ACLRTX_SANITIZER_RACE, r->lo > lo ? r->lo : lo,
                         r->hi < hi ? r->hi : hi, is_block ? b : NULL, &r->site, r->write, x->site, write);
    }
    /* Records this access covers and follows: whatever races with them races with it. */
    uint32_t k = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const struct aclrt_san_access *r = &b->a[i];
        bool covered = r->lo >= lo && r->hi <= hi && (write || !r->write) && !r->unsure && !x->unsure &&
                       (r->agent == x->agent || aclrt_san_clock_get(x->clock, r->agent) >= r->epoch);
        if (!covered)
            b->a[k++] = b->a[i];
    }
    b->n = k;
    ACLRT_SAN_GROW(b->a, b->n, b->cap);
    b->a[b->n++] = (struct aclrt_san_access){lo, hi, x->agent, write, x->unsure, 0, x->epoch, *x->site};
    if (write && is_block)
        aclrt_san_block_written(b, lo, hi);
    if (b->n >= (b->gc_at ? b->gc_at : 64))
        aclrt_san_gc(b);
}

/* An access to [lo, hi): split along the blocks it crosses. */
static void aclrt_san_touch(uintptr_t lo, uintptr_t hi, const struct aclrt_san_touch *x)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    while (lo < hi) {
        uint32_t i = aclrt_san_block_index(lo);
        if (i < st->nblocks && st->blocks[i].lo <= lo) {
            uintptr_t end = st->blocks[i].hi < hi ? st->blocks[i].hi : hi;
            aclrt_san_touch_block(&st->blocks[i], true, lo, end, x);
            lo = end;
            continue;
        }
        uintptr_t end = i < st->nblocks && st->blocks[i].lo < hi ? st->blocks[i].lo : hi;
        aclrt_san_touch_block(&st->loose, false, lo, end, x);
        lo = end;
    }
}

/* ------------------------------------------------------------------------
 * Records and waits of objects (notifies, value words, groups, events)
 * ------------------------------------------------------------------------ */

/* The entry of `key`, or NULL; `make`: made if missing. */
static struct aclrt_san_keyed *aclrt_san_keyed_find(const void *key, bool make)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    if (make && 2 * (st->nkeyed + 1) > st->keymapcap) {
        uint32_t cap = st->keymapcap ? 2 * st->keymapcap : 64;
        uint32_t *map = (uint32_t *)aclrt_san_realloc(NULL, cap * sizeof *map);
        memset(map, 0, cap * sizeof *map);
        for (uint32_t i = 0; i < st->nkeyed; i++) {
            uint32_t h = aclrt_san_key_hash(st->keyed[i].key, cap);
            while (map[h] != 0)
                h = (h + 1) & (cap - 1);
            map[h] = i + 1;
        }
        free(st->keymap);
        st->keymap = map;
        st->keymapcap = cap;
    }
    if (st->keymapcap == 0)
        return NULL;
    uint32_t h = aclrt_san_key_hash(key, st->keymapcap);
    for (; st->keymap[h] != 0; h = (h + 1) & (st->keymapcap - 1))
        if (st->keyed[st->keymap[h] - 1].key == key)
            return &st->keyed[st->keymap[h] - 1];
    if (!make)
        return NULL;
    ACLRT_SAN_GROW(st->keyed, st->nkeyed, st->capkeyed);
    struct aclrt_san_keyed *k = &st->keyed[st->nkeyed++];
    memset(k, 0, sizeof *k);
    k->key = key;
    st->keymap[h] = st->nkeyed;
    return k;
}

/* The tasks of agent a from `from` on are ordered by something not known yet. */
static void aclrt_san_unsure_open(uint32_t a, uint64_t from)
{
    struct aclrt_san_agent *ag = &aclrt_san_st.agents[a];
    if (ag->unsure_from == UINT64_MAX)
        ag->unsure_from = from; /* an earlier range that closed stays inside: unsure is never reported */
    ag->unsure_to = UINT64_MAX;
}

/*
 * A record of `key` by agent a (its `records`-th): later waits follow it,
 * and so do the waits that came first and wait for this many records.
 */
static void aclrt_san_keyed_record(const void *key, uint32_t a, uint64_t value)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    struct aclrt_san_keyed *k = aclrt_san_keyed_find(key, true);
    aclrt_san_clock_copy(&k->clock, &st->agents[a].clock);
    k->records++;
    k->value = value;
    uint32_t j = 0;
    for (uint32_t i = 0; i < st->npending; i++) {
        struct aclrt_san_pending *p = &st->pending[i];
        if (p->key != key || p->need > k->records) {
            st->pending[j++] = *p;
            continue;
        }
        struct aclrt_san_agent *w = &st->agents[p->agent];
        aclrt_san_clock_join(&w->clock, &k->clock);
        for (uint32_t s = 0; s < ACLRT_SAN_SNAPS; s++)
            if (w->snaps[s].clock.t != NULL)
                aclrt_san_clock_join(&w->snaps[s].clock, &k->clock);
        if (--w->pending == 0)
            w->unsure_to = w->count; /* tasks after now follow the record through the clock */
    }
    st->npending = j;
}

/*
 * A wait of agent a (its task `number`) on `key` that a record makes go on
 * once the key has `need` records (0: the next record from now): follows
 * the latest record if there are that many, else the one that will come.
 */
static void aclrt_san_keyed_wait(const void *key, uint32_t a, uint64_t number, uint64_t need)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    struct aclrt_san_keyed *k = aclrt_san_keyed_find(key, true);
    if (need == 0)
        need = k->records + 1;
    if (k->records >= need) {
        aclrt_san_clock_join(&st->agents[a].clock, &k->clock);
        return;
    }
    ACLRT_SAN_GROW(st->pending, st->npending, st->cappending);
    st->pending[st->npending++] = (struct aclrt_san_pending){key, a, need};
    st->agents[a].pending++;
    aclrt_san_unsure_open(a, number);
}

/* The records a wait of task t needs (see aclrt_san_keyed_wait), counting the notify's waits. */
static uint64_t aclrt_san_wait_need(const struct aclrt_task *t, const void *key)
{
    struct aclrt_san_keyed *k = aclrt_san_keyed_find(key, true);
    switch (t->kind->id) {
    case ACLRT_TASK_NOTIFY_WAIT: /* each wait consumes one record */
        return ++k->waits;
    case ACLRT_TASK_HCOM_WAIT: /* released by the group's ticket-th record */
        return t->u.hcom.ticket;
    case ACLRT_TASK_VALUE_WAIT: /* the latest write, if its value lets the wait go on */
        return k->records != 0 && aclrt_value_satisfied(t->u32, k->value, t->u.value.value) ? k->records : 0;
    case ACLRT_TASK_MODEL_WAIT: /* the latest record at the replay */
        return k->records != 0 ? k->records : 0;
    default: /* legacy event, counting notify, IPC: the next record */
        return 0;
    }
}

/* Agent a waits for task `target` of agent `on`. */
static void aclrt_san_follow(uint32_t a, uint32_t on, uint64_t target)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    aclrt_san_clock_at(&st->agents[on], target, &st->scratch, on);
    aclrt_san_clock_join(&st->agents[a].clock, &st->scratch);
    if (a == 0)
        aclrt_san_host_changed();
}

/*
 * The object a record or wait task names (a notify, a value word, a group,
 * an IPC segment, an event a replay records or waits for), and whether the
 * task records it; NULL for other tasks.
 */
static const void *aclrt_san_task_key(const struct aclrt_task *t, bool *record)
{
    *record = true;
    switch (t->kind->id) {
    case ACLRT_TASK_MODEL_RECORD: return t->u.mark.event;
    case ACLRT_TASK_NOTIFY_RECORD: return t->u.notify.notify;
    case ACLRT_TASK_CNT_NOTIFY_RECORD: return t->u.cnt.cnt;
    case ACLRT_TASK_VALUE_WRITE: return t->u.value.word;
    case ACLRT_TASK_HCOM_RECORD: return t->u.hcom.group;
    case ACLRT_TASK_IPC_RECORD: return t->u.ipc.seg;
    default: break;
    }
    *record = false;
    switch (t->kind->id) {
    case ACLRT_TASK_WAIT_EVENT: return t->u.wait.from.event; /* a legacy event not recorded yet: its next record */
    case ACLRT_TASK_MODEL_WAIT: return t->u.mark.event;
    case ACLRT_TASK_NOTIFY_WAIT: return t->u.notify.notify;
    case ACLRT_TASK_CNT_NOTIFY_WAIT: return t->u.cnt.cnt;
    case ACLRT_TASK_VALUE_WAIT: return t->u.value.word;
    case ACLRT_TASK_HCOM_WAIT: return t->u.hcom.group;
    case ACLRT_TASK_IPC_WAIT: return t->u.ipc.seg; /* another process's record is never seen: the stream stays unsure */
    default: return NULL;
    }
}

/* The wait edges a task carries (its agent a, number n). */
static void aclrt_san_task_edges(const struct aclrt_task *t, uint32_t a, uint64_t n, unsigned depth)
{
    if (t->kind->id == ACLRT_TASK_WAIT_STREAM) {
        aclrt_san_follow(a, aclrt_san_stream_agent(t->u.wait.stream), t->u.wait.target);
        return;
    }
    if (t->kind->id == ACLRT_TASK_MODEL) {
        if (t->u.model.body != NULL && depth < 4)
            for (uint32_t i = 0; i < t->u.model.body->count; i++)
                aclrt_san_task_edges(&t->u.model.body->tasks[i], a, n, depth + 1);
        return;
    }
    bool record;
    const void *key = aclrt_san_task_key(t, &record);
    if (key == NULL)
        return;
    if (record)
        aclrt_san_keyed_record(key, a, t->kind->id == ACLRT_TASK_VALUE_WRITE ? t->u.value.value : 0);
    else
        aclrt_san_keyed_wait(key, a, n, aclrt_san_wait_need(t, key));
}

/* Kinds that order or mark and touch no memory: they leave a declaration for the next task. */
static bool aclrt_san_kind_marks(enum aclrt_task_kind_id id)
{
    switch (id) {
    case ACLRT_TASK_NOP: case ACLRT_TASK_WAIT_STREAM: case ACLRT_TASK_WAIT_EVENT: case ACLRT_TASK_EVENT_STAMP:
    case ACLRT_TASK_EVENT_RESET: case ACLRT_TASK_NOTIFY_RECORD: case ACLRT_TASK_NOTIFY_WAIT:
    case ACLRT_TASK_CNT_NOTIFY_RECORD: case ACLRT_TASK_CNT_NOTIFY_WAIT: case ACLRT_TASK_CNT_NOTIFY_RESET:
    case ACLRT_TASK_VALUE_WRITE: case ACLRT_TASK_VALUE_WAIT: case ACLRT_TASK_HCOM_RECORD: case ACLRT_TASK_HCOM_WAIT:
    case ACLRT_TASK_IPC_RECORD: case ACLRT_TASK_IPC_WAIT: case ACLRT_TASK_MODEL_RECORD: case ACLRT_TASK_MODEL_WAIT:
        return true;
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------
 * The hooks
 * ------------------------------------------------------------------------ */

/* Leave the lock, then print and hand over what was found under it. */
static void aclrt_san_unlock(void)
{
    struct aclrt_san_report *r;
    aclrtxSanitizerCallback cb;
    void *user;
    uint32_t n = aclrt_san_take_reports(&r, &cb, &user);
    pthread_mutex_unlock(&aclrt_san_st.lock);
    if (n != 0)
        aclrt_san_deliver(r, n, cb, user);
    else
        free(r);
}

static void aclrt_san_on_task(struct aclrt_stream *s, const struct aclrt_task *t, uint64_t number)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    if (st->nagents == 0)
        goto out; /* finalized */
    struct aclrt_san_who w = aclrt_san_caller();
    uint32_t a = aclrt_san_stream_agent(s);
    aclrt_san_follow_caller(a, &w);
    struct aclrt_san_agent *ag = &st->agents[a];
    if (number > ag->count)
        ag->count = number;
    aclrt_san_clock_put(&ag->clock, a, ag->count);
    aclrt_san_task_edges(t, a, number, 0);
    ag = &st->agents[a];

    struct aclrt_san_range_mode inline_ranges[ACLRT_SAN_INLINE_RANGES];
    struct aclrt_san_ranges rs = {0, ACLRT_SAN_INLINE_RANGES, inline_ranges};
    struct aclrt_san_decls *d = &aclrt_san_decls;
    if (aclrt_san_ignoring != 0) {
        if (d->stream == s)
            d->stream = NULL, d->n = 0;
    } else if (!aclrt_san_kind_marks(t->kind->id)) {
        if (d->stream == s) {
            for (uint32_t i = 0; i < d->n; i++)
                aclrt_san_ranges_add(&rs, (const void *)d->r[i].lo, d->r[i].hi - d->r[i].lo, d->r[i].mode);
            d->stream = NULL;
            d->n = 0;
        } else {
            aclrt_san_task_ranges(t, &rs, 0);
        }
    }
    if (rs.n != 0) {
        struct aclrt_san_site site = {w.site.api, t->kind->name, w.site.caller, aclrt_san_stream_id(s),
                                      (int32_t)s->device->id, (uint32_t)(number - s->life_base)};
        struct aclrt_san_touch x = {a, number, &ag->clock, aclrt_san_unsure(ag, number), 0, &site};
        for (uint32_t i = 0; i < rs.n; i++) {
            x.mode = rs.r[i].mode;
            x.clock = &st->agents[a].clock; /* the agents array may have moved */
            aclrt_san_touch(rs.r[i].lo, rs.r[i].hi, &x);
        }
    }
    if (rs.r != inline_ranges)
        free(rs.r);
out:
    aclrt_san_unlock();
}

static void aclrt_san_on_record(struct aclrt_stream *s, uint64_t target, const void *event)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        struct aclrt_san_who w = aclrt_san_caller();
        uint32_t a = aclrt_san_stream_agent(s);
        aclrt_san_follow_caller(a, &w); /* what the host did before the record is done when it completes */
        struct aclrt_san_agent *ag = &st->agents[a];
        uint32_t i = ag->next_snap++ % ACLRT_SAN_SNAPS;
        ag->snaps[i].target = target;
        aclrt_san_clock_copy(&ag->snaps[i].clock, &ag->clock);
        aclrt_san_clock_put(&ag->snaps[i].clock, a, target);
        aclrt_san_keyed_record(event, a, 0); /* waits issued before the record (legacy events) bind to it */
    }
    aclrt_san_unlock();
}

static void aclrt_san_on_edge(struct aclrt_stream *waiter, struct aclrt_stream *on, uint64_t target)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        uint32_t a = waiter != NULL ? aclrt_san_stream_agent(waiter)
                                    : aclrt_san_caller().agent;
        uint32_t o = aclrt_san_stream_agent(on);
        if (a != o)
            aclrt_san_follow(a, o, target);
    }
    aclrt_san_unlock();
}

static void aclrt_san_on_edge_all(int32_t device)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        uint32_t a = aclrt_san_caller().agent;
        for (uint32_t i = 1; i < st->nagents; i++) {
            if (i == a || (device >= 0 && st->agents[i].device != device))
                continue;
            aclrt_san_clock_join(&st->agents[a].clock, &st->agents[i].clock);
        }
        if (a == 0)
            aclrt_san_host_changed();
    }
    aclrt_san_unlock();
}

static void aclrt_san_on_edge_key(const void *key)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        uint32_t a = aclrt_san_caller().agent;
        struct aclrt_san_keyed *k = aclrt_san_keyed_find(key, false);
        if (k != NULL && k->records != 0) {
            aclrt_san_clock_join(&st->agents[a].clock, &k->clock);
            if (a == 0)
                aclrt_san_host_changed();
        }
    }
    aclrt_san_unlock();
}

static void aclrt_san_on_access(const void *p, size_t n, unsigned mode)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    if (p == NULL || n == 0 || aclrt_san_ignoring != 0)
        return;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        struct aclrt_san_who w = aclrt_san_caller();
        struct aclrt_san_agent *ag = &st->agents[w.agent];
        struct aclrt_san_touch x = {w.agent, w.epoch, &ag->clock, aclrt_san_unsure(ag, w.epoch), mode, &w.site};
        if (w.agent == 0)
            st->host_dirty = true;
        uintptr_t lo = (uintptr_t)p;
        aclrt_san_touch(lo, n > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + n, &x);
    }
    aclrt_san_unlock();
}

static void aclrt_san_on_alloc(const void *p, size_t n, const char *what)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    if (p == NULL || n == 0)
        return;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        uintptr_t lo = (uintptr_t)p, hi = lo + n;
        struct aclrt_san_block nb = {0};
        nb.lo = lo;
        nb.hi = hi;
        nb.alloc_api = what != NULL ? what : aclrt_tls.api;
        nb.alloc_caller = aclrt_tls.caller;
        /* Freed blocks the new one reuses: their records come along, to find the free races. */
        uint32_t i = aclrt_san_block_index(lo), j = i;
        bool live_overlap = false;
        while (j < st->nblocks && st->blocks[j].lo < hi)
            live_overlap |= !st->blocks[j++].freed;
        if (live_overlap) /* a mapping inside a block the sanitizer knows: keep that one */
            goto out;
        for (uint32_t k = i; k < j; k++) {
            struct aclrt_san_block *old = &st->blocks[k];
            for (uint32_t r = 0; r < old->n; r++) {
                struct aclrt_san_access acc = old->a[r];
                if (acc.hi <= lo || acc.lo >= hi)
                    continue;
                acc.lo = acc.lo < lo ? lo : acc.lo;
                acc.hi = acc.hi > hi ? hi : acc.hi;
                acc.freed = 1;
                ACLRT_SAN_GROW(nb.a, nb.n, nb.cap);
                nb.a[nb.n++] = acc;
            }
            aclrt_san_block_free(old);
        }
        if (j > i) {
            memmove(&st->blocks[i], &st->blocks[j], (st->nblocks - j) * sizeof *st->blocks);
            st->nblocks -= j - i;
        }
        ACLRT_SAN_GROW(st->blocks, st->nblocks, st->capblocks);
        memmove(&st->blocks[i + 1], &st->blocks[i], (st->nblocks - i) * sizeof *st->blocks);
        st->blocks[i] = nb;
        st->nblocks++;
        aclrt_san_gc(&st->blocks[i]);
    }
out:
    aclrt_san_unlock();
}

static void aclrt_san_on_release(const void *p)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    if (st->nagents != 0) {
        struct aclrt_san_block *b = aclrt_san_block_at((uintptr_t)p);
        if (b != NULL && b->lo == (uintptr_t)p && !b->freed) {
            struct aclrt_san_who w = aclrt_san_caller();
            if (st->flags & ACLRT_SANITIZE_FREE) {
                const struct aclrt_san_agent *ag = &st->agents[w.agent];
                for (uint32_t i = 0; i < b->n; i++) {
                    const struct aclrt_san_access *r = &b->a[i];
                    if (r->agent != w.agent && !r->unsure && !aclrt_san_unsure(ag, w.epoch) &&
                        aclrt_san_clock_get(&ag->clock, r->agent) < r->epoch)
                        aclrt_san_report(ACLRTX_SANITIZER_FREE_IN_USE, r->lo, r->hi, b, &r->site, r->write, &w.site,
                                         true);
                }
            }
            b->freed = true;
            b->free_site = w.site;
            free(b->w);
            b->w = NULL;
            b->nw = b->capw = 0;
            aclrt_san_gc(b);
        }
    }
    aclrt_san_unlock();
}

/* Forget everything (the runtime stopped, or starts again). Lock held. */
static void aclrt_san_reset(void)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    for (uint32_t i = 0; i < st->nagents; i++) {
        aclrt_san_clock_free(&st->agents[i].clock);
        for (uint32_t s = 0; s < ACLRT_SAN_SNAPS; s++)
            aclrt_san_clock_free(&st->agents[i].snaps[s].clock);
    }
    for (uint32_t i = 0; i < st->nblocks; i++)
        aclrt_san_block_free(&st->blocks[i]);
    aclrt_san_block_free(&st->loose);
    for (uint32_t i = 0; i < st->nkeyed; i++)
        aclrt_san_clock_free(&st->keyed[i].clock);
    free(st->agents);
    free(st->map);
    free(st->blocks);
    free(st->keyed);
    free(st->keymap);
    aclrt_san_clock_free(&st->scratch);
    free(st->pending);
    free(aclrt_san_rep.seen);
    pthread_mutex_t lock = st->lock;
    uint32_t flags = st->flags;
    memset(st, 0, sizeof *st);
    st->lock = lock;
    st->flags = flags;
    aclrt_san_rep.seen = NULL;
    aclrt_san_rep.nseen = aclrt_san_rep.capseen = 0;
}

static int aclrt_san_on_finalize(void)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    aclrt_san_reset();
    aclrt_san_unlock();
    uint64_t n = atomic_load_explicit(&aclrt_san_rep.count, memory_order_relaxed);
    if (n == 0)
        return -1;
    fprintf(stderr, "aclrt sanitizer: %llu report%s in this run\n", (unsigned long long)n, n == 1 ? "" : "s");
    uint32_t code = aclrt_rt.config.sanitize_exitcode;
    return code == 0 ? -1 : (int)code;
}

/* The runtime starts with the sanitizer on: a clean slate, the host as agent 0. */
static void aclrt_san_start(uint32_t flags)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    pthread_mutex_lock(&st->lock);
    aclrt_san_reset();
    st->flags = flags;
    uint32_t host = aclrt_san_agent_new(-1, -1);
    st->agents[host].count = 1;
    aclrt_san_clock_put(&st->agents[host].clock, host, 1);
    atomic_store_explicit(&aclrt_san_rep.count, 0, memory_order_relaxed);
    aclrt_san_unlock();
}

/*
 * A forked child: another thread of the parent may have held the lock in
 * the middle of a change, so what the state holds is left as it is (not
 * freed) and forgotten; the hooks do nothing until the child's runtime
 * starts again.
 */
static void aclrt_san_fork_child(void)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    uint32_t flags = st->flags;
    memset(st, 0, sizeof *st);
    pthread_mutex_init(&st->lock, NULL);
    st->flags = flags;
    aclrt_san_rep.seen = NULL;
    aclrt_san_rep.nseen = aclrt_san_rep.capseen = 0;
    aclrt_san_rep.queue = NULL;
    aclrt_san_rep.nqueue = aclrt_san_rep.capqueue = 0;
}

/* The table aclrt.h hands to the core (ACLRT_SANITIZER, core/sanitize_hook.h). */
static const struct aclrt_san_ops aclrt_san_ops = {
    .task = aclrt_san_on_task,
    .record = aclrt_san_on_record,
    .edge = aclrt_san_on_edge,
    .edge_all = aclrt_san_on_edge_all,
    .edge_key = aclrt_san_on_edge_key,
    .access = aclrt_san_on_access,
    .alloc = aclrt_san_on_alloc,
    .release = aclrt_san_on_release,
    .finalize = aclrt_san_on_finalize,
    .start = aclrt_san_start,
    .fork_child = aclrt_san_fork_child,
};

/* ------------------------------------------------------------------------
 * The aclrtx calls
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtxDeclareAccess(aclrtStream stream, const void *ptr, size_t size, uint32_t mode)
{
    ACLRT_ENTER();
    if (mode > ACLRTX_ACCESS_READ_WRITE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %u is none of ACLRTX_ACCESS_NONE, _READ, _WRITE, _READ_WRITE",
                          mode);
    if (mode != ACLRTX_ACCESS_NONE && (ptr == NULL || size == 0))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "an access needs a pointer and a size (ptr %p, size %zu)", ptr,
                          size);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (atomic_load_explicit(&aclrt_san, memory_order_acquire) == NULL)
        return ACL_SUCCESS; /* off: nothing takes declarations, so none is kept */
    struct aclrt_san_decls *d = &aclrt_san_decls;
    if (d->stream != s)
        d->stream = s, d->n = 0;
    if (mode == ACLRTX_ACCESS_NONE)
        return ACL_SUCCESS;
    if (d->n == ACLRT_SAN_DECLS)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "at most %d accesses can be declared for one task", ACLRT_SAN_DECLS);
    uintptr_t lo = (uintptr_t)ptr;
    d->r[d->n++] = (struct aclrt_san_range_mode){lo, size > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + size,
                                                 mode | ACLRT_SAN_DEVICE};
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtxSetSanitizerCallback(aclrtxSanitizerCallback callback, void *userData)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_san_st.lock);
    aclrt_san_rep.callback = callback;
    aclrt_san_rep.user = userData;
    pthread_mutex_unlock(&aclrt_san_st.lock);
    return ACL_SUCCESS;
}

ACLRT_API uint64_t aclrtxSanitizerReportCount(void)
{
    return atomic_load_explicit(&aclrt_san_rep.count, memory_order_relaxed);
}

ACLRT_API void aclrtxSanitizerIgnoreBegin(void)
{
    aclrt_san_ignoring++;
}

ACLRT_API void aclrtxSanitizerIgnoreEnd(void)
{
    if (aclrt_san_ignoring != 0)
        aclrt_san_ignoring--;
}

#endif /* ACLRT_IMPL_SANITIZE_SANITIZE_H */
