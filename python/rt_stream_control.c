/*
 * python/rt_stream_control.c - acl.rt: stream control.
 *
 *   ret = acl.rt.stream_abort(stream)   discard what has not started, wait for the running task
 *   ret = acl.rt.stream_stop(stream)    run nothing more after the running task; keep the queue
 *
 * Both wait for the stream's running task, which may be a Python host
 * function or a BLOCK callback waiting for the GIL: the GIL is released.
 *
 * Tasks the abort discards never run, so the Python callables and arguments
 * of discarded host functions, host kernels and callbacks stay referenced
 * until the process exits (call.h: the runtime has no hook for discarded
 * tasks).
 *
 * The stream and device state callbacks (aclrtRegStreamStateCallback,
 * aclrtRegDeviceStateCallback) are not bound: pyACL has no Python form of
 * them.
 */
#include "pyacl.h"

static PyObject *rt_stream_abort(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtStreamAbort(stream));
    return pyacl_ret(rc);
}

static PyObject *rt_stream_stop(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtStreamStop(stream));
    return pyacl_ret(rc);
}

static PyMethodDef stream_control_methods[] = {
    {"stream_abort", rt_stream_abort, METH_O,
     "stream_abort(stream) -> ret\n\n"
     "aclrtStreamAbort: discards the stream's tasks that have not started and returns once the running one\n"
     "has finished (GIL released); synchronizers of the stream return ACL_ERROR_RT_STREAM_ABORT."},
    {"stream_stop", rt_stream_stop, METH_O,
     "stream_stop(stream) -> ret\n\n"
     "aclrtStreamStop: the stream runs nothing after its running task (GIL released while it finishes);\n"
     "queued tasks stay until stream_abort or destroy; synchronizers return ACL_ERROR_RT_TASK_ABORT_STOP."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_stream_control = {
    .name = "stream control",
    .methods = {[PYACL_RT] = stream_control_methods},
};
