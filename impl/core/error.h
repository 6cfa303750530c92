/*
 * impl/core/error.h - the one place where a failing call records its error.
 *
 * Every entry point starts with ACLRT_ENTER() (thread.h: remembers the API
 * name for messages) and fails through aclrt_fail(), which together
 *   - returns the ACL code,
 *   - stores it as the thread's last error (aclrtGetLastError/PeekAtLastError),
 *   - prepends "[aclrtXxx] what went wrong (code)" to the recent-error text
 *     returned and cleared by aclGetRecentErrMsg (newest first), kept per
 *     thread, or per process when aclInit's err_msg_mode is "1".
 * No entry point can set one of these and forget the others.
 */
#ifndef ACLRT_IMPL_CORE_ERROR_H
#define ACLRT_IMPL_CORE_ERROR_H

#include "base.h"
#include "thread.h"

#define ACLRT_ERRMSG_CAP 4096

struct aclrt_errmsg {
    size_t len;
    char text[ACLRT_ERRMSG_CAP];     /* accumulated, newest first */
    char returned[ACLRT_ERRMSG_CAP]; /* the string the last aclGetRecentErrMsg gave out */
};

/* Process-wide message scope (err_msg_mode "1"); errors are a slow path. */
static struct aclrt_errmsg aclrt_process_msg;
static pthread_mutex_t aclrt_process_msg_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool aclrt_errmsg_process_scope;

/*
 * The per-thread text lives on the heap (aclrt_tls.msg) and is freed by the
 * destructor of aclrt_errmsg_key when the thread exits. The C library runs
 * key destructors in rounds (at most PTHREAD_DESTRUCTOR_ITERATIONS), in key
 * order, so destructors of the program's own keys may run after ours and
 * still call the runtime, fail, and read aclGetRecentErrMsg. Hence:
 *   - the destructor forgets the buffer (aclrt_tls.msg = NULL) before it
 *     frees it: nothing reads it afterwards;
 *   - a failure after that allocates a new buffer and registers it again,
 *     so the next round frees it;
 *   - the destructor re-registers the key with a marker (no memory) until
 *     the last round, so that it runs in every round after its first and
 *     aclrt_tls.msg_exit_rounds counts the rounds; in the last one nothing
 *     would free a new buffer any more, and failures keep no text (their
 *     code and the last error are still set).
 * aclrt_tls itself is static TLS: valid until the thread is gone.
 */
static pthread_key_t aclrt_errmsg_key;
static pthread_once_t aclrt_errmsg_key_once = PTHREAD_ONCE_INIT;
static bool aclrt_errmsg_key_ok;
static char aclrt_errmsg_exit_marker; /* the key's value between rounds: not memory to free */

#ifndef PTHREAD_DESTRUCTOR_ITERATIONS
#define PTHREAD_DESTRUCTOR_ITERATIONS 4 /* the POSIX minimum, glibc's and musl's value */
#endif

static void aclrt_errmsg_free(void *p)
{
    if (p != &aclrt_errmsg_exit_marker) {
        if (aclrt_tls.msg == p)
            aclrt_tls.msg = NULL; /* before the free: a later failure starts a new buffer */
        free(p);
    }
    if (aclrt_tls.msg_exit_rounds < UINT8_MAX)
        aclrt_tls.msg_exit_rounds++;
    if (aclrt_tls.msg_exit_rounds < PTHREAD_DESTRUCTOR_ITERATIONS)
        pthread_setspecific(aclrt_errmsg_key, &aclrt_errmsg_exit_marker); /* count the next round too */
}

static void aclrt_errmsg_key_init(void)
{
    aclrt_errmsg_key_ok = pthread_key_create(&aclrt_errmsg_key, aclrt_errmsg_free) == 0;
}

/*
 * The thread's message buffer, allocated on the first failure. NULL when
 * there is none and none can be had: out of memory, or the thread is in its
 * last round of exit destructors (see above).
 */
