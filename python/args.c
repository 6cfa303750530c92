/*
 * python/args.c - argument converters and result tuples (pyacl.h).
 */
#include "pyacl.h"

/* An int (or an object with __index__) as a new PyLong reference; TypeError otherwise. */
static PyObject *pyacl_as_index(PyObject *obj)
{
    if (PyLong_Check(obj)) {
        Py_INCREF(obj);
        return obj;
    }
    return PyNumber_Index(obj); /* TypeError: "'str' object cannot be interpreted as an integer" */
}

int pyacl_to_ptr(PyObject *obj, void *out)
{
    void **ptr = (void **)out;
    if (obj == Py_None) {
        *ptr = NULL;
        return 1;
    }
    PyObject *index = pyacl_as_index(obj);
    if (index == NULL)
        return 0;
    /* Any 64-bit pattern: negative values wrap, as C would; garbage is the runtime's to reject. */
    void *value = PyLong_AsVoidPtr(index);
    Py_DECREF(index);
    if (value == NULL && PyErr_Occurred())
        return 0;
    *ptr = value;
    return 1;
}

int pyacl_to_size(PyObject *obj, void *out)
{
    PyObject *index = pyacl_as_index(obj);
    if (index == NULL)
        return 0;
    size_t value = PyLong_AsSize_t(index); /* OverflowError if negative or too large */
    Py_DECREF(index);
    if (value == (size_t)-1 && PyErr_Occurred())
        return 0;
    *(size_t *)out = value;
    return 1;
}

int pyacl_to_uint64(PyObject *obj, void *out)
{
    PyObject *index = pyacl_as_index(obj);
    if (index == NULL)
        return 0;
    unsigned long long value = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (value == (unsigned long long)-1 && PyErr_Occurred())
        return 0;
    *(uint64_t *)out = (uint64_t)value;
    return 1;
}

int pyacl_to_uint32(PyObject *obj, void *out)
{
    uint64_t value;
    if (!pyacl_to_uint64(obj, &value))
        return 0;
    if (value > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "value does not fit in an unsigned 32-bit integer");
        return 0;
    }
    *(uint32_t *)out = (uint32_t)value;
    return 1;
}

PyObject *pyacl_out_ret(PyObject *out, aclError rc)
{
    if (out == NULL)
        return NULL;
    PyObject *ret = PyLong_FromLong(rc);
    if (ret == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    PyObject *tuple = PyTuple_New(2);
    if (tuple == NULL) {
        Py_DECREF(out);
        Py_DECREF(ret);
        return NULL;
    }
    PyTuple_SET_ITEM(tuple, 0, out); /* steals */
    PyTuple_SET_ITEM(tuple, 1, ret);
    return tuple;
}

PyObject *pyacl_out2_ret(PyObject *out1, PyObject *out2, aclError rc)
{
    PyObject *ret = PyLong_FromLong(rc);
    PyObject *tuple = PyTuple_New(3);
    if (out1 == NULL || out2 == NULL || ret == NULL || tuple == NULL) {
        Py_XDECREF(out1);
        Py_XDECREF(out2);
        Py_XDECREF(ret);
        Py_XDECREF(tuple);
        return NULL;
    }
    PyTuple_SET_ITEM(tuple, 0, out1); /* steals */
    PyTuple_SET_ITEM(tuple, 1, out2);
    PyTuple_SET_ITEM(tuple, 2, ret);
    return tuple;
}

PyObject *pyacl_status_ret(int status, aclError rc)
{
    static PyObject *shared[2]; /* (0, 0) and (1, 0); built under the GIL, kept for the process */
    if (rc != ACL_SUCCESS || (status != 0 && status != 1))
        return pyacl_long_ret(status, rc);
    if (shared[status] == NULL && (shared[status] = pyacl_long_ret(status, rc)) == NULL)
        return NULL;
    Py_INCREF(shared[status]);
    return shared[status];
}
