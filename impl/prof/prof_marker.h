/*
 * impl/prof/prof_marker.h - markers of a profiling session: the ones a
 * host thread makes now, the ones a stream makes when it reaches them, and
 * the dictionary of strings (aclprofStr2Id) the markers name themselves by.
 *
 * A stream marker is a task (a host kernel's kind id, so every backend runs
 * it on the host in the stream's order, after the work before it): when it
 * runs and a session runs, it adds an instant event on its device and
 * stream. Its payload lives in the task record; its message is interned in
 * the dictionary, so a model that captured it replays it as often as it
 * likes. Outside a session the task runs and records nothing.
 */
#ifndef ACLRT_IMPL_PROF_PROF_MARKER_H
#define ACLRT_IMPL_PROF_PROF_MARKER_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"
#include "prof_trace.h"

/* ------------------------------------------------------------------------
 * The dictionary: strings by their 64-bit FNV-1a hash
 * ------------------------------------------------------------------------ */

#define ACLRT_PROF_DICT_BUCKETS 1024
#define ACLRT_PROF_DICT_MAX 65536 /* strings kept; past it a string is hashed but not kept */

struct aclrt_prof_word {
    uint64_t id;
    struct aclrt_prof_word *next;
    char text[]; /* NUL-terminated */
};

/* Under its own lock; the words live for the process (a replayed marker may name one at any time). */
static struct {
    pthread_mutex_t lock;
    struct aclrt_prof_word *buckets[ACLRT_PROF_DICT_BUCKETS];
    uint32_t count;
} aclrt_prof_dict = {.lock = PTHREAD_MUTEX_INITIALIZER};

ACLRT_INLINE uint64_t aclrt_prof_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The kept copy of the n bytes at s (NUL added), hashed to *id; NULL when the dictionary is full or out of memory. */
ACLRT_INTERNAL const char *aclrt_prof_intern(const char *s, size_t n, uint64_t *id)
{
    uint64_t h = aclrt_prof_hash(s, n);
    if (id != NULL)
        *id = h;
    struct aclrt_prof_word **bucket = &aclrt_prof_dict.buckets[h % ACLRT_PROF_DICT_BUCKETS];
    const char *found = NULL;
    pthread_mutex_lock(&aclrt_prof_dict.lock);
    for (struct aclrt_prof_word *w = *bucket; w != NULL && found == NULL; w = w->next)
        if (w->id == h && strncmp(w->text, s, n) == 0 && w->text[n] == '\0')
            found = w->text;
    if (found == NULL && aclrt_prof_dict.count < ACLRT_PROF_DICT_MAX) {
        struct aclrt_prof_word *w = (struct aclrt_prof_word *)malloc(sizeof *w + n + 1);
        if (w != NULL) {
            w->id = h;
            memcpy(w->text, s, n);
            w->text[n] = '\0';
            w->next = *bucket;
            *bucket = w;
            aclrt_prof_dict.count++;
            found = w->text;
        }
    }
    pthread_mutex_unlock(&aclrt_prof_dict.lock);
    return found;
}

/* The string hashed to id, copied into out (n bytes); false if none is kept. */
ACLRT_INTERNAL bool aclrt_prof_lookup(uint64_t id, char *out, size_t n)
{
    bool found = false;
    pthread_mutex_lock(&aclrt_prof_dict.lock);
    for (struct aclrt_prof_word *w = aclrt_prof_dict.buckets[id % ACLRT_PROF_DICT_BUCKETS]; w != NULL; w = w->next)
        if (w->id == id) {
            snprintf(out, n, "%s", w->text);
            found = true;
            break;
        }
    pthread_mutex_unlock(&aclrt_prof_dict.lock);
    return found;
}

/* ------------------------------------------------------------------------
 * Markers
 * ------------------------------------------------------------------------ */

/* Is a session running that takes markers? Caller holds aclrt_prof.lock. */
ACLRT_INLINE bool aclrt_prof_taking_locked(void)
{
    return aclrt_prof.running;
}

/* Add a host thread's marker to the running session, if one runs (takes the lock). */
ACLRT_INTERNAL void aclrt_prof_host_mark(struct aclrt_prof_mark *m)
{
    m->stream_on = false;
    m->tid = aclrt_thread_tid();
    pthread_mutex_lock(&aclrt_prof.lock);
    if (aclrt_prof_taking_locked())
        aclrt_prof_add_mark_locked(m);
    pthread_mutex_unlock(&aclrt_prof.lock);
}

/* The stream marker's run: an instant event on its device and stream, now. */
static int aclrt_prof_marker_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)blk;
    struct aclrt_prof_mark m = {
        .begin_ns = aclrt_now_ns(),
        .cat = t->u.prof_marker.cat,
        .ph = 'i',
        .stream_on = true,
        .device = s->device->id,
        .stream = (uint32_t)aclrt_slot_index(&s->hdr),
        .tid = aclrt_thread_tid(),
        .a = t->u.prof_marker.a,
        .b = t->u.prof_marker.b,
        .c = t->u.prof_marker.c,
    };
    m.end_ns = m.begin_ns;
    if (t->u.prof_marker.msg != NULL)
        snprintf(m.msg, sizeof m.msg, "%s", t->u.prof_marker.msg);
    pthread_mutex_lock(&aclrt_prof.lock);
    if (aclrt_prof_taking_locked())
        aclrt_prof_add_mark_locked(&m);
    pthread_mutex_unlock(&aclrt_prof.lock);
    return ACL_SUCCESS;
}

/* A host kernel's id: the backends run it on the host, in the stream's order; it holds nothing to drop. */
static const struct aclrt_task_kind aclrt_kind_prof_marker = {ACLRT_TASK_HOST_KERNEL, "profiling marker",
                                                              aclrt_prof_marker_run, NULL};

/* Put a marker of category cat (message msg, interned or NULL; numbers a, b, c) into stream's order. */
ACLRT_INTERNAL aclError aclrt_prof_stream_mark(aclrtStream stream, const char *cat, const char *msg, uint64_t a,
                                               uint64_t b, uint64_t c)
{
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_prof_marker, .u32 = 1};
    t.u.prof_marker.a = a;
    t.u.prof_marker.b = b;
    t.u.prof_marker.c = c;
    t.u.prof_marker.msg = msg;
    t.u.prof_marker.cat = cat;
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_PROF_PROF_MARKER_H */
