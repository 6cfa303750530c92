/*
 * impl/sanitize/san_state.h - what the stream-ordering sanitizer knows: its
 * agents and their clocks, the blocks of memory, and the accesses made to
 * them that something may still race with.
 *
 * Agents are the host (agent 0: every thread of the program that is not
 * running a task, as one: the sanitizer cannot see what orders the
 * program's own threads, and treating them as one never reports a race
 * that is not there) and each stream slot (its lives one after the other:
 * a slot's task numbers go on across lives). An agent's clock says, for
 * every agent, up to which of its tasks (host: host epochs) everything is
 * ordered before the agent's next task.
 *
 * An access record is a byte range, read or written, by one task (agent,
 * epoch). A new access is checked against the records of the bytes it
 * touches: two accesses race when at least one writes and neither is
 * ordered before the other. Records that every agent's clock has passed
 * can race with nothing any more and are dropped.
 *
 * Everything here is guarded by one mutex (sanitize.h): the sanitizer is a
 * debugging mode, off by default, and its cost is measured, not hidden.
 */
#ifndef ACLRT_IMPL_SANITIZE_SAN_STATE_H
#define ACLRT_IMPL_SANITIZE_SAN_STATE_H

#include "../core/base.h"
#include "san_clock.h"

struct aclrt_stream;

/* Where an access came from: the call, its task, its stream. */
struct aclrt_san_site {
    const char *api;    /* the public call ("aclrtMemcpyAsync") */
    const char *what;   /* the task kind ("memory copy"), or "host" */
    const void *caller; /* the call's return address in the program */
    int32_t stream_id;  /* -1: the host */
    int32_t device;
    uint32_t task_id; /* as aclrtGetThreadLastTaskId counts (0: the host) */
};

struct aclrt_san_access {
    uintptr_t lo, hi; /* [lo, hi) */
    uint32_t agent;
    uint8_t write;
    uint8_t unsure; /* its task may be ordered by a wait the sanitizer could not follow: never reported */
    uint8_t freed;  /* made on a block freed since, whose memory came back in a new one */
    uint64_t epoch;
    struct aclrt_san_site site;
};

/* A block of memory (aclrtMalloc and the others) and the accesses to it still worth checking. */
struct aclrt_san_block {
    uintptr_t lo, hi;
    bool freed; /* freed, its memory not allocated again yet: an access is a use after free */
    const char *alloc_api;
    const void *alloc_caller;
    struct aclrt_san_site free_site;
    uint32_t n, cap, gc_at;
    struct aclrt_san_access *a;
    /* What was ever written ("uninit"): sorted, disjoint ranges. */
    uint32_t nw, capw;
    struct aclrt_san_range {
        uintptr_t lo, hi;
    } *w;
};

/* Records of an agent (stream) kept for the waits that name one of its tasks. */
#define ACLRT_SAN_SNAPS 16

struct aclrt_san_agent {
    int32_t stream_id, device; /* -1: the host */
    uint64_t count;              /* the last task numbered (host: the current epoch) */
    struct aclrt_san_clock clock;
    uint64_t host_version; /* the host clock's version last joined */
    /* Tasks numbered in [unsure_from, unsure_to] (unsure_to UINT64_MAX: still open) may be ordered after a wait not followed. */
    uint64_t unsure_from, unsure_to;
    uint32_t pending; /* future waits not resolved yet */
    struct {
        uint64_t target;
        struct aclrt_san_clock clock;
    } snaps[ACLRT_SAN_SNAPS];
    uint32_t next_snap;
};

/* The clock of the latest record of an object (a notify, a value word, an event, a group). */
struct aclrt_san_keyed {
    const void *key;
    struct aclrt_san_clock clock;
    uint64_t records; /* records seen */
    uint64_t waits;   /* notify waits submitted (each consumes a record) */
    uint64_t value;   /* a value word: the latest value written */
};

/* A wait on an object recorded later than the wait (a notify waited for before its record). */
struct aclrt_san_pending {
    const void *key;
    uint32_t agent;
    uint64_t need; /* resolved by the key's need-th record */
};

