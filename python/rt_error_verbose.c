/*
 * python/rt_error_verbose.c - acl.rt: a device's hardware error details.
 *
 *   info, ret = acl.rt.get_error_verbose(device_id)       dict, None on failure
 *
 * The dict is aclrtErrorInfo keyed by its member names (pyACL's form for
 * structures): tryRepair, hasDetail, errorType (ACL_RT_ERROR_* /
 * ACL_RT_NO_ERROR) and detail, the member of the union that errorType
 * selects: for ACL_RT_ERROR_MEMORY {"arraySize": n, "memUceInfoArray":
 * [{"addr": int, "len": int}, ...]} (n entries), for ACL_RT_ERROR_AICORE
 * {"aicoreErrType": ACL_RT_AICORE_ERROR_*}, None otherwise or without
 * detail. Nothing here waits: the GIL is kept.
 */
#include "pyacl.h"

/* dict[key] = value; steals `value` (NULL: an exception is set). 0 or -1. */
static int pyacl_dict_put(PyObject *dict, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int err = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return err;
}

static PyObject *pyacl_uce_detail(const aclrtMemUceInfoArray *uce)
{
    size_t n = uce->arraySize < ACL_RT_MEM_UCE_INFO_MAX_NUM ? uce->arraySize : ACL_RT_MEM_UCE_INFO_MAX_NUM;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *entry = PyDict_New();
        if (entry == NULL || pyacl_dict_put(entry, "addr", PyLong_FromVoidPtr(uce->memUceInfoArray[i].addr)) < 0 ||
            pyacl_dict_put(entry, "len", PyLong_FromSize_t(uce->memUceInfoArray[i].len)) < 0) {
            Py_XDECREF(entry);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, entry); /* steals */
    }
    PyObject *detail = PyDict_New();
    if (detail == NULL || pyacl_dict_put(detail, "arraySize", PyLong_FromSize_t(uce->arraySize)) < 0 ||
        pyacl_dict_put(detail, "memUceInfoArray", list) < 0) {
        Py_XDECREF(detail);
        return NULL;
    }
    return detail;
}

static PyObject *rt_get_error_verbose(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:get_error_verbose", &device))
        return NULL;
    aclrtErrorInfo info;
    memset(&info, 0, sizeof info);
    aclError rc = aclrtGetErrorVerbose(device, &info);
    if (rc != ACL_SUCCESS) {
        Py_INCREF(Py_None);
        return pyacl_out_ret(Py_None, rc);
    }
    PyObject *detail;
    if (info.hasDetail && info.errorType == ACL_RT_ERROR_MEMORY) {
        detail = pyacl_uce_detail(&info.detail.uceInfo);
    } else if (info.hasDetail && info.errorType == ACL_RT_ERROR_AICORE) {
        detail = PyDict_New();
        if (detail != NULL && pyacl_dict_put(detail, "aicoreErrType", PyLong_FromLong(info.detail.aicoreErrType)) < 0)
            Py_CLEAR(detail);
    } else {
        detail = Py_None;
        Py_INCREF(detail);
    }
    PyObject *dict = PyDict_New();
    if (dict == NULL || pyacl_dict_put(dict, "tryRepair", PyLong_FromLong(info.tryRepair)) < 0 ||
        pyacl_dict_put(dict, "hasDetail", PyLong_FromLong(info.hasDetail)) < 0 ||
        pyacl_dict_put(dict, "errorType", PyLong_FromLong(info.errorType)) < 0 ||
        pyacl_dict_put(dict, "detail", detail) < 0) {
        Py_XDECREF(dict);
        return NULL;
    }
    return pyacl_out_ret(dict, rc);
}

static PyMethodDef error_verbose_methods[] = {
    {"get_error_verbose", rt_get_error_verbose, METH_VARARGS,
     "get_error_verbose(device_id) -> (info, ret)  (dict; None on failure)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_error_verbose = {
    .name = "error details",
    .methods = {[PYACL_RT] = error_verbose_methods},
};
