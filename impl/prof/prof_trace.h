/*
 * impl/prof/prof_trace.h - the profiling session: which devices it records,
 * the tasks that ran on them, and the Chrome trace written when it ends.
 *
 * While a session runs (aclprofStart .. aclprofStop, prof.h) the executor
 * that runs a task of a profiled device records it: its device, stream,
 * kind, number, status, and the times it started and finished. The run
 * path (exec.h) pays one relaxed load of `aclrt_prof.on` per task when no
 * session runs; with one, a task of a device it does not profile costs a
 * second load, and a recorded task the session's mutex and an append.
 *
 * A task that waits (an event or notify wait, a value wait) starts when its
 * executor first reaches it: the stream keeps that time (prof_begin_ns)
 * until the task finishes. A task a backend issues (the cuda backend's
 * kernels and copies) ends, here, when it is handed to the device.
 *
 * The trace is Chrome's JSON trace format ({"traceEvents": [...]}, read by
 * chrome://tracing and Perfetto): one complete event ("ph": "X") per task,
 * its process the device ("device N"), its thread the stream ("stream S"),
 * times in microseconds since aclprofStart. The session's markers
 * (prof_marker.h, prof_tx.h, prof_step.h) follow as instant events ("i")
 * or complete ones: a host thread's under the process "host"
 * (ACLRT_PROF_HOST_PID), a stream's under its device and stream; their
 * messages are JSON-escaped. otherData lists the aclprofSetConfig settings
 * by type. A session keeps at most ACLRT_PROF_MAX_EVENTS tasks and as many
 * markers; the ones past it are counted in the trace's otherData.dropped.
 */
#ifndef ACLRT_IMPL_PROF_PROF_TRACE_H
#define ACLRT_IMPL_PROF_PROF_TRACE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"

#include <stdio.h>
#include <unistd.h>

#define ACLRT_PROF_MAX_EVENTS ((size_t)1 << 22)
#define ACLRT_PROF_PATH_MAX 4096 /* bytes of aclprofInit's path, with the terminating NUL */

struct aclrt_prof_event {
    uint64_t begin_ns, end_ns;
    uint64_t task; /* the task's number in its stream's life */
    const char *kind;
    uint32_t device, stream;
    int32_t status;
};

/*
 * A marker of the session (prof_tx.h, prof_step.h): an instant event ('i')
 * or a range ('X'), on a host thread (stream_on false: `tid` is the OS
 * thread) or at a stream's point in its order (device, stream).
 */
struct aclrt_prof_mark {
    uint64_t begin_ns, end_ns;
    const char *cat; /* "mark", "push", "range", "markEx", "tensor", "step", "trace" */
    char ph;
    bool stream_on;
    uint32_t device, stream, tid;
    uint64_t a, b, c; /* the category's numbers (aclrt_prof_write_mark) */
    char msg[128];    /* NUL-terminated */
};

/*
 * A push, range or tensor range begun and not yet ended (prof_tx.h): in
 * one list for the process, so a stop drops them all (a marker begun in
 * a session ends in it, or not at all).
 */
struct aclrt_prof_open {
    struct aclrt_prof_mark mark; /* begin_ns, cat, msg and numbers set; the rest when it ends */
    uint32_t owner;              /* push, tensor range: the thread that began it (it alone ends it) */
    uint32_t id;                 /* range: its id */
    struct aclrt_prof_open *next;
};

#define ACLRT_PROF_HOST_PID ACLRT_MAX_DEVICES /* the trace's process of host-side markers */
#define ACLRT_PROF_SETTINGS 17                /* aclprofConfigType values below ACL_PROF_ARGS_MAX */
#define ACLRT_PROF_SETTING_MAX 256            /* bytes of an aclprofSetConfig value */