struct aclrt_san_state {
    pthread_mutex_t lock;
    uint32_t flags; /* ACLRT_SANITIZE_* */
    struct aclrt_san_agent *agents;
    uint32_t nagents, capagents;
    /* Stream slot -> agent: open addressing on the slot pointer, power-of-two size. */
    struct aclrt_san_slot {
        struct aclrt_stream *s;
        uint32_t agent;
    } *map;
    uint32_t mapcap;
    uint64_t host_version;
    bool host_dirty; /* the host made accesses at its current epoch */
    struct aclrt_san_block *blocks; /* sorted by lo, disjoint */
    uint32_t nblocks, capblocks;
    struct aclrt_san_block loose; /* accesses outside every block (pageable host memory) */
    struct aclrt_san_keyed *keyed; /* found through keymap: open addressing on the key, power-of-two size */
    uint32_t nkeyed, capkeyed;
    uint32_t *keymap; /* index + 1 into keyed; 0: empty */
    uint32_t keymapcap;
    struct aclrt_san_pending *pending;
    uint32_t npending, cappending;
    struct aclrt_san_clock scratch; /* a clock as of a task, while a wait joins it (aclrt_san_follow) */
};

static struct aclrt_san_state aclrt_san_st = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define ACLRT_SAN_GROW(arr, n, cap)                                                                                \
    do {                                                                                                         \
        if ((n) == (cap)) {                                                                                      \
            (cap) = (cap) ? 2 * (cap) : 8;                                                                       \
            (arr) = aclrt_san_realloc((arr), (size_t)(cap) * sizeof *(arr));                                      \
        }                                                                                                        \
    } while (0)

/* ------------------------------------------------------------------------
 * Agents
 * ------------------------------------------------------------------------ */

