/*
 * python/rt_launch.c - acl.rt: host functions.
 *
 *   ret = acl.rt.launch_host_func(stream, fn, args)
 *
 * fn(args) runs on a runtime executor thread (or, once a host-function
 * thread is subscribed to the stream, inside that thread's
 * acl.rt.process_host_func: rt_callback.c) when the stream reaches the
 * task, with the GIL held; later tasks of the stream wait until it returns.
 * An exception raised by fn is reported through sys.unraisablehook (printed
 * with its traceback by default) and the stream goes on: a host function has
 * no return code. fn and args stay referenced until fn has run (call.h).
 */
#include "call.h"

static PyObject *rt_launch_host_func(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    PyObject *fn, *fn_args;
    if (!PyArg_ParseTuple(args, "O&OO:launch_host_func", pyacl_to_ptr, &stream, &fn, &fn_args))
        return NULL;
    struct pyacl_call *call = pyacl_call_new(fn, fn_args);
    if (call == NULL)
        return NULL;
    aclError rc;
    /* Without the GIL: the ring may be full of Python tasks waiting for it. */
    PYACL_WITHOUT_GIL(rc, aclrtLaunchHostFunc(stream, pyacl_call_trampoline, call));
    if (rc != ACL_SUCCESS)
        pyacl_call_free(call); /* never queued: still ours */
    return pyacl_ret(rc);
}

static PyMethodDef launch_methods[] = {
    {"launch_host_func", rt_launch_host_func, METH_VARARGS,
     "launch_host_func(stream, fn, args) -> ret\n\n"
     "aclrtLaunchHostFunc: fn(args) runs on a runtime thread, in stream order, with the GIL held.\n"
     "An exception raised by fn goes to sys.unraisablehook; the stream goes on."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_launch = {
    .name = "host functions",
    .methods = {[PYACL_RT] = launch_methods},
};
