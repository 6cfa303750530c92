/*
 * python/util.c - acl.util: moving data between Python objects and pointers,
 * and pyACL's thread helpers.
 *
 *   ptr = acl.util.bytes_to_ptr(data)            address of the object's bytes
 *   data = acl.util.ptr_to_bytes(ptr, size)      a new bytes object (a copy)
 *   ptr = acl.util.numpy_to_ptr(array)           any C-contiguous buffer (numpy not needed)
 *   array = acl.util.ptr_to_numpy(ptr, shape, npy_type)   needs numpy; no copy
 *   thread_id, ret = acl.util.start_thread(fn, args_list)  fn(args_list) in a new thread
 *   ret = acl.util.stop_thread(thread_id)        waits for that thread to end
 *
 * bytes_to_ptr does not copy: the pointer is valid while `data` lives and is
 * not resized, as pyACL documents. A bytes object is accepted (pyACL's use:
 * the source of a copy); a writable buffer (bytearray, array.array,
 * memoryview, numpy array) can also be the destination of a copy.
 *
 * start_thread's thread id is threading.get_ident() of the new thread, which
 * is what acl.rt.subscribe_report expects. The thread is a daemon, like the
 * native threads pyACL starts: it does not keep the interpreter alive.
 */
#include "pyacl.h"

static PyObject *util_bytes_to_ptr(PyObject *self, PyObject *data)
{
    (void)self;
    if (PyBytes_Check(data))
        return PyLong_FromVoidPtr(PyBytes_AS_STRING(data));
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL; /* TypeError: not a buffer; BufferError: not contiguous */
    void *ptr = view.buf;
    PyBuffer_Release(&view); /* the memory belongs to `data`, which the caller keeps alive */
    return PyLong_FromVoidPtr(ptr);
}

static PyObject *util_ptr_to_bytes(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    size_t size;
    if (!PyArg_ParseTuple(args, "O&O&:ptr_to_bytes", pyacl_to_ptr, &ptr, pyacl_to_size, &size))
        return NULL;
    if (size > PY_SSIZE_T_MAX)
        return PyErr_Format(PyExc_OverflowError, "size %zu is too large", size);
    if (ptr == NULL && size > 0)
        return PyErr_Format(PyExc_ValueError, "ptr is NULL");
    return PyBytes_FromStringAndSize(size > 0 ? (const char *)ptr : "", (Py_ssize_t)size);
}

/* numpy's type numbers (NPY_TYPES) that pyACL documents: buffer format and item size. */
struct pyacl_npy_type {
    const char *format;
    Py_ssize_t itemsize;
};

static struct pyacl_npy_type pyacl_npy_type(int npy_type)
{
    switch (npy_type) {
    case 0: return (struct pyacl_npy_type){"?", 1};  /* NPY_BOOL */
    case 1: return (struct pyacl_npy_type){"b", 1};  /* NPY_BYTE, int8 */
    case 2: return (struct pyacl_npy_type){"B", 1};  /* NPY_UBYTE, uint8 */
    case 3: return (struct pyacl_npy_type){"h", 2};  /* NPY_SHORT, int16 */
    case 4: return (struct pyacl_npy_type){"H", 2};  /* NPY_USHORT */
    case 5: return (struct pyacl_npy_type){"i", 4};  /* NPY_INT, int32 */
    case 6: return (struct pyacl_npy_type){"I", 4};  /* NPY_UINT */
    case 7: return (struct pyacl_npy_type){"l", 8};  /* NPY_LONG, int64 on LP64 */
    case 8: return (struct pyacl_npy_type){"L", 8};  /* NPY_ULONG */
    case 9: return (struct pyacl_npy_type){"q", 8};  /* NPY_LONGLONG */
    case 10: return (struct pyacl_npy_type){"Q", 8}; /* NPY_ULONGLONG */
    case 11: return (struct pyacl_npy_type){"f", 4}; /* NPY_FLOAT, float32 */
    case 12: return (struct pyacl_npy_type){"d", 8}; /* NPY_DOUBLE */
    case 23: return (struct pyacl_npy_type){"e", 2}; /* NPY_HALF, float16 */
    default: return (struct pyacl_npy_type){NULL, 0};
    }
}