static struct aclrt_errmsg *aclrt_thread_errmsg(void)
{
    if (ACLRT_UNLIKELY(aclrt_tls.msg == NULL)) {
        if (aclrt_tls.msg_exit_rounds >= PTHREAD_DESTRUCTOR_ITERATIONS)
            return NULL;
        pthread_once(&aclrt_errmsg_key_once, aclrt_errmsg_key_init);
        if (!aclrt_errmsg_key_ok)
            return NULL; /* no way to free it at thread exit */
        struct aclrt_errmsg *m = (struct aclrt_errmsg *)calloc(1, sizeof *m);
        if (m == NULL)
            return NULL;
        if (pthread_setspecific(aclrt_errmsg_key, m) != 0) { /* freed at thread exit */
            free(m);
            return NULL;
        }
        aclrt_tls.msg = m;
    }
    return aclrt_tls.msg;
}

/* Newest first; when full, whole oldest lines are dropped. */
static void aclrt_errmsg_prepend(struct aclrt_errmsg *m, const char *line, size_t n)
{
    if (n + 2 >= ACLRT_ERRMSG_CAP)
        n = ACLRT_ERRMSG_CAP - 2;
    size_t keep = m->len;
    if (n + 1 + keep >= ACLRT_ERRMSG_CAP) {
        keep = ACLRT_ERRMSG_CAP - 2 - n;
        while (keep > 0 && m->text[keep - 1] != '\n') /* cut after a line's newline */
            keep--;
    }
    memmove(m->text + n + 1, m->text, keep);
    memcpy(m->text, line, n);
    m->text[n] = '\n';
    m->len = n + 1 + keep;
    m->text[m->len] = '\0';
}

/* Record `code` for the calling thread without a message (async failures). */
ACLRT_INLINE void aclrt_set_last_error(aclError code)
{
    aclrt_tls.last_error = code;
}

ACLRT_INTERNAL ACLRT_NOINLINE ACLRT_PRINTF(2, 3) aclError aclrt_fail(aclError code, const char *fmt, ...)
{
    char line[512];
    int n = snprintf(line, sizeof line, "[%s] ", aclrt_tls.api ? aclrt_tls.api : "aclrt");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < (int)sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, " (error %d)", code);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;

    aclrt_set_last_error(code);
    if (atomic_load_explicit(&aclrt_errmsg_process_scope, memory_order_relaxed)) {
        pthread_mutex_lock(&aclrt_process_msg_lock);
        aclrt_errmsg_prepend(&aclrt_process_msg, line, (size_t)n);
        pthread_mutex_unlock(&aclrt_process_msg_lock);
    } else {
        struct aclrt_errmsg *m = aclrt_thread_errmsg();
        if (m != NULL)
            aclrt_errmsg_prepend(m, line, (size_t)n);
    }
    return code;
}

/*
 * Hand out the accumulated text and clear it; NULL when there is none. A
 * thread with no buffer has no text of its own: it allocates one only to
 * hold the process-wide text (err_msg_mode "1").
 */
ACLRT_INTERNAL const char *aclrt_errmsg_take(void)
{
    bool process = atomic_load_explicit(&aclrt_errmsg_process_scope, memory_order_relaxed);
    if (aclrt_tls.msg == NULL && !process)
        return NULL;
    struct aclrt_errmsg *mine = aclrt_thread_errmsg();
    struct aclrt_errmsg *m = mine;
    if (mine == NULL)
        return NULL;
    if (process) {
        pthread_mutex_lock(&aclrt_process_msg_lock);
        m = &aclrt_process_msg;
    }
    const char *out = NULL;
    if (m->len > 0) {
        /* The previous returned string is invalidated, as documented. */
        char *dst = mine->returned;
        size_t n = m->len - 1; /* without the trailing newline */
        memcpy(dst, m->text, n);
        dst[n] = '\0';
        m->len = 0;
        m->text[0] = '\0';
        out = dst;
    }
    if (process)
        pthread_mutex_unlock(&aclrt_process_msg_lock);
    return out;
}

#endif /* ACLRT_IMPL_CORE_ERROR_H */
