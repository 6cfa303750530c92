/*
 * python/rt_callback.c - acl.rt: report callbacks and host-function threads.
 *
 *   ret = acl.rt.subscribe_report(thread_id, stream)
 *   ret = acl.rt.launch_callback(fn, user_data_list, block_type, stream)
 *   ret = acl.rt.process_report(timeout_ms)              -1: forever
 *   ret = acl.rt.unsubscribe_report(thread_id, stream)
 *   ret = acl.rt.subscribe_host_func(thread_id, stream)
 *   ret = acl.rt.process_host_func(timeout_ms)
 *   ret = acl.rt.unsubscribe_host_func(thread_id, stream)
 *
 * thread_id is the processing thread's threading.get_ident() (or the id
 * acl.util.start_thread returned): pthread_self() on Linux, the value
 * aclrtSubscribeReport expects. fn(user_data_list) runs inside that thread's
 * process_report, in stream order, once, with the GIL held; user_data_list
 * may be any object (pyACL passes a list). With ACL_CALLBACK_BLOCK the
 * stream's later tasks wait until fn has returned; with NO_BLOCK they do not.
 * An exception raised by fn goes to sys.unraisablehook and the stream goes
 * on: fn returns to the runtime either way, so a raising BLOCK callback does
 * not hold its stream.
 *
 * Host functions (acl.rt.launch_host_func) of a stream with a subscribed
 * host-function thread run inside that thread's process_host_func: the
 * trampoline is the same (call.h), nothing to do here.
 *
 * GIL: process_report and process_host_func wait, and the callbacks they run
 * take the GIL themselves, so they release it (the processing thread's own
 * thread state is what PyGILState_Ensure takes back in the trampoline).
 * launch_callback submits a task: released too (a full ring waits). The
 * (un)subscribes take a short registry lock that no callback holds: kept.
 *
 * Lifetime: fn and user_data_list are referenced from the launch until fn
 * has run (call.h). A callback that never runs (its thread unsubscribed
 * before the stream reached it, the stream was aborted or force-destroyed
 * first, aclFinalize dropped it) keeps them until the process exits.
 */
#include "call.h"

static PyObject *pyacl_subscribe(PyObject *args, const char *format, aclError (*subscribe)(uint64_t, aclrtStream))
{
    uint64_t thread_id;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, format, pyacl_to_uint64, &thread_id, pyacl_to_ptr, &stream))
        return NULL;
    return pyacl_ret(subscribe(thread_id, stream));
}

static PyObject *pyacl_process(PyObject *arg, const char *format, aclError (*process)(int32_t))
{
    int timeout;
    if (!PyArg_Parse(arg, format, &timeout)) /* TypeError, or OverflowError beyond 32 bits */
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, process((int32_t)timeout)); /* the callbacks it runs take the GIL */
    return pyacl_ret(rc);
}

static PyObject *rt_subscribe_report(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_subscribe(args, "O&O&:subscribe_report", aclrtSubscribeReport);
}

static PyObject *rt_unsubscribe_report(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_subscribe(args, "O&O&:unsubscribe_report", aclrtUnSubscribeReport);
}

static PyObject *rt_subscribe_host_func(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_subscribe(args, "O&O&:subscribe_host_func", aclrtSubscribeHostFunc);
}

static PyObject *rt_unsubscribe_host_func(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_subscribe(args, "O&O&:unsubscribe_host_func", aclrtUnSubscribeHostFunc);
}

static PyObject *rt_process_report(PyObject *self, PyObject *arg)
{
    (void)self;
    return pyacl_process(arg, "i:process_report", aclrtProcessReport);
}

static PyObject *rt_process_host_func(PyObject *self, PyObject *arg)
{
    (void)self;
    return pyacl_process(arg, "i:process_host_func", aclrtProcessHostFunc);
}

static PyObject *rt_launch_callback(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *fn, *user_data;
    int block_type;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "OOiO&:launch_callback", &fn, &user_data, &block_type, pyacl_to_ptr, &stream))
        return NULL;
    struct pyacl_call *call = pyacl_call_new(fn, user_data);
    if (call == NULL)
        return NULL;
    aclError rc;
    /* Without the GIL: the ring may be full of Python tasks waiting for it. A bad block type is the runtime's. */
    PYACL_WITHOUT_GIL(rc, aclrtLaunchCallback(pyacl_call_trampoline, call, (aclrtCallbackBlockType)block_type, stream));
    if (rc != ACL_SUCCESS)
        pyacl_call_free(call); /* never queued: still ours */
    return pyacl_ret(rc);
}

static PyMethodDef callback_methods[] = {
    {"subscribe_report", rt_subscribe_report, METH_VARARGS,
     "subscribe_report(thread_id, stream) -> ret\n\n"
     "aclrtSubscribeReport: the thread (its threading.get_ident()) runs the stream's callbacks in process_report."},
    {"launch_callback", rt_launch_callback, METH_VARARGS,
     "launch_callback(fn, user_data_list, block_type, stream) -> ret\n\n"
     "aclrtLaunchCallback: fn(user_data_list) runs once, in stream order, inside the subscribed thread's\n"
     "process_report, with the GIL held. ACL_CALLBACK_BLOCK holds the stream's later tasks until fn returns.\n"
     "An exception raised by fn goes to sys.unraisablehook; the stream goes on."},
    {"process_report", rt_process_report, METH_O,
     "process_report(timeout_ms) -> ret\n\n"
     "aclrtProcessReport: waits (GIL released) up to timeout_ms (-1: forever) for callbacks and runs them here."},
    {"unsubscribe_report", rt_unsubscribe_report, METH_VARARGS,
     "unsubscribe_report(thread_id, stream) -> ret\n\naclrtUnSubscribeReport."},
    {"subscribe_host_func", rt_subscribe_host_func, METH_VARARGS,
     "subscribe_host_func(thread_id, stream) -> ret\n\n"
     "aclrtSubscribeHostFunc: the stream's launch_host_func functions run in that thread's process_host_func."},
    {"process_host_func", rt_process_host_func, METH_O,
     "process_host_func(timeout_ms) -> ret\n\n"
     "aclrtProcessHostFunc: waits (GIL released) up to timeout_ms (-1: forever) for host functions, runs them."},
    {"unsubscribe_host_func", rt_unsubscribe_host_func, METH_VARARGS,
     "unsubscribe_host_func(thread_id, stream) -> ret\n\naclrtUnSubscribeHostFunc."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_callback = {
    .name = "callbacks and host-function threads",
    .methods = {[PYACL_RT] = callback_methods},
};
