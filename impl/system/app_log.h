/*
 * impl/system/app_log.h - aclAppLog: the program's own log lines.
 *
 *   The runtime writes application logs with its own, at a level the
 *   environment chooses; aclrt keeps no log files, so a line goes to stderr
 *   (stdout with ASCEND_SLOG_PRINT_TO_STDOUT=1), as the runtime's do when
 *   printing to the screen. The level is ASCEND_GLOBAL_LOG_LEVEL's
 *   (0 debug, 1 info, 2 warning, 3 error, 4 none; default 3, the runtime's),
 *   read at each call, so a program may change it while it runs.
 *   The line: "[LEVEL] APP(pid,name):date-time [file:line]func: message".
 *   The message is formatted into 1024 bytes; a longer one is cut with a
 *   "...[truncated]" mark rather than dropped. One line is one write, so
 *   lines of threads logging at once do not interleave.
 *   A NULL fmt logs nothing; a level outside the enumeration is logged as
 *   an error (nothing is lost).
 */
#ifndef ACLRT_IMPL_SYSTEM_APP_LOG_H
#define ACLRT_IMPL_SYSTEM_APP_LOG_H

#include "../core/base.h" /* first: it sets up the system headers' feature macros */
#include "../core/thread.h"

#include <errno.h> /* program_invocation_short_name (_GNU_SOURCE) */
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#define ACLRT_APP_LOG_MAX 1024 /* the formatted message, with its terminating NUL */
#define ACLRT_APP_LOG_CUT "...[truncated]"
#define ACLRT_APP_LOG_OFF 4

/* The level below which lines are dropped (ASCEND_GLOBAL_LOG_LEVEL, default error). */
static int aclrt_app_log_threshold(void)
{
    const char *s = getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (s == NULL || s[0] < '0' || s[0] > '4' || s[1] != '\0')
        return ACL_ERROR;
    return s[0] - '0';
}

ACLRT_API void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, const char *fmt, ...)
{
    ACLRT_ENTER();
    static const char *const names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    int level = (int)logLevel >= ACL_DEBUG && (int)logLevel <= ACL_ERROR ? (int)logLevel : ACL_ERROR;
    int threshold = aclrt_app_log_threshold();
    if (fmt == NULL || threshold >= ACLRT_APP_LOG_OFF || level < threshold)
        return;

    char msg[ACLRT_APP_LOG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        snprintf(msg, sizeof msg, "(the format could not be applied)");
    else if ((size_t)n >= sizeof msg)
        memcpy(msg + sizeof msg - sizeof ACLRT_APP_LOG_CUT, ACLRT_APP_LOG_CUT, sizeof ACLRT_APP_LOG_CUT);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    const char *base = file != NULL ? strrchr(file, '/') : NULL;
    base = base != NULL ? base + 1 : file != NULL ? file : "?";
    char out[ACLRT_APP_LOG_MAX + 512];
    int len = snprintf(out, sizeof out, "[%s] APP(%d,%s):%04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld [%s:%u]%s: %s\n",
                       names[level], (int)getpid(), program_invocation_short_name, tm.tm_year + 1900, tm.tm_mon + 1,
                       tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, ts.tv_nsec / 1000 % 1000,
                       base, line, func != NULL ? func : "?", msg);
    if (len < 0)
        return;
    if ((size_t)len >= sizeof out) { /* only a very long file or function name gets here */
        len = (int)sizeof out - 1;
        out[len - 1] = '\n';
    }
    const char *to_stdout = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    int fd = to_stdout != NULL && strcmp(to_stdout, "1") == 0 ? STDOUT_FILENO : STDERR_FILENO;
    for (ssize_t off = 0, w; off < len; off += w)
        if ((w = write(fd, out + off, (size_t)(len - off))) <= 0)
            return;
}

#endif /* ACLRT_IMPL_SYSTEM_APP_LOG_H */