static struct {
    /* A session runs: the one load the run path pays (relaxed: a task that misses it is not recorded). */
    _Atomic bool on;
    _Atomic bool device_on[ACLRT_MAX_DEVICES]; /* set before `on`, cleared after */
    /* Tasks inside the profiled path (exec.h): a stop waits for them to record themselves. */
    _Atomic uint32_t busy;
    pthread_mutex_t lock;
    /* The rest under the lock. */
    bool inited;           /* aclprofInit .. aclprofFinalize */
    bool running;          /* aclprofStart .. aclprofStop */
    bool stopping;         /* a stop waits for the tasks in the profiled path (lock let go meanwhile) */
    char dir[ACLRT_PROF_PATH_MAX];
    uint64_t start_ns;     /* the session's aclprofStart */
    uint64_t data_types;   /* the running config's ACL_PROF_* bits and metrics, written into the trace */
    int metrics;
    struct aclrt_prof_event *events;
    size_t count, cap;
    uint64_t dropped;
    struct aclrt_prof_mark *marks; /* the session's markers, in the order they were made */
    struct aclrt_prof_open *open;  /* the markers begun, not ended: the latest first */
    size_t mark_count, mark_cap;
    bool tx_on;            /* the running session's configuration has ACL_PROF_MSPROFTX */
    /* aclprofSetConfig's values, by aclprofConfigType (empty: not set); the trace lists them. */
    char settings[ACLRT_PROF_SETTINGS][ACLRT_PROF_SETTING_MAX + 1];
    unsigned traces;       /* traces written by this process: the next file's number */
} aclrt_prof = {.lock = PTHREAD_MUTEX_INITIALIZER};

/*
 * The start of the task s is about to run (a session runs): the time its
 * first attempt began, or now; 0 if the session does not profile s's device.
 * Called by the stream's holder only.
 */
ACLRT_INTERNAL uint64_t aclrt_prof_task_begin(struct aclrt_stream *s)
{
    if (!atomic_load_explicit(&aclrt_prof.device_on[s->device->id], memory_order_relaxed))
        return 0;
    if (s->prof_task != s->issued || s->prof_begin_ns == 0) {
        s->prof_task = s->issued;
        s->prof_begin_ns = aclrt_now_ns();
    }
    return s->prof_begin_ns;
}

/* Task t of s, begun at `begin_ns`, finished (or was issued) with `status`: record it if a session still runs. */
ACLRT_INTERNAL void aclrt_prof_task_end(struct aclrt_stream *s, const struct aclrt_task *t, uint64_t begin_ns,
                                        int status)
{
    uint64_t end_ns = aclrt_now_ns();
    s->prof_begin_ns = 0;
    uint32_t dev = s->device->id;
    pthread_mutex_lock(&aclrt_prof.lock);
    if (!aclrt_prof.running || !atomic_load_explicit(&aclrt_prof.device_on[dev], memory_order_relaxed)) {
        pthread_mutex_unlock(&aclrt_prof.lock);
        return;
    }
    if (aclrt_prof.count == aclrt_prof.cap && aclrt_prof.cap < ACLRT_PROF_MAX_EVENTS) {
        size_t cap = aclrt_prof.cap == 0 ? 1024 : aclrt_prof.cap * 2;
        struct aclrt_prof_event *grown =
            (struct aclrt_prof_event *)realloc(aclrt_prof.events, cap * sizeof *grown);
        if (grown != NULL) {
            aclrt_prof.events = grown;
            aclrt_prof.cap = cap;
        }
    }
    if (aclrt_prof.count < aclrt_prof.cap) {
        aclrt_prof.events[aclrt_prof.count++] = (struct aclrt_prof_event){
            .begin_ns = begin_ns < aclrt_prof.start_ns ? aclrt_prof.start_ns : begin_ns,
            .end_ns = end_ns,
            .task = s->issued - s->life_base,
            .kind = t->kind->name,
            .device = dev,
            .stream = (uint32_t)aclrt_slot_index(&s->hdr),
            .status = status == ACLRT_TASK_ISSUED ? 0 : status,
        };
    } else {
        aclrt_prof.dropped++;
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
}

/*
 * Add marker m to the running session (caller holds the lock and found
 * it running). A session keeps at most ACLRT_PROF_MAX_EVENTS markers, the
 * rest counted as dropped.
 */
ACLRT_INTERNAL void aclrt_prof_add_mark_locked(const struct aclrt_prof_mark *m)
{
    if (aclrt_prof.mark_count == aclrt_prof.mark_cap && aclrt_prof.mark_cap < ACLRT_PROF_MAX_EVENTS) {
        size_t cap = aclrt_prof.mark_cap == 0 ? 64 : aclrt_prof.mark_cap * 2;
        struct aclrt_prof_mark *grown = (struct aclrt_prof_mark *)realloc(aclrt_prof.marks, cap * sizeof *grown);
        if (grown != NULL) {
            aclrt_prof.marks = grown;
            aclrt_prof.mark_cap = cap;
        }
    }
    if (aclrt_prof.mark_count < aclrt_prof.mark_cap) {
        struct aclrt_prof_mark *at = &aclrt_prof.marks[aclrt_prof.mark_count++];
        *at = *m;
        if (at->begin_ns < aclrt_prof.start_ns)
            at->begin_ns = aclrt_prof.start_ns;
        if (at->end_ns < at->begin_ns)
            at->end_ns = at->begin_ns;
    } else {
        aclrt_prof.dropped++;
    }
}

/* Write s as a JSON string: quotes, backslashes and control bytes escaped, bytes that are not UTF-8 as U+FFFD. */
static void aclrt_prof_print_str(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            p++;
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc(c, f);
            p++;
        } else {
            int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
            if (c >= 0xF5)
                n = 0;
            int k = 1;
            while (n != 0 && k < n && (p[k] & 0xC0) == 0x80)
                k++;
            if (n == 0 || k < n) {
                fputs("\\ufffd", f);
                p += k;
            } else {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            }
        }
    }
    fputc('"', f);
}

