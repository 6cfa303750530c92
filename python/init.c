/*
 * python/init.c - init and errors:
 *   ret = acl.init(config_path=None)        aclInit
 *   ret = acl.finalize()                    aclFinalize
 *   ref_count, ret = acl.finalize_reference()
 *   msg = acl.get_recent_err_msg()          str, or None when there is none
 *   ret = acl.rt.get_last_error(level=0)    the code itself, as in C
 *   ret = acl.rt.peek_at_last_error(level=0)
 */
#include "pyacl.h"

static PyObject *acl_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"config_path", NULL};
    const char *path = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z:init", kwlist, &path))
        return NULL;
    return pyacl_ret(aclInit(path));
}

/* Finalizing waits for the streams' work, which may be Python host functions. */
static PyObject *acl_finalize(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclFinalize());
    return pyacl_ret(rc);
}

static PyObject *acl_finalize_reference(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint64_t count = 0;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclFinalizeReference(&count));
    return pyacl_ulong_ret(count, rc);
}

static PyObject *acl_get_recent_err_msg(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *msg = aclGetRecentErrMsg();
    if (msg == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace");
}

static PyObject *rt_get_last_error(PyObject *self, PyObject *args)
{
    (void)self;
    int level = ACL_RT_THREAD_LEVEL;
    if (!PyArg_ParseTuple(args, "|i:get_last_error", &level))
        return NULL;
    return pyacl_ret(aclrtGetLastError((aclrtLastErrLevel)level));
}

static PyObject *rt_peek_at_last_error(PyObject *self, PyObject *args)
{
    (void)self;
    int level = ACL_RT_THREAD_LEVEL;
    if (!PyArg_ParseTuple(args, "|i:peek_at_last_error", &level))
        return NULL;
    return pyacl_ret(aclrtPeekAtLastError((aclrtLastErrLevel)level));
}

static PyMethodDef init_top_methods[] = {
    {"init", (PyCFunction)(void (*)(void))acl_init, METH_VARARGS | METH_KEYWORDS,
     "init(config_path=None) -> ret\n\naclInit: start the runtime with an optional JSON configuration file."},
    {"finalize", acl_finalize, METH_NOARGS, "finalize() -> ret\n\naclFinalize (waits for the streams' work)."},
    {"finalize_reference", acl_finalize_reference, METH_NOARGS,
     "finalize_reference() -> (ref_count, ret)\n\naclFinalizeReference."},
    {"get_recent_err_msg", acl_get_recent_err_msg, METH_NOARGS,
     "get_recent_err_msg() -> str or None\n\naclGetRecentErrMsg: returns and clears this thread's error text."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef init_rt_methods[] = {
    {"get_last_error", rt_get_last_error, METH_VARARGS,
     "get_last_error(level=0) -> ret\n\naclrtGetLastError: the thread's last error code, reset to 0."},
    {"peek_at_last_error", rt_peek_at_last_error, METH_VARARGS,
     "peek_at_last_error(level=0) -> ret\n\naclrtPeekAtLastError: the thread's last error code."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_init = {
    .name = "init and errors",
    .methods = {[PYACL_TOP] = init_top_methods, [PYACL_RT] = init_rt_methods},
};
