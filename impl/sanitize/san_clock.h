/*
 * impl/sanitize/san_clock.h - vector clocks for the stream-ordering
 * sanitizer: for each agent (the host, or a stream), how much of every
 * other agent's work is ordered before it.
 *
 * A clock is sparse: a sorted array of (agent, count) ticks, an absent agent
 * counting 0. A stream usually hears of few others (the host, the streams
 * it waited for), so clocks stay short with hundreds of streams, and a join
 * is a merge of two sorted arrays. Only the sanitizer's lock holder touches
 * them (sanitize.h).
 */
#ifndef ACLRT_IMPL_SANITIZE_SAN_CLOCK_H
#define ACLRT_IMPL_SANITIZE_SAN_CLOCK_H

#include "../core/base.h"

struct aclrt_san_tick {
    uint32_t agent;
    uint64_t count;
};

struct aclrt_san_clock {
    uint32_t n, cap;
    struct aclrt_san_tick *t;
};

/* The sanitizer's memory: running out of it ends the program with a message (it is a debugging mode). */
ACLRT_INTERNAL void *aclrt_san_realloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes != 0 ? bytes : 1);
    if (q == NULL) {
        fprintf(stderr, "aclrt sanitizer: out of memory (%zu bytes)\n", bytes);
        abort();
    }
    return q;
}

ACLRT_INLINE void aclrt_san_clock_free(struct aclrt_san_clock *c)
{
    free(c->t);
    c->t = NULL;
    c->n = c->cap = 0;
}

/* The index of agent's tick in c, or where it would go. */
static uint32_t aclrt_san_clock_find(const struct aclrt_san_clock *c, uint32_t agent)
{
    uint32_t lo = 0, hi = c->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->t[mid].agent < agent)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

ACLRT_INLINE uint64_t aclrt_san_clock_get(const struct aclrt_san_clock *c, uint32_t agent)
{
    uint32_t i = aclrt_san_clock_find(c, agent);
    return i < c->n && c->t[i].agent == agent ? c->t[i].count : 0;
}

static void aclrt_san_clock_reserve(struct aclrt_san_clock *c, uint32_t n)
{
    if (n <= c->cap)
        return;
    uint32_t cap = c->cap < 4 ? 4 : c->cap;
    while (cap < n)
        cap *= 2;
    c->t = (struct aclrt_san_tick *)aclrt_san_realloc(c->t, cap * sizeof *c->t);
    c->cap = cap;
}

/* Set agent's count in c to `count` (raise or lower it). */
ACLRT_INTERNAL void aclrt_san_clock_put(struct aclrt_san_clock *c, uint32_t agent, uint64_t count)
{
    uint32_t i = aclrt_san_clock_find(c, agent);
    if (i < c->n && c->t[i].agent == agent) {
        c->t[i].count = count;
        return;
    }
    aclrt_san_clock_reserve(c, c->n + 1);
    memmove(&c->t[i + 1], &c->t[i], (c->n - i) * sizeof *c->t);
    c->t[i] = (struct aclrt_san_tick){agent, count};
    c->n++;
}

/* c = max(c, from), tick by tick. Returns whether c changed. */
ACLRT_INTERNAL bool aclrt_san_clock_join(struct aclrt_san_clock *c, const struct aclrt_san_clock *from)
{
    bool changed = false;
    uint32_t i = 0;
    for (uint32_t j = 0; j < from->n; j++) {
        const struct aclrt_san_tick *f = &from->t[j];
        while (i < c->n && c->t[i].agent < f->agent)
            i++;
        if (i < c->n && c->t[i].agent == f->agent) {
            if (c->t[i].count < f->count)
                c->t[i].count = f->count, changed = true;
            continue;
        }
        if (f->count == 0)
            continue;
        aclrt_san_clock_reserve(c, c->n + 1);
        memmove(&c->t[i + 1], &c->t[i], (c->n - i) * sizeof *c->t);
        c->t[i] = *f;
        c->n++;
        changed = true;
    }
    return changed;
}

ACLRT_INLINE void aclrt_san_clock_copy(struct aclrt_san_clock *c, const struct aclrt_san_clock *from)
{
    aclrt_san_clock_reserve(c, from->n);
    if (from->n != 0)
        memcpy(c->t, from->t, from->n * sizeof *c->t);
    c->n = from->n;
}

#endif /* ACLRT_IMPL_SANITIZE_SAN_CLOCK_H */