/* A pointer's place in an open-addressing table of `cap` (a power of two) entries. */
ACLRT_INTERNAL uint32_t aclrt_san_key_hash(const void *key, uint32_t cap)
{
    return (uint32_t)(((uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

ACLRT_INTERNAL uint32_t aclrt_san_agent_new(int32_t stream_id, int32_t device)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    ACLRT_SAN_GROW(st->agents, st->nagents, st->capagents);
    uint32_t id = st->nagents++;
    struct aclrt_san_agent *a = &st->agents[id];
    memset(a, 0, sizeof *a);
    a->stream_id = stream_id;
    a->device = device;
    a->unsure_from = UINT64_MAX;
    a->host_version = UINT64_MAX;
    return id;
}

/* The agent of stream slot s (made on first sight). */
ACLRT_INTERNAL uint32_t aclrt_san_agent_of(struct aclrt_stream *s, int32_t stream_id, int32_t device)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    if (st->mapcap == 0 || 2 * st->nagents >= st->mapcap) {
        uint32_t cap = st->mapcap ? 2 * st->mapcap : 64;
        struct aclrt_san_slot *map = (struct aclrt_san_slot *)aclrt_san_realloc(NULL, cap * sizeof *map);
        memset(map, 0, cap * sizeof *map);
        for (uint32_t i = 0; i < st->mapcap; i++)
            if (st->map[i].s != NULL) {
                uint32_t h = aclrt_san_key_hash(st->map[i].s, cap);
                while (map[h].s != NULL)
                    h = (h + 1) & (cap - 1);
                map[h] = st->map[i];
            }
        free(st->map);
        st->map = map;
        st->mapcap = cap;
    }
    uint32_t h = aclrt_san_key_hash(s, st->mapcap);
    while (st->map[h].s != NULL) {
        if (st->map[h].s == s) {
            struct aclrt_san_agent *a = &st->agents[st->map[h].agent];
            a->stream_id = stream_id; /* a new life may sit on another device */
            a->device = device;
            return st->map[h].agent;
        }
        h = (h + 1) & (st->mapcap - 1);
    }
    uint32_t id = aclrt_san_agent_new(stream_id, device);
    st->map[h] = (struct aclrt_san_slot){s, id};
    return id;
}

/* Is agent's task `epoch` one whose order the sanitizer could not follow? */
ACLRT_INLINE bool aclrt_san_unsure(const struct aclrt_san_agent *a, uint64_t epoch)
{
    return epoch >= a->unsure_from && epoch <= a->unsure_to;
}

/* The host's clock changed: streams join it again at their next task. */
ACLRT_INLINE void aclrt_san_host_changed(void)
{
    aclrt_san_st.host_version++;
}

/*
 * Agent a's clock as of its task `target`: the snapshot a record took then,
 * else the nearest later one, else its clock now; its own count is `target`
 * exactly. A later snapshot may order more than was (a race missed), never
 * less (no race invented).
 */
ACLRT_INTERNAL const struct aclrt_san_clock *aclrt_san_clock_at(struct aclrt_san_agent *a, uint64_t target,
                                                         struct aclrt_san_clock *scratch, uint32_t self)
{
    const struct aclrt_san_clock *best = &a->clock;
    uint64_t best_target = UINT64_MAX;
    for (uint32_t i = 0; i < ACLRT_SAN_SNAPS; i++)
        if (a->snaps[i].clock.t != NULL && a->snaps[i].target >= target && a->snaps[i].target < best_target)
            best = &a->snaps[i].clock, best_target = a->snaps[i].target;
    aclrt_san_clock_copy(scratch, best);
    aclrt_san_clock_put(scratch, self, target);
    return scratch;
}

/* ------------------------------------------------------------------------
 * Blocks
 * ------------------------------------------------------------------------ */

/* The index of the first block whose end is above p. */
ACLRT_INTERNAL uint32_t aclrt_san_block_index(uintptr_t p)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    uint32_t lo = 0, hi = st->nblocks;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->blocks[mid].hi <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The block holding byte p, or NULL. */
ACLRT_INTERNAL struct aclrt_san_block *aclrt_san_block_at(uintptr_t p)
{
    struct aclrt_san_state *st = &aclrt_san_st;
    uint32_t i = aclrt_san_block_index(p);
    return i < st->nblocks && st->blocks[i].lo <= p ? &st->blocks[i] : NULL;
}

ACLRT_INTERNAL void aclrt_san_block_free(struct aclrt_san_block *b)
{
    free(b->a);
    free(b->w);
    b->a = NULL;
    b->w = NULL;
    b->n = b->cap = b->nw = b->capw = 0;
}

/* Record that [lo, hi) of b was written ("uninit"). */
ACLRT_INTERNAL void aclrt_san_block_written(struct aclrt_san_block *b, uintptr_t lo, uintptr_t hi)
{
    uint32_t i = 0;
    while (i < b->nw && b->w[i].hi < lo)
        i++;
    uint32_t j = i;
    while (j < b->nw && b->w[j].lo <= hi) {
        lo = b->w[j].lo < lo ? b->w[j].lo : lo;
        hi = b->w[j].hi > hi ? b->w[j].hi : hi;
        j++;
    }
    if (j == i) {
        ACLRT_SAN_GROW(b->w, b->nw, b->capw);
        memmove(&b->w[i + 1], &b->w[i], (b->nw - i) * sizeof *b->w);
        b->nw++;
    } else if (j > i + 1) {
        memmove(&b->w[i + 1], &b->w[j], (b->nw - j) * sizeof *b->w);
        b->nw -= j - i - 1;
    }
    b->w[i] = (struct aclrt_san_range){lo, hi};
}

/* Was all of [lo, hi) of b written? */
ACLRT_INTERNAL bool aclrt_san_block_was_written(const struct aclrt_san_block *b, uintptr_t lo, uintptr_t hi)
{
    for (uint32_t i = 0; i < b->nw; i++)
        if (b->w[i].lo <= lo && b->w[i].hi >= hi)
            return true;
    return false;
}

#endif /* ACLRT_IMPL_SANITIZE_SAN_STATE_H */
