/*
 * impl/error.h - the one place where a failing call records its error.
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
#ifndef ACLRT_IMPL_ERROR_H
#define ACLRT_IMPL_ERROR_H

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

static pthread_key_t aclrt_errmsg_key;
static pthread_once_t aclrt_errmsg_key_once = PTHREAD_ONCE_INIT;

static void aclrt_errmsg_free(void *p)
{
    free(p);
}

static void aclrt_errmsg_key_init(void)
{
    pthread_key_create(&aclrt_errmsg_key, aclrt_errmsg_free);
}

/* The thread's message buffer, allocated on the first failure (NULL if out of memory). */
static struct aclrt_errmsg *aclrt_thread_errmsg(void)
{
    if (ACLRT_UNLIKELY(aclrt_tls.msg == NULL)) {
        pthread_once(&aclrt_errmsg_key_once, aclrt_errmsg_key_init);
        aclrt_tls.msg = (struct aclrt_errmsg *)calloc(1, sizeof *aclrt_tls.msg);
        if (aclrt_tls.msg != NULL)
            pthread_setspecific(aclrt_errmsg_key, aclrt_tls.msg); /* freed at thread exit */
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

/* Hand out the accumulated text and clear it; NULL when there is none. */
ACLRT_INTERNAL const char *aclrt_errmsg_take(void)
{
    struct aclrt_errmsg *mine = aclrt_thread_errmsg();
    struct aclrt_errmsg *m = mine;
    bool process = atomic_load_explicit(&aclrt_errmsg_process_scope, memory_order_relaxed);
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

#endif /* ACLRT_IMPL_ERROR_H */
