/*
 * python/rt_exception.c - acl.rt: exceptions (failed tasks).
 *
 *   ret = acl.rt.set_exception_info_callback(fn=None)   fn(info) per failed task; None clears
 *   task_id = acl.rt.get_task_id_from_exception_info(info)
 *   stream_id = acl.rt.get_stream_id_from_exception_info(info)
 *   thread_id = acl.rt.get_thread_id_from_exception_info(info)   the launcher's threading.get_native_id()
 *   device_id = acl.rt.get_device_id_from_exception_info(info)
 *   code = acl.rt.get_error_code_from_exception_info(info)
 *   task_id, ret = acl.rt.get_thread_last_task_id()
 *
 * The getters return the bare value, as pyACL does (0xFFFFFFFF for an info
 * that is not valid).
 *
 * The callable. One C trampoline is registered with
 * aclrtSetExceptionInfoCallback; the Python callable lives in a module
 * static (a strong reference, replaced with the GIL held: the new one is
 * referenced before the old one is dropped). The runtime calls the
 * trampoline on the executor thread that ran the failed task (several may run
 * at once on different executors); it takes the GIL, takes its own reference
 * to the current callable (which may be replaced while it runs), calls
 * fn(info) with the info pointer as an int, reports an exception through
 * sys.unraisablehook, and drops its reference. An exception changes nothing
 * for the runtime: the stream's failure mode applies as always.
 *
 * The info. aclrtExceptionInfo lives on the reporting thread's stack and is
 * valid only during the call. The trampoline lists the infos whose callback
 * is running (a stack of nodes on the trampolines' own stacks, GIL-protected);
 * the getters read an info only if it is listed, and return 0xFFFFFFFF for
 * anything else (NULL, a kept int from an earlier callback, garbage), so no
 * int passed from Python makes the module read freed memory.
 *
 * Interpreter exit (pyacl_exception_at_exit, called by the module's atexit
 * hook, aclmodule.c): a task may still fail after the interpreter is gone (a
 * stream wait timing out, for instance), and a runtime thread must never
 * take the GIL of a finalizing interpreter. The hook closes the trampoline
 * (later calls return at once), clears the runtime's slot, and waits, with
 * the GIL released, for the trampolines already past the check. Entry count
 * first, then the check; closed first, then the count: with both sides
 * sequentially consistent, either the hook sees the trampoline counted and
 * waits for it, or the trampoline sees the hook's flag and returns.
 */
#include "pyacl.h"

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#define PYACL_INFO_NONE 0xFFFFFFFFu

static PyObject *pyacl_exception_fn; /* strong reference or NULL; GIL */
static atomic_int pyacl_exception_inflight;
static atomic_bool pyacl_exception_closed;

/* Infos whose callback is running, newest first (GIL). */
struct pyacl_live_info {
    const aclrtExceptionInfo *info;
    struct pyacl_live_info *next;
};
static struct pyacl_live_info *pyacl_live_infos;

static void pyacl_live_info_remove(struct pyacl_live_info *node)
{
    /* Callbacks may end out of order: one that releases the GIL lets a later one finish first. */
    for (struct pyacl_live_info **p = &pyacl_live_infos; *p != NULL; p = &(*p)->next)
        if (*p == node) {
            *p = node->next;
            return;
        }
}

static int pyacl_info_is_live(const aclrtExceptionInfo *info)
{
    for (const struct pyacl_live_info *n = pyacl_live_infos; n != NULL; n = n->next)
        if (n->info == info)
            return 1;
    return 0;
}