/* The number of elements of `shape` (an int or a sequence of ints); -1 with an exception. */
static Py_ssize_t pyacl_shape_count(PyObject *shape)
{
    if (PyLong_Check(shape))
        return PyLong_AsSsize_t(shape);
    PyObject *dims = PySequence_Fast(shape, "shape must be an int or a sequence of ints");
    if (dims == NULL)
        return -1;
    Py_ssize_t count = 1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(dims) && count >= 0; i++) {
        Py_ssize_t dim = PyNumber_AsSsize_t(PySequence_Fast_GET_ITEM(dims, i), PyExc_OverflowError);
        if (dim < 0 && !PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "negative dimension in shape");
        count = PyErr_Occurred() ? -1 : count * dim;
    }
    Py_DECREF(dims);
    return count;
}

static PyObject *util_ptr_to_numpy(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    PyObject *shape;
    int npy_type;
    if (!PyArg_ParseTuple(args, "O&Oi:ptr_to_numpy", pyacl_to_ptr, &ptr, &shape, &npy_type))
        return NULL;
    struct pyacl_npy_type type = pyacl_npy_type(npy_type);
    if (type.format == NULL)
        return PyErr_Format(PyExc_ValueError, "numpy type number %d is not supported", npy_type);
    Py_ssize_t count = pyacl_shape_count(shape);
    if (count < 0)
        return NULL;
    if (count > PY_SSIZE_T_MAX / type.itemsize)
        return PyErr_Format(PyExc_OverflowError, "shape is too large");
    Py_ssize_t bytes = count * type.itemsize;
    if (ptr == NULL && bytes > 0)
        return PyErr_Format(PyExc_ValueError, "ptr is NULL");
    PyObject *numpy = NULL, *memory = NULL, *flat = NULL, *array = NULL;
    if ((numpy = PyImport_ImportModule("numpy")) == NULL) /* ImportError: numpy is optional */
        goto done;
    /* No copy: the array is a view of the memory at ptr. */
    if ((memory = PyMemoryView_FromMemory(bytes > 0 ? (char *)ptr : (char *)"", bytes, PyBUF_WRITE)) == NULL)
        goto done;
    if ((flat = PyObject_CallMethod(numpy, "frombuffer", "Os", memory, type.format)) == NULL)
        goto done;
    array = PyObject_CallMethod(flat, "reshape", "(O)", shape);
done:
    Py_XDECREF(flat);
    Py_XDECREF(memory);
    Py_XDECREF(numpy);
    return array;
}

/* ------------------------------------------------------------------------
 * Threads: threading.Thread objects by ident, so that stop_thread can join.
 * ------------------------------------------------------------------------ */
static PyObject *pyacl_threads; /* dict: ident -> Thread; GIL-protected */

static PyObject *util_start_thread(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *fn, *fn_args;
    if (!PyArg_ParseTuple(args, "OO:start_thread", &fn, &fn_args))
        return NULL;
    if (!PyCallable_Check(fn))
        return PyErr_Format(PyExc_TypeError, "fn must be callable, not %.100s", Py_TYPE(fn)->tp_name);
    if (pyacl_threads == NULL && (pyacl_threads = PyDict_New()) == NULL)
        return NULL;
    PyObject *threading = NULL, *thread_type = NULL, *kwargs = NULL, *empty = NULL, *thread = NULL;
    PyObject *started = NULL, *ident = NULL, *result = NULL;
    if ((threading = PyImport_ImportModule("threading")) == NULL ||
        (thread_type = PyObject_GetAttrString(threading, "Thread")) == NULL)
        goto done;
    /* threading.Thread(target=fn, args=(fn_args,), daemon=True) */
    if ((kwargs = Py_BuildValue("{s:O,s:(O),s:O}", "target", fn, "args", fn_args, "daemon", Py_True)) == NULL ||
        (empty = PyTuple_New(0)) == NULL || (thread = PyObject_Call(thread_type, empty, kwargs)) == NULL)
        goto done;
    if ((started = PyObject_CallMethod(thread, "start", NULL)) == NULL ||
        (ident = PyObject_GetAttrString(thread, "ident")) == NULL || PyDict_SetItem(pyacl_threads, ident, thread) < 0)
        goto done;
    Py_INCREF(ident);
    result = pyacl_out_ret(ident, ACL_SUCCESS);
done:
    Py_XDECREF(ident);
    Py_XDECREF(started);
    Py_XDECREF(thread);
    Py_XDECREF(empty);
    Py_XDECREF(kwargs);
    Py_XDECREF(thread_type);
    Py_XDECREF(threading);
    return result;
}

