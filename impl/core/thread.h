/*
 * impl/core/thread.h - what aclrt keeps per calling thread.
 *
 * Small and hot (read on every call): the name of the API being executed,
 * the last error code, the current context and, on executor threads, the
 * stream being run. It uses the initial-exec TLS model, so that access is
 * one instruction even when the implementation is built into a shared
 * object (the Python module). The recent-error text is larger and only
 * needed on failures; it is allocated on first use and freed at thread exit
 * (error.h: how calls made by thread-exit destructors stay safe).
 */
#ifndef ACLRT_IMPL_CORE_THREAD_H
#define ACLRT_IMPL_CORE_THREAD_H

#include "base.h"

#include <sys/syscall.h>

struct aclrt_stream;
struct aclrt_errmsg;

struct aclrt_thread_state {
    const char *api;                 /* public function being executed (for messages) */
    const void *caller;              /* its return address in the program (the sanitizer's reports) */
    aclError last_error;             /* aclrtGetLastError / aclrtPeekAtLastError */
    uint8_t msg_exit_rounds;         /* thread exit: destructor rounds seen by the `msg` key (error.h) */
    void *ctx_handle;                /* current context (validated at every use) */
    struct aclrt_stream *running;    /* executor threads: the stream whose task runs now */
    struct aclrt_errmsg *msg;        /* recent-error text; NULL until the first failure */
    uint32_t tid;                    /* the kernel's thread id (gettid), 0 until first needed */
    uint32_t last_task_id;           /* aclrtGetThreadLastTaskId: id of the last task submitted */
    /* A report thread running a callback or host function: its stream and task number (the sanitizer's). */
    struct aclrt_stream *report_stream;
    uint64_t report_task;
    /*
     * Runtime threads: a stream's completion is being counted (exec.h), and
     * a wake-up a backend put off meanwhile because this thread will look
     * for the work itself (aclrt_owed_wake_pay; backends/host/host_pool.h).
     */
    bool completing;
    void (*owed_wake)(void *arg);
    void *owed_wake_arg;
};

#define ACLRT_TLS_MODEL __attribute__((tls_model("initial-exec")))

static _Thread_local struct aclrt_thread_state aclrt_tls ACLRT_TLS_MODEL;

/* The calling thread's kernel thread id (what exception info reports), cached. */
ACLRT_INLINE uint32_t aclrt_thread_tid(void)
{
    if (ACLRT_UNLIKELY(aclrt_tls.tid == 0))
        aclrt_tls.tid = (uint32_t)syscall(SYS_gettid);
    return aclrt_tls.tid;
}

/* On threads that run streams: the stream whose task is running (NULL elsewhere). */
#define aclrt_running_stream() (aclrt_tls.running)

/*
 * A runtime thread (an executor, an embedder's progress call, a driver's
 * callback thread) is about to run code of a task of stream s: that code
 * sees s as the running stream and works in s's context (context.h), not in
 * whatever context the thread or an earlier task set. The thread's own
 * state comes back with aclrt_task_scope_leave (an embedder's progress
 * thread keeps its context).
 */
struct aclrt_task_scope {
    struct aclrt_stream *running;
    void *ctx_handle;
};

ACLRT_INLINE struct aclrt_task_scope aclrt_task_scope_enter(struct aclrt_stream *s)
{
    struct aclrt_task_scope outer = {aclrt_tls.running, aclrt_tls.ctx_handle};
    aclrt_tls.running = s;
    aclrt_tls.ctx_handle = NULL;
    return outer;
}

ACLRT_INLINE void aclrt_task_scope_leave(struct aclrt_task_scope outer)
{
    aclrt_tls.running = outer.running;
    aclrt_tls.ctx_handle = outer.ctx_handle;
}

/*
 * A backend asked, while this thread counted a completion, for a thread to
 * take work this thread could take itself once its stream runs dry, and
 * put the wake-up off: this thread is about to run another task instead,
 * which may take long, so the wake-up happens now.
 */
ACLRT_INTERNAL ACLRT_NOINLINE void aclrt_owed_wake_pay(void)
{
    void (*fn)(void *) = aclrt_tls.owed_wake;
    aclrt_tls.owed_wake = NULL;
    fn(aclrt_tls.owed_wake_arg);
}

/* Every public function starts here: remembers its name for error messages, and where it was called from. */
#define ACLRT_ENTER() (aclrt_tls.api = __func__, aclrt_tls.caller = __builtin_return_address(0))

#endif /* ACLRT_IMPL_CORE_THREAD_H */
