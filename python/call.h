/*
 * python/call.h - a Python callable that the runtime calls once, later, from
 * one of its own threads or a processing thread: host functions
 * (rt_launch.c), host kernels (rtx.c) and report callbacks (rt_callback.c:
 * aclrtLaunchCallback, run inside aclrtProcessReport). The exception
 * callback is a standing registration, not a call: rt_exception.c.
 *
 * Ownership (every step with the GIL held unless said otherwise):
 *   1. pyacl_call_new() takes a strong reference to the callable and to the
 *      argument it will be given, and counts the call as pending.
 *   2. The binding launches the task with the GIL released, passing the call
 *      as the C function's `void *` argument.
 *   3. Launch failed: the binding still owns the call and frees it
 *      (pyacl_call_free: DECREFs, uncounts). Launch succeeded: the call now
 *      belongs to the task; the binding never touches it again.
 *   4. The trampoline (on a runtime thread) takes the GIL with
 *      PyGILState_Ensure, calls, reports an exception if one was raised,
 *      and frees the call. So the callable and its argument stay alive until
 *      the task has run, however long the stream takes to reach it.
 *   A task the runtime discards without running (aclrtDestroyStreamForce,
 *   a stop-on-failure context) never reaches step 4: the runtime has no hook
 *   for discarded host tasks, so those references are kept until exit.
 *
 * Exceptions raised by the callable never reach the runtime: they go to
 * sys.unraisablehook (PyErr_WriteUnraisable), which by default prints
 * "Exception ignored in: <callable>" and the traceback on stderr. The task
 * itself completes normally (a host kernel fails instead, see rtx.c).
 *
 * At interpreter exit (an atexit hook, aclmodule.c), if calls are still
 * pending, aclFinalize runs with the GIL released so that they run before
 * Python tears itself down; a trampoline must never meet a finalizing
 * interpreter.
 */
#ifndef PYACL_CALL_H
#define PYACL_CALL_H

#include "pyacl.h"

struct pyacl_call {
    PyObject *fn;  /* strong reference */
    PyObject *arg; /* strong reference; passed as the callable's last argument */
    /* Host kernels (rtx.c): blocks run so far, and the first failure. */
    uint32_t blocks;
    uint32_t finished;
    aclError failure;
};

/* GIL held. NULL with TypeError if `fn` is not callable (MemoryError: no memory). */
struct pyacl_call *pyacl_call_new(PyObject *fn, PyObject *arg);

/* GIL held. Drops both references and the pending count. */
void pyacl_call_free(struct pyacl_call *call);

/*
 * GIL held. Calls fn(*leading, arg). Returns the result (new reference), or
 * NULL after reporting the exception through sys.unraisablehook.
 */
PyObject *pyacl_call_invoke(struct pyacl_call *call, PyObject *const *leading, size_t nleading);

/* GIL held. Calls launched and not yet run (nor freed after a failed launch). */
Py_ssize_t pyacl_calls_pending(void);

/*
 * The `void (*)(void *)` trampoline of every call whose C signature is
 * fn(arg): host functions (aclrtLaunchHostFunc) and report callbacks
 * (aclrtLaunchCallback). `arg` is the struct pyacl_call, which the trampoline
 * owns: it takes the GIL (PyGILState_Ensure: a runtime thread Python has
 * never seen gets a thread state; a Python thread waiting in
 * acl.rt.process_report or process_host_func, which released the GIL, takes
 * its own state back), calls fn(arg), reports an exception, frees the call
 * and releases the GIL.
 */
void pyacl_call_trampoline(void *arg);

#endif /* PYACL_CALL_H */