/* Microseconds of the trace: since the session's start, to the nanosecond. */
static void aclrt_prof_print_us(FILE *f, uint64_t ns)
{
    fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/*
 * One marker as a trace event: its message the name (or, empty, its
 * category), the numbers of its category in args.
 */
static void aclrt_prof_write_mark(FILE *f, const char *sep, const struct aclrt_prof_mark *m)
{
    fputs(sep, f);
    fputs("{\"name\":", f);
    aclrt_prof_print_str(f, m->msg[0] != '\0' ? m->msg : m->cat);
    fprintf(f, ",\"cat\":\"%s\",\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,\"ts\":", m->cat, m->ph,
            m->stream_on ? m->device : ACLRT_PROF_HOST_PID, m->stream_on ? m->stream : m->tid);
    aclrt_prof_print_us(f, m->begin_ns - aclrt_prof.start_ns);
    if (m->ph == 'X') {
        fputs(",\"dur\":", f);
        aclrt_prof_print_us(f, m->end_ns - m->begin_ns);
    } else {
        fputs(",\"s\":\"t\"", f); /* an instant event of its thread */
    }
    fputs(",\"args\":{", f);
    unsigned long long a = m->a, b = m->b, c = m->c;
    if (strcmp(m->cat, "range") == 0)
        fprintf(f, "\"rangeId\":%llu", a);
    else if (strcmp(m->cat, "markEx") == 0)
        fprintf(f, "\"markId\":%llu", a);
    else if (strcmp(m->cat, "step") == 0)
        fprintf(f, "\"step\":%llu,\"tag\":%llu", a, b);
    else if (strcmp(m->cat, "trace") == 0)
        fprintf(f, "\"id\":%llu,\"modelId\":%llu,\"tagId\":%llu", a, b, c);
    else if (strcmp(m->cat, "tensor") == 0)
        fprintf(f, "\"opNameId\":%llu,\"opTypeId\":%llu,\"tensorNum\":%llu", a, b, c);
    else
        fprintf(f, "\"thread\":%u", m->tid);
    fputs("}}", f);
}

/* Has an event of the first `n` one with this device (and stream, unless `any_stream`)? */
static bool aclrt_prof_seen(size_t n, uint32_t device, uint32_t stream, bool any_stream)
{
    for (size_t i = 0; i < n; i++)
        if (aclrt_prof.events[i].device == device && (any_stream || aclrt_prof.events[i].stream == stream))
            return true;
    return false;
}

/*
 * Write the session's trace into the directory of aclprofInit and forget
 * its events. Caller holds the lock, the session no longer runs. Returns
 * an ACL code (with message on failure).
 */
ACLRT_INTERNAL aclError aclrt_prof_write_locked(void)
{
    char path[ACLRT_PROF_PATH_MAX + 64], tmp[ACLRT_PROF_PATH_MAX + 72];
    snprintf(path, sizeof path, "%s/aclrt_trace_%ld_%u.json", aclrt_prof.dir, (long)getpid(), aclrt_prof.traces);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    aclError rc = ACL_SUCCESS;
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        rc = aclrt_fail(ACL_ERROR_PROFILING_FAILURE, "cannot write the trace %s: %s", tmp, strerror(errno));
        goto out;
    }
    fputs("{\"traceEvents\":[", f);
    const char *sep = "\n";
    /* Names first: a process per device, a thread per stream, as they first appear. */
    for (size_t i = 0; i < aclrt_prof.count; i++) {
        const struct aclrt_prof_event *e = &aclrt_prof.events[i];
        if (!aclrt_prof_seen(i, e->device, 0, true)) {
            fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"device %u\"}}",
                    sep, e->device, e->device);
            sep = ",\n";
        }
        if (!aclrt_prof_seen(i, e->device, e->stream, false)) {
            fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"stream %u\"}}",
                    sep, e->device, e->stream, e->stream);
            sep = ",\n";
        }
    }
    for (size_t i = 0; i < aclrt_prof.mark_count; i++) { /* the markers' processes and threads not named yet */
        const struct aclrt_prof_mark *m = &aclrt_prof.marks[i];
        uint32_t pid = m->stream_on ? m->device : ACLRT_PROF_HOST_PID, tid = m->stream_on ? m->stream : m->tid;
        bool pid_seen = m->stream_on && aclrt_prof_seen(aclrt_prof.count, m->device, 0, true);
        bool tid_seen = m->stream_on && aclrt_prof_seen(aclrt_prof.count, m->device, m->stream, false);
        for (size_t j = 0; j < i && !(pid_seen && tid_seen); j++) {
            const struct aclrt_prof_mark *o = &aclrt_prof.marks[j];
            if (o->stream_on == m->stream_on && (!m->stream_on || o->device == m->device)) {
                pid_seen = true;
                tid_seen = tid_seen || (m->stream_on ? o->stream == m->stream : o->tid == m->tid);
            }
        }
        if (!pid_seen) {
            fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":", sep, pid);
            if (m->stream_on)
                fprintf(f, "\"device %u\"}}", pid);
            else
                fputs("\"host\"}}", f);
            sep = ",\n";
        }
        if (!tid_seen) {
            fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s %u\"}}",
                    sep, pid, tid, m->stream_on ? "stream" : "thread", tid);
            sep = ",\n";
        }
    }
    for (size_t i = 0; i < aclrt_prof.mark_count; i++) {
        aclrt_prof_write_mark(f, sep, &aclrt_prof.marks[i]);
        sep = ",\n";
    }
    for (size_t i = 0; i < aclrt_prof.count; i++) {
        const struct aclrt_prof_event *e = &aclrt_prof.events[i];
        fprintf(f, "%s{\"name\":\"%s\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":", sep, e->kind,
                e->device, e->stream);
        aclrt_prof_print_us(f, e->begin_ns - aclrt_prof.start_ns);
        fputs(",\"dur\":", f);
        aclrt_prof_print_us(f, e->end_ns - e->begin_ns);
        fprintf(f, ",\"args\":{\"stream\":%u,\"task\":%llu,\"status\":%d}}", e->stream, (unsigned long long)e->task,
                (int)e->status);
        sep = ",\n";
    }
    fprintf(f,
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"aclrt\",\"dataTypeConfig\":%llu,"
            "\"aicoreMetrics\":%d,\"tasks\":%zu,\"markers\":%zu,\"dropped\":%llu,\"settings\":{",
            (unsigned long long)aclrt_prof.data_types, aclrt_prof.metrics, aclrt_prof.count, aclrt_prof.mark_count,
            (unsigned long long)aclrt_prof.dropped);
    const char *comma = "";
    for (int k = 0; k < ACLRT_PROF_SETTINGS; k++) {
        if (aclrt_prof.settings[k][0] == '\0')
            continue;
        fprintf(f, "%s\"%d\":", comma, k);
        aclrt_prof_print_str(f, aclrt_prof.settings[k]);
        comma = ",";
    }
    fputs("}}}\n", f);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        rc = aclrt_fail(ACL_ERROR_PROFILING_FAILURE, "cannot write the trace %s", tmp);
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        rc = aclrt_fail(ACL_ERROR_PROFILING_FAILURE, "cannot rename the trace to %s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    aclrt_prof.traces++;
out:
    free(aclrt_prof.events);
    aclrt_prof.events = NULL;
    aclrt_prof.count = aclrt_prof.cap = 0;
    free(aclrt_prof.marks);
    aclrt_prof.marks = NULL;
    aclrt_prof.mark_count = aclrt_prof.mark_cap = 0;
    while (aclrt_prof.open != NULL) { /* ended by no one now */
        struct aclrt_prof_open *o = aclrt_prof.open;
        aclrt_prof.open = o->next;
        free(o);
    }
    aclrt_prof.dropped = 0;
    return rc;
}

#endif /* ACLRT_IMPL_PROF_PROF_TRACE_H */