static PyObject *util_stop_thread(PyObject *self, PyObject *ident)
{
    (void)self;
    if (!PyLong_Check(ident))
        return PyErr_Format(PyExc_TypeError, "thread_id must be an int, not %.100s", Py_TYPE(ident)->tp_name);
    PyObject *thread = pyacl_threads ? PyDict_GetItemWithError(pyacl_threads, ident) : NULL;
    if (thread == NULL)
        return PyErr_Occurred() ? NULL : pyacl_ret(ACL_ERROR_INVALID_PARAM); /* not started by start_thread */
    PyObject *me = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
    int self_join = me ? PyObject_RichCompareBool(ident, me, Py_EQ) : -1;
    Py_XDECREF(me);
    if (self_join != 0)
        return self_join < 0 ? NULL : pyacl_ret(ACL_ERROR_INVALID_PARAM); /* a thread cannot wait for itself */
    Py_INCREF(thread);
    if (PyDict_DelItem(pyacl_threads, ident) < 0) {
        Py_DECREF(thread);
        return NULL;
    }
    PyObject *joined = PyObject_CallMethod(thread, "join", NULL); /* releases the GIL while it waits */
    Py_DECREF(thread);
    if (joined == NULL)
        return NULL;
    Py_DECREF(joined);
    return pyacl_ret(ACL_SUCCESS);
}

static PyMethodDef util_methods[] = {
    {"bytes_to_ptr", util_bytes_to_ptr, METH_O,
     "bytes_to_ptr(data) -> ptr\n\nThe address of the object's bytes (no copy; keep `data` alive)."},
    {"ptr_to_bytes", util_ptr_to_bytes, METH_VARARGS,
     "ptr_to_bytes(ptr, size) -> bytes\n\nA copy of size bytes at ptr."},
    {"numpy_to_ptr", util_bytes_to_ptr, METH_O,
     "numpy_to_ptr(array) -> ptr\n\nThe address of a C-contiguous buffer's data (no copy)."},
    {"ptr_to_numpy", util_ptr_to_numpy, METH_VARARGS,
     "ptr_to_numpy(ptr, shape, npy_type) -> numpy.ndarray\n\nA view of the memory at ptr (needs numpy)."},
    {"start_thread", util_start_thread, METH_VARARGS,
     "start_thread(fn, args_list) -> (thread_id, ret)\n\nRuns fn(args_list) in a new daemon thread."},
    {"stop_thread", util_stop_thread, METH_O,
     "stop_thread(thread_id) -> ret\n\nWaits for a thread started by start_thread to end."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_util = {
    .name = "util",
    .methods = {[PYACL_UTIL] = util_methods},
};

int pyacl_pid_list(PyObject *obj, int32_t **pids, size_t *count)
{
    if (PyLong_Check(obj) || PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "pids must be a list of process ids, not %.100s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    PyObject *items = PySequence_Fast(obj, "pids must be a list of process ids");
    if (items == NULL)
        return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    *pids = PyMem_New(int32_t, n > 0 ? n : 1);
    if (*pids == NULL) {
        Py_DECREF(items);
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(items, i));
        if ((v == -1 && PyErr_Occurred()) || v < INT32_MIN || v > INT32_MAX) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_OverflowError, "a process id does not fit in int32");
            PyMem_Free(*pids);
            Py_DECREF(items);
            return 0;
        }
        (*pids)[i] = (int32_t)v;
    }
    Py_DECREF(items);
    *count = (size_t)n;
    return 1;
}
