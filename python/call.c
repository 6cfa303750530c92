/*
 * python/call.c - Python callables run by the runtime (see call.h).
 */
#include "call.h"

/* Calls not yet run. Only touched with the GIL held, which is its lock. */
static Py_ssize_t pyacl_pending;

struct pyacl_call *pyacl_call_new(PyObject *fn, PyObject *arg)
{
    if (!PyCallable_Check(fn)) {
        PyErr_Format(PyExc_TypeError, "fn must be callable, not %.100s", Py_TYPE(fn)->tp_name);
        return NULL;
    }
    struct pyacl_call *call = PyMem_Calloc(1, sizeof *call);
    if (call == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_INCREF(fn);
    Py_INCREF(arg);
    call->fn = fn;
    call->arg = arg;
    pyacl_pending++;
    return call;
}

void pyacl_call_free(struct pyacl_call *call)
{
    pyacl_pending--;
    /* The callable's and argument's destructors may run here: GIL held. */
    Py_DECREF(call->fn);
    Py_DECREF(call->arg);
    PyMem_Free(call);
}

PyObject *pyacl_call_invoke(struct pyacl_call *call, PyObject *const *leading, size_t nleading)
{
    PyObject *argv[4];
    if (nleading + 1 > sizeof argv / sizeof argv[0]) {
        PyErr_SetString(PyExc_SystemError, "acl: too many arguments for a runtime callback");
        PyErr_WriteUnraisable(call->fn);
        return NULL;
    }
    for (size_t i = 0; i < nleading; i++)
        argv[i] = leading[i];
    argv[nleading] = call->arg;
    PyObject *result = PyObject_Vectorcall(call->fn, argv, nleading + 1, NULL);
    if (result == NULL)
        PyErr_WriteUnraisable(call->fn); /* printed (sys.unraisablehook) and cleared */
    return result;
}

Py_ssize_t pyacl_calls_pending(void)
{
    return pyacl_pending;
}

void pyacl_call_trampoline(void *arg)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    struct pyacl_call *call = (struct pyacl_call *)arg; /* ours now: the task owns the call */
    PyObject *result = pyacl_call_invoke(call, NULL, 0);
    Py_XDECREF(result);
    pyacl_call_free(call);
    PyGILState_Release(gil);
}