/* Runs on the executor thread that ran the failed task: no GIL, maybe a thread Python never saw. */
static void pyacl_exception_trampoline(aclrtExceptionInfo *info)
{
    atomic_fetch_add(&pyacl_exception_inflight, 1);
    if (atomic_load(&pyacl_exception_closed)) {
        atomic_fetch_sub(&pyacl_exception_inflight, 1);
        return;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *fn = pyacl_exception_fn; /* NULL: cleared after the runtime read its slot */
    if (fn != NULL) {
        Py_INCREF(fn); /* set_exception_info_callback may replace it while fn runs */
        struct pyacl_live_info node = {info, pyacl_live_infos};
        pyacl_live_infos = &node;
        PyObject *arg = PyLong_FromVoidPtr(info);
        PyObject *result = arg != NULL ? PyObject_CallOneArg(fn, arg) : NULL;
        if (result == NULL)
            PyErr_WriteUnraisable(fn); /* printed (sys.unraisablehook) and cleared */
        Py_XDECREF(result);
        Py_XDECREF(arg);
        pyacl_live_info_remove(&node);
        Py_DECREF(fn);
    }
    PyGILState_Release(gil);
    atomic_fetch_sub(&pyacl_exception_inflight, 1);
}

static PyObject *rt_set_exception_info_callback(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *fn = Py_None;
    if (!PyArg_ParseTuple(args, "|O:set_exception_info_callback", &fn))
        return NULL;
    if (fn != Py_None && !PyCallable_Check(fn))
        return PyErr_Format(PyExc_TypeError, "fn must be callable or None, not %.100s", Py_TYPE(fn)->tp_name);
    aclError rc = aclrtSetExceptionInfoCallback(fn == Py_None ? NULL : pyacl_exception_trampoline);
    if (rc != ACL_SUCCESS)
        return pyacl_ret(rc);
    PyObject *old = pyacl_exception_fn;
    pyacl_exception_fn = fn == Py_None ? NULL : Py_NewRef(fn);
    Py_XDECREF(old); /* its destructor may run Python code: the new callable is in place already */
    return pyacl_ret(ACL_SUCCESS);
}

/* The info argument of a getter: an int or None; only a live info is read. */
static int pyacl_live_info_arg(PyObject *arg, const aclrtExceptionInfo **out)
{
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return 0;
    *out = ptr != NULL && pyacl_info_is_live((const aclrtExceptionInfo *)ptr) ? (const aclrtExceptionInfo *)ptr
                                                                               : NULL;
    return 1;
}

#define PYACL_INFO_GETTER(name, cfn)                                                                            \
    static PyObject *rt_##name(PyObject *self, PyObject *arg)                                                   \
    {                                                                                                           \
        (void)self;                                                                                             \
        const aclrtExceptionInfo *info;                                                                         \
        if (!pyacl_live_info_arg(arg, &info))                                                                   \
            return NULL;                                                                                        \
        return PyLong_FromUnsignedLong(info != NULL ? cfn(info) : PYACL_INFO_NONE);                             \
    }

PYACL_INFO_GETTER(get_task_id_from_exception_info, aclrtGetTaskIdFromExceptionInfo)
PYACL_INFO_GETTER(get_stream_id_from_exception_info, aclrtGetStreamIdFromExceptionInfo)
PYACL_INFO_GETTER(get_thread_id_from_exception_info, aclrtGetThreadIdFromExceptionInfo)
PYACL_INFO_GETTER(get_device_id_from_exception_info, aclrtGetDeviceIdFromExceptionInfo)
PYACL_INFO_GETTER(get_error_code_from_exception_info, aclrtGetErrorCodeFromExceptionInfo)

static PyObject *rt_get_thread_last_task_id(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint32_t task_id = 0;
    aclError rc = aclrtGetThreadLastTaskId(&task_id);
    return pyacl_ulong_ret(task_id, rc);
}

/* A Python exception callback is installed (GIL held). */
int pyacl_exception_callback_set(void)
{
    return pyacl_exception_fn != NULL;
}

void pyacl_exception_at_exit(void)
{
    atomic_store(&pyacl_exception_closed, true);
    if (pyacl_exception_fn == NULL && atomic_load(&pyacl_exception_inflight) == 0)
        return;
    Py_BEGIN_ALLOW_THREADS
    (void)aclrtSetExceptionInfoCallback(NULL);
    /* Trampolines past the check need the GIL to finish; they end with the callable, never before. */
    for (unsigned spins = 0; atomic_load(&pyacl_exception_inflight) > 0; spins++) {
        if (spins < 1000) {
            sched_yield();
        } else {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    }
    Py_END_ALLOW_THREADS
    Py_CLEAR(pyacl_exception_fn);
}

#define PYACL_GETTER_DOC(name, what)                                                                           \
    name "(info) -> int\n\n" what " of the exception info passed to the exception callback\n"                     \
         "(0xFFFFFFFF for None or an info whose callback has returned)."

static PyMethodDef exception_methods[] = {
    {"set_exception_info_callback", rt_set_exception_info_callback, METH_VARARGS,
     "set_exception_info_callback(fn=None) -> ret\n\n"
     "aclrtSetExceptionInfoCallback: fn(info) runs on the runtime thread that ran a failed task, with the GIL\n"
     "held; info (an int) is valid during the call. One slot: the last call wins; None clears it.\n"
     "An exception raised by fn goes to sys.unraisablehook."},
    {"get_task_id_from_exception_info", rt_get_task_id_from_exception_info, METH_O,
     PYACL_GETTER_DOC("get_task_id_from_exception_info", "The task id (as get_thread_last_task_id gave it)")},
    {"get_stream_id_from_exception_info", rt_get_stream_id_from_exception_info, METH_O,
     PYACL_GETTER_DOC("get_stream_id_from_exception_info", "The stream id (as stream_get_id gives it)")},
    {"get_thread_id_from_exception_info", rt_get_thread_id_from_exception_info, METH_O,
     PYACL_GETTER_DOC("get_thread_id_from_exception_info", "The launching thread's threading.get_native_id()")},
    {"get_device_id_from_exception_info", rt_get_device_id_from_exception_info, METH_O,
     PYACL_GETTER_DOC("get_device_id_from_exception_info", "The device id")},
    {"get_error_code_from_exception_info", rt_get_error_code_from_exception_info, METH_O,
     PYACL_GETTER_DOC("get_error_code_from_exception_info", "The task's error code")},
    {"get_thread_last_task_id", rt_get_thread_last_task_id, METH_NOARGS,
     "get_thread_last_task_id() -> (task_id, ret)\n\n"
     "aclrtGetThreadLastTaskId: the id of the last task this thread submitted (0 before any)."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_exception = {
    .name = "exceptions",
    .methods = {[PYACL_RT] = exception_methods},
};
