/*
 * python/hccl.c - acl.hccl: HCCL, collective communication on the runtime's
 * streams (hccl/hccl.h), in pyACL's style: outputs first, the HcclResult
 * `ret` last; communicators, streams and device pointers are ints.
 *
 *   root_info, ret = acl.hccl.get_root_info()                    bytes, HCCL_ROOT_INFO_BYTES long
 *   comm, ret = acl.hccl.comm_init_root_info(n_ranks, root_info, rank)   waits for the other ranks
 *   comms, ret = acl.hccl.comm_init_all(devices)                 a list: rank i on devices[i]
 *   ret = acl.hccl.comm_destroy(comm)                            waits for its operations
 *   ret = acl.hccl.all_reduce(send_ptr, recv_ptr, count, dtype, op, comm, stream)
 *   ret = acl.hccl.broadcast(ptr, count, dtype, root, comm, stream)
 *   ret = acl.hccl.reduce(send_ptr, recv_ptr, count, dtype, op, root, comm, stream)
 *   ret = acl.hccl.reduce_scatter(send_ptr, recv_ptr, recv_count, dtype, op, comm, stream)
 *   ret = acl.hccl.reduce_scatter_v(send_ptr, send_counts, send_displs, recv_ptr, recv_count, dtype, op,
 *                                   comm, stream)
 *   ret = acl.hccl.scatter(send_ptr, recv_ptr, recv_count, dtype, root, comm, stream)
 *   ret = acl.hccl.all_gather(send_ptr, recv_ptr, send_count, dtype, comm, stream)
 *   ret = acl.hccl.all_gather_v(send_ptr, send_count, recv_ptr, recv_counts, recv_displs, dtype, comm, stream)
 *   ret = acl.hccl.alltoall(send_ptr, send_count, send_type, recv_ptr, recv_count, recv_type, comm, stream)
 *   ret = acl.hccl.alltoallv(send_ptr, send_counts, send_displs, send_type, recv_ptr, recv_counts,
 *                            recv_displs, recv_type, comm, stream)
 *   ret = acl.hccl.barrier(comm, stream)
 *   ret = acl.hccl.send(send_ptr, count, dtype, dest_rank, comm, stream)
 *   ret = acl.hccl.recv(recv_ptr, count, dtype, src_rank, comm, stream)
 *   ret = acl.hccl.batch_send_recv(items, comm, stream)   items: [(HCCL_SEND or HCCL_RECV, ptr, count,
 *                                                                 dtype, remote_rank), ...]
 *   ret = acl.hccl.group_start(); ret = acl.hccl.group_end()
 *   size, ret = acl.hccl.get_rank_size(comm); rank, ret = acl.hccl.get_rank_id(comm)
 *   name, ret = acl.hccl.get_comm_name(comm)                     "" on failure
 *   error, ret = acl.hccl.get_comm_async_error(comm)
 *   text = acl.hccl.get_error_string(code)
 *
 * The functions are those the `acl` module's own copy of the runtime
 * defines (python/impl.c compiles it once, with HCCL): the streams, devices
 * and memory of acl.rt are the ones these calls see, and there is one
 * runtime in the process however the module is imported.
 *
 * The count lists of the V forms hold one entry per rank of the
 * communicator (ValueError otherwise: the C call would read past them).
 * A root info is exactly HCCL_ROOT_INFO_BYTES bytes (ValueError otherwise).
 *
 * GIL: every call that queues an operation on a stream (a full ring makes
 * the caller wait), the communicator inits (comm_init_root_info waits until
 * every rank has joined, from other threads or processes), group_end and
 * comm_destroy release it; the queries keep it.
 */
#include "pyacl.h"

#include "hccl/hccl.h"

static PyObject *hccl_ret(HcclResult r)
{
    return PyLong_FromLong((long)r);
}

static PyObject *hccl_ptr_ret(void *ptr, HcclResult r)
{
    return pyacl_out_ret(PyLong_FromVoidPtr(ptr), (aclError)r);
}

/* An int32_t (device ids); OverflowError outside its range. */
static int hccl_to_int32(PyObject *obj, int32_t *out)
{
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return 0;
    long value = PyLong_AsLong(index);
    Py_DECREF(index);
    if (value == -1 && PyErr_Occurred())
        return 0;
    if (value < INT32_MIN || value > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "value does not fit in a signed 32-bit integer");
        return 0;
    }
    *out = (int32_t)value;
    return 1;
}

/* ------------------------------------------------------------------------
 * Communicators.
 * ------------------------------------------------------------------------ */

static PyObject *hccl_get_root_info(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    HcclRootInfo info;
    HcclResult r;
    /* In an MPI job this may initialize MPI. */
    PYACL_WITHOUT_GIL(r, HcclGetRootInfo(&info));
    if (r != HCCL_SUCCESS)
        return pyacl_out_ret(PyBytes_FromStringAndSize(NULL, 0), (aclError)r);
    return pyacl_out_ret(PyBytes_FromStringAndSize(info.internal, sizeof info.internal), (aclError)r);
}

static PyObject *hccl_comm_init_root_info(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t nranks, rank;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "O&y*O&:comm_init_root_info", pyacl_to_uint32, &nranks, &view, pyacl_to_uint32,
                          &rank))
        return NULL;
    if (view.len != (Py_ssize_t)sizeof(HcclRootInfo)) {
        PyErr_Format(PyExc_ValueError, "a root info is %u bytes (HCCL_ROOT_INFO_BYTES), not %zd",
                     HCCL_ROOT_INFO_BYTES, view.len);
        PyBuffer_Release(&view);
        return NULL;
    }
    HcclRootInfo info;
    memcpy(&info, view.buf, sizeof info);
    PyBuffer_Release(&view);
    HcclComm comm = NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclCommInitRootInfo(nranks, &info, rank, &comm)); /* waits for every rank */
    return hccl_ptr_ret(r == HCCL_SUCCESS ? comm : NULL, r);
}

static PyObject *hccl_comm_init_all(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "devices must be a sequence of device ids");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if ((size_t)n > UINT32_MAX) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_OverflowError, "%zd devices do not fit in a uint32_t count", n);
    }
    int32_t *devices = PyMem_New(int32_t, (size_t)n + 1);
    HcclComm *comms = PyMem_New(HcclComm, (size_t)n + 1);
    if (devices == NULL || comms == NULL) {
        PyMem_Free(devices);
        PyMem_Free(comms);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        comms[i] = NULL;
        if (!hccl_to_int32(PySequence_Fast_GET_ITEM(seq, i), &devices[i])) {
            PyMem_Free(devices);
            PyMem_Free(comms);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclCommInitAll((uint32_t)n, devices, comms));
    PyMem_Free(devices);
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *comm = PyLong_FromVoidPtr(r == HCCL_SUCCESS ? comms[i] : NULL);
        if (comm == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, comm);
    }
    PyMem_Free(comms);
    /* Communicators made and not returned (no memory for the list) are leaked: there is no one to give them to. */
    return pyacl_out_ret(list, (aclError)r);
}

static PyObject *hccl_comm_destroy(PyObject *self, PyObject *arg)
{
    (void)self;
    HcclComm comm;
    if (!pyacl_to_ptr(arg, &comm))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclCommDestroy(comm)); /* waits for the operations in flight */
    return hccl_ret(r);
}

/* ------------------------------------------------------------------------
 * Queries and errors: never wait, keep the GIL.
 * ------------------------------------------------------------------------ */

static PyObject *hccl_get_rank_size(PyObject *self, PyObject *arg)
{
    (void)self;
    HcclComm comm;
    if (!pyacl_to_ptr(arg, &comm))
        return NULL;
    uint32_t size = 0;
    HcclResult r = HcclGetRankSize(comm, &size);
    return pyacl_ulong_ret(r == HCCL_SUCCESS ? size : 0, (aclError)r);
}

static PyObject *hccl_get_rank_id(PyObject *self, PyObject *arg)
{
    (void)self;
    HcclComm comm;
    if (!pyacl_to_ptr(arg, &comm))
        return NULL;
    uint32_t rank = 0;
    HcclResult r = HcclGetRankId(comm, &rank);
    return pyacl_ulong_ret(r == HCCL_SUCCESS ? rank : 0, (aclError)r);
}

static PyObject *hccl_get_comm_name(PyObject *self, PyObject *arg)
{
    (void)self;
    HcclComm comm;
    if (!pyacl_to_ptr(arg, &comm))
        return NULL;
    char name[COMM_NAME_MAX_LENGTH + 1];
    memset(name, 0, sizeof name);
    HcclResult r = HcclGetCommName(comm, name);
    if (r != HCCL_SUCCESS)
        name[0] = '\0';
    return pyacl_out_ret(PyUnicode_DecodeUTF8(name, (Py_ssize_t)strnlen(name, COMM_NAME_MAX_LENGTH), "replace"),
                         (aclError)r);
}

static PyObject *hccl_get_comm_async_error(PyObject *self, PyObject *arg)
{
    (void)self;
    HcclComm comm;
    if (!pyacl_to_ptr(arg, &comm))
        return NULL;
    HcclResult error = HCCL_SUCCESS;
    HcclResult r = HcclGetCommAsyncError(comm, &error);
    return pyacl_long_ret(r == HCCL_SUCCESS ? (long long)error : 0, (aclError)r);
}

static PyObject *hccl_get_error_string(PyObject *self, PyObject *arg)
{
    (void)self;
    int code;
    if (!PyArg_Parse(arg, "i:get_error_string", &code)) /* TypeError, or OverflowError beyond an int */
        return NULL;
    return PyUnicode_FromString(HcclGetErrorString((HcclResult)code));
}

/* ------------------------------------------------------------------------
 * Operations: queued on a stream, with the GIL released.
 * ------------------------------------------------------------------------ */

static PyObject *hccl_all_reduce(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t count;
    int type, op;
    if (!PyArg_ParseTuple(args, "O&O&O&iiO&O&:all_reduce", pyacl_to_ptr, &send, pyacl_to_ptr, &recv,
                          pyacl_to_uint64, &count, &type, &op, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclAllReduce(send, recv, count, (HcclDataType)type, (HcclReduceOp)op, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_broadcast(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf, *comm, *stream;
    uint64_t count;
    uint32_t root;
    int type;
    if (!PyArg_ParseTuple(args, "O&O&iO&O&O&:broadcast", pyacl_to_ptr, &buf, pyacl_to_uint64, &count, &type,
                          pyacl_to_uint32, &root, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclBroadcast(buf, count, (HcclDataType)type, root, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_reduce(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t count;
    uint32_t root;
    int type, op;
    if (!PyArg_ParseTuple(args, "O&O&O&iiO&O&O&:reduce", pyacl_to_ptr, &send, pyacl_to_ptr, &recv, pyacl_to_uint64,
                          &count, &type, &op, pyacl_to_uint32, &root, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclReduce(send, recv, count, (HcclDataType)type, (HcclReduceOp)op, root, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_reduce_scatter(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t count;
    int type, op;
    if (!PyArg_ParseTuple(args, "O&O&O&iiO&O&:reduce_scatter", pyacl_to_ptr, &send, pyacl_to_ptr, &recv,
                          pyacl_to_uint64, &count, &type, &op, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclReduceScatter(send, recv, count, (HcclDataType)type, (HcclReduceOp)op, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_scatter(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t count;
    uint32_t root;
    int type;
    if (!PyArg_ParseTuple(args, "O&O&O&iO&O&O&:scatter", pyacl_to_ptr, &send, pyacl_to_ptr, &recv, pyacl_to_uint64,
                          &count, &type, pyacl_to_uint32, &root, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclScatter(send, recv, count, (HcclDataType)type, root, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_all_gather(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t count;
    int type;
    if (!PyArg_ParseTuple(args, "O&O&O&iO&O&:all_gather", pyacl_to_ptr, &send, pyacl_to_ptr, &recv, pyacl_to_uint64,
                          &count, &type, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclAllGather(send, recv, count, (HcclDataType)type, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_alltoall(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t send_count, recv_count;
    int send_type, recv_type;
    if (!PyArg_ParseTuple(args, "O&O&iO&O&iO&O&:alltoall", pyacl_to_ptr, &send, pyacl_to_uint64, &send_count,
                          &send_type, pyacl_to_ptr, &recv, pyacl_to_uint64, &recv_count, &recv_type, pyacl_to_ptr,
                          &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclAlltoAll(send, send_count, (HcclDataType)send_type, recv, recv_count,
                                      (HcclDataType)recv_type, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_barrier(PyObject *self, PyObject *args)
{
    (void)self;
    void *comm, *stream;
    if (!PyArg_ParseTuple(args, "O&O&:barrier", pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclBarrier(comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_send(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf, *comm, *stream;
    uint64_t count;
    uint32_t peer;
    int type;
    if (!PyArg_ParseTuple(args, "O&O&iO&O&O&:send", pyacl_to_ptr, &buf, pyacl_to_uint64, &count, &type,
                          pyacl_to_uint32, &peer, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclSend(buf, count, (HcclDataType)type, peer, comm, stream));
    return hccl_ret(r);
}

static PyObject *hccl_recv(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf, *comm, *stream;
    uint64_t count;
    uint32_t peer;
    int type;
    if (!PyArg_ParseTuple(args, "O&O&iO&O&O&:recv", pyacl_to_ptr, &buf, pyacl_to_uint64, &count, &type,
                          pyacl_to_uint32, &peer, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclRecv(buf, count, (HcclDataType)type, peer, comm, stream));
    return hccl_ret(r);
}

/* One item of batch_send_recv: a tuple (or list) (send_recv_type, ptr, count, dtype, remote_rank). */
static int hccl_item(PyObject *obj, Py_ssize_t i, HcclSendRecvItem *it)
{
    PyObject *tuple = PySequence_Check(obj) && !PyUnicode_Check(obj) && !PyBytes_Check(obj) ? PySequence_Tuple(obj)
                                                                                             : NULL;
    if (tuple == NULL) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "items[%zd] must be a tuple (send_recv_type, ptr, count, dtype, remote_rank), not %.100s", i,
                         Py_TYPE(obj)->tp_name);
        }
        return 0;
    }
    int kind, type;
    int ok = PyArg_ParseTuple(tuple, "iO&O&iO&:batch_send_recv item", &kind, pyacl_to_ptr, &it->buf, pyacl_to_uint64,
                              &it->count, &type, pyacl_to_uint32, &it->remoteRank);
    Py_DECREF(tuple);
    it->sendRecvType = (HcclSendRecvType)kind;
    it->dataType = (HcclDataType)type;
    return ok;
}

static PyObject *hccl_batch_send_recv(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *items_arg;
    void *comm, *stream;
    if (!PyArg_ParseTuple(args, "OO&O&:batch_send_recv", &items_arg, pyacl_to_ptr, &comm, pyacl_to_ptr, &stream))
        return NULL;
    PyObject *seq = PySequence_Fast(items_arg, "items must be a list of (send_recv_type, ptr, count, dtype, "
                                               "remote_rank) tuples");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if ((size_t)n > UINT32_MAX) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_OverflowError, "%zd items do not fit in a uint32_t count", n);
    }
    HcclSendRecvItem *items = PyMem_New(HcclSendRecvItem, (size_t)n + 1);
    if (items == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    memset(items, 0, ((size_t)n + 1) * sizeof *items);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!hccl_item(PySequence_Fast_GET_ITEM(seq, i), i, &items[i])) {
            PyMem_Free(items);
            Py_DECREF(seq);
            return NULL;
        }
    Py_DECREF(seq);
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclBatchSendRecv(items, (uint32_t)n, comm, stream)); /* copies the items */
    PyMem_Free(items);
    return hccl_ret(r);
}

/* ------------------------------------------------------------------------
 * The V forms: per-rank counts and displacements as lists of ints.
 * ------------------------------------------------------------------------ */

/*
 * `count` lists of nranks uint64 values each, read into one array
 * (PyMem_Free it): list k at out + k * n, where *n is the rank size of
 * comm. Returns 1 and *out NULL when comm is no communicator: the caller
 * then makes the C call with NULL arrays, which rejects comm first (the
 * message names the operation).
 */
static int hccl_count_lists(void *comm, PyObject *const *lists, const char *const *names, int count, uint64_t **out,
                            size_t *n)
{
    *out = NULL;
    *n = 0;
    uint32_t nranks = 0;
    if (HcclGetRankSize(comm, &nranks) != HCCL_SUCCESS)
        return 1; /* the operation's own call fails on comm, with its own message */
    uint64_t *values = PyMem_New(uint64_t, (size_t)count * nranks + 1);
    if (values == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    for (int k = 0; k < count; k++) {
        PyObject *seq = PySequence_Fast(lists[k], "counts and displacements must be lists of ints");
        if (seq == NULL)
            goto fail;
        if (PySequence_Fast_GET_SIZE(seq) != (Py_ssize_t)nranks) {
            PyErr_Format(PyExc_ValueError, "%s has %zd entries; the communicator has %u ranks", names[k],
                         PySequence_Fast_GET_SIZE(seq), nranks);
            Py_DECREF(seq);
            goto fail;
        }
        for (uint32_t i = 0; i < nranks; i++)
            if (!pyacl_to_uint64(PySequence_Fast_GET_ITEM(seq, i), &values[(size_t)k * nranks + i])) {
                Py_DECREF(seq);
                goto fail;
            }
        Py_DECREF(seq);
    }
    *out = values;
    *n = nranks;
    return 1;
fail:
    PyMem_Free(values);
    return 0;
}

static PyObject *hccl_all_gather_v(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t send_count;
    PyObject *lists[2];
    int type;
    if (!PyArg_ParseTuple(args, "O&O&O&OOiO&O&:all_gather_v", pyacl_to_ptr, &send, pyacl_to_uint64, &send_count,
                          pyacl_to_ptr, &recv, &lists[0], &lists[1], &type, pyacl_to_ptr, &comm, pyacl_to_ptr,
                          &stream))
        return NULL;
    static const char *const names[] = {"recv_counts", "recv_displs"};
    uint64_t *v;
    size_t n;
    if (!hccl_count_lists(comm, lists, names, 2, &v, &n))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclAllGatherV(send, send_count, recv, v, v != NULL ? v + n : NULL, (HcclDataType)type, comm,
                                        stream));
    PyMem_Free(v);
    return hccl_ret(r);
}

static PyObject *hccl_reduce_scatter_v(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    uint64_t recv_count;
    PyObject *lists[2];
    int type, op;
    if (!PyArg_ParseTuple(args, "O&OOO&O&iiO&O&:reduce_scatter_v", pyacl_to_ptr, &send, &lists[0], &lists[1],
                          pyacl_to_ptr, &recv, pyacl_to_uint64, &recv_count, &type, &op, pyacl_to_ptr, &comm,
                          pyacl_to_ptr, &stream))
        return NULL;
    static const char *const names[] = {"send_counts", "send_displs"};
    uint64_t *v;
    size_t n;
    if (!hccl_count_lists(comm, lists, names, 2, &v, &n))
        return NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclReduceScatterV(send, v, v != NULL ? v + n : NULL, recv, recv_count, (HcclDataType)type,
                                            (HcclReduceOp)op, comm, stream));
    PyMem_Free(v);
    return hccl_ret(r);
}

static PyObject *hccl_alltoallv(PyObject *self, PyObject *args)
{
    (void)self;
    void *send, *recv, *comm, *stream;
    PyObject *lists[4];
    int send_type, recv_type;
    if (!PyArg_ParseTuple(args, "O&OOiO&OOiO&O&:alltoallv", pyacl_to_ptr, &send, &lists[0], &lists[1], &send_type,
                          pyacl_to_ptr, &recv, &lists[2], &lists[3], &recv_type, pyacl_to_ptr, &comm, pyacl_to_ptr,
                          &stream))
        return NULL;
    static const char *const names[] = {"send_counts", "send_displs", "recv_counts", "recv_displs"};
    uint64_t *v;
    size_t n;
    if (!hccl_count_lists(comm, lists, names, 4, &v, &n))
        return NULL;
    const uint64_t *sc = v, *sd = v != NULL ? v + n : NULL, *rc = v != NULL ? v + 2 * n : NULL,
                   *rd = v != NULL ? v + 3 * n : NULL;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclAlltoAllV(send, sc, sd, (HcclDataType)send_type, recv, rc, rd, (HcclDataType)recv_type,
                                       comm, stream));
    PyMem_Free(v);
    return hccl_ret(r);
}

/* ------------------------------------------------------------------------
 * Groups: per thread; group_end queues what the group held.
 * ------------------------------------------------------------------------ */

static PyObject *hccl_group_start(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return hccl_ret(HcclGroupStart());
}

static PyObject *hccl_group_end(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    HcclResult r;
    PYACL_WITHOUT_GIL(r, HcclGroupEnd());
    return hccl_ret(r);
}

#define HCCL_FN(name, flags, doc) {#name, (PyCFunction)(void (*)(void))hccl_##name, flags, doc}

static PyMethodDef hccl_methods[] = {
    HCCL_FN(get_root_info, METH_NOARGS,
            "get_root_info() -> (root_info, ret)\n\n"
            "HcclGetRootInfo: HCCL_ROOT_INFO_BYTES bytes to hand to every rank (b\"\" on failure)."),
    HCCL_FN(comm_init_root_info, METH_VARARGS,
            "comm_init_root_info(n_ranks, root_info, rank) -> (comm, ret)\n\n"
            "HcclCommInitRootInfo: waits (GIL released) until all n_ranks ranks have joined."),
    HCCL_FN(comm_init_all, METH_O,
            "comm_init_all(devices) -> (comms, ret)\n\n"
            "HcclCommInitAll: one communicator per device, rank i on devices[i] (a list; 0s on failure)."),
    HCCL_FN(comm_destroy, METH_O, "comm_destroy(comm) -> ret\n\nHcclCommDestroy: waits for its operations."),
    HCCL_FN(get_rank_size, METH_O, "get_rank_size(comm) -> (rank_size, ret)\n\nHcclGetRankSize."),
    HCCL_FN(get_rank_id, METH_O, "get_rank_id(comm) -> (rank, ret)\n\nHcclGetRankId."),
    HCCL_FN(get_comm_name, METH_O, "get_comm_name(comm) -> (name, ret)\n\nHcclGetCommName (\"\" on failure)."),
    HCCL_FN(get_comm_async_error, METH_O,
            "get_comm_async_error(comm) -> (async_error, ret)\n\n"
            "HcclGetCommAsyncError: the error an operation already queued on comm ran into (HCCL_SUCCESS: none)."),
    HCCL_FN(get_error_string, METH_O, "get_error_string(code) -> str\n\nHcclGetErrorString."),
    HCCL_FN(all_reduce, METH_VARARGS,
            "all_reduce(send_ptr, recv_ptr, count, dtype, op, comm, stream) -> ret\n\nHcclAllReduce."),
    HCCL_FN(broadcast, METH_VARARGS, "broadcast(ptr, count, dtype, root, comm, stream) -> ret\n\nHcclBroadcast."),
    HCCL_FN(reduce, METH_VARARGS,
            "reduce(send_ptr, recv_ptr, count, dtype, op, root, comm, stream) -> ret\n\nHcclReduce."),
    HCCL_FN(reduce_scatter, METH_VARARGS,
            "reduce_scatter(send_ptr, recv_ptr, recv_count, dtype, op, comm, stream) -> ret\n\nHcclReduceScatter."),
    HCCL_FN(reduce_scatter_v, METH_VARARGS,
            "reduce_scatter_v(send_ptr, send_counts, send_displs, recv_ptr, recv_count, dtype, op, comm, stream)"
            " -> ret\n\nHcclReduceScatterV: the lists hold one int per rank."),
    HCCL_FN(scatter, METH_VARARGS,
            "scatter(send_ptr, recv_ptr, recv_count, dtype, root, comm, stream) -> ret\n\nHcclScatter."),
    HCCL_FN(all_gather, METH_VARARGS,
            "all_gather(send_ptr, recv_ptr, send_count, dtype, comm, stream) -> ret\n\nHcclAllGather."),
    HCCL_FN(all_gather_v, METH_VARARGS,
            "all_gather_v(send_ptr, send_count, recv_ptr, recv_counts, recv_displs, dtype, comm, stream) -> ret\n\n"
            "HcclAllGatherV: the lists hold one int per rank."),
    HCCL_FN(alltoall, METH_VARARGS,
            "alltoall(send_ptr, send_count, send_type, recv_ptr, recv_count, recv_type, comm, stream) -> ret\n\n"
            "HcclAlltoAll."),
    HCCL_FN(alltoallv, METH_VARARGS,
            "alltoallv(send_ptr, send_counts, send_displs, send_type, recv_ptr, recv_counts, recv_displs, "
            "recv_type, comm, stream) -> ret\n\nHcclAlltoAllV: the lists hold one int per rank."),
    HCCL_FN(barrier, METH_VARARGS, "barrier(comm, stream) -> ret\n\nHcclBarrier."),
    HCCL_FN(send, METH_VARARGS, "send(send_ptr, count, dtype, dest_rank, comm, stream) -> ret\n\nHcclSend."),
    HCCL_FN(recv, METH_VARARGS, "recv(recv_ptr, count, dtype, src_rank, comm, stream) -> ret\n\nHcclRecv."),
    HCCL_FN(batch_send_recv, METH_VARARGS,
            "batch_send_recv(items, comm, stream) -> ret\n\n"
            "HcclBatchSendRecv: items is a list of (HCCL_SEND or HCCL_RECV, ptr, count, dtype, remote_rank)."),
    HCCL_FN(group_start, METH_NOARGS,
            "group_start() -> ret\n\nHcclGroupStart: this thread's calls are held until the outermost group_end."),
    HCCL_FN(group_end, METH_NOARGS, "group_end() -> ret\n\nHcclGroupEnd: queues what the group held."),
    {NULL, NULL, 0, NULL},
};

struct hccl_constant {
    const char *name;
    long long value;
};

#define HCCL_CONSTANT(name) {#name, (long long)(name)}

/* The constants of hccl_types.h that the calls above take or return, with their C names. */
static int hccl_add_constants(PyObject *const *modules)
{
    static const struct hccl_constant constants[] = {
        HCCL_CONSTANT(HCCL_SUCCESS),
        HCCL_CONSTANT(HCCL_E_PARA),
        HCCL_CONSTANT(HCCL_E_PTR),
        HCCL_CONSTANT(HCCL_E_MEMORY),
        HCCL_CONSTANT(HCCL_E_INTERNAL),
        HCCL_CONSTANT(HCCL_E_NOT_SUPPORT),
        HCCL_CONSTANT(HCCL_E_NOT_FOUND),
        HCCL_CONSTANT(HCCL_E_UNAVAIL),
        HCCL_CONSTANT(HCCL_E_SYSCALL),
        HCCL_CONSTANT(HCCL_E_TIMEOUT),
        HCCL_CONSTANT(HCCL_E_OPEN_FILE_FAILURE),
        HCCL_CONSTANT(HCCL_E_TCP_CONNECT),
        HCCL_CONSTANT(HCCL_E_ROCE_CONNECT),
        HCCL_CONSTANT(HCCL_E_TCP_TRANSFER),
        HCCL_CONSTANT(HCCL_E_ROCE_TRANSFER),
        HCCL_CONSTANT(HCCL_E_RUNTIME),
        HCCL_CONSTANT(HCCL_E_DRV),
        HCCL_CONSTANT(HCCL_E_PROFILING),
        HCCL_CONSTANT(HCCL_E_CCE),
        HCCL_CONSTANT(HCCL_E_NETWORK),
        HCCL_CONSTANT(HCCL_E_AGAIN),
        HCCL_CONSTANT(HCCL_E_REMOTE),
        HCCL_CONSTANT(HCCL_E_SUSPENDING),
        HCCL_CONSTANT(HCCL_E_OPRETRY_FAIL),
        HCCL_CONSTANT(HCCL_E_OOM),
        HCCL_CONSTANT(HCCL_E_IN_STATUS),
        HCCL_CONSTANT(HCCL_E_RESERVED),
        HCCL_CONSTANT(HCCL_REDUCE_SUM),
        HCCL_CONSTANT(HCCL_REDUCE_PROD),
        HCCL_CONSTANT(HCCL_REDUCE_MAX),
        HCCL_CONSTANT(HCCL_REDUCE_MIN),
        HCCL_CONSTANT(HCCL_REDUCE_RESERVED),
        HCCL_CONSTANT(HCCL_DATA_TYPE_INT8),
        HCCL_CONSTANT(HCCL_DATA_TYPE_INT16),
        HCCL_CONSTANT(HCCL_DATA_TYPE_INT32),
        HCCL_CONSTANT(HCCL_DATA_TYPE_FP16),
        HCCL_CONSTANT(HCCL_DATA_TYPE_FP32),
        HCCL_CONSTANT(HCCL_DATA_TYPE_INT64),
        HCCL_CONSTANT(HCCL_DATA_TYPE_UINT64),
        HCCL_CONSTANT(HCCL_DATA_TYPE_UINT8),
        HCCL_CONSTANT(HCCL_DATA_TYPE_UINT16),
        HCCL_CONSTANT(HCCL_DATA_TYPE_UINT32),
        HCCL_CONSTANT(HCCL_DATA_TYPE_FP64),
        HCCL_CONSTANT(HCCL_DATA_TYPE_BFP16),
        HCCL_CONSTANT(HCCL_DATA_TYPE_INT128),
        HCCL_CONSTANT(HCCL_DATA_TYPE_HIF8),
        HCCL_CONSTANT(HCCL_DATA_TYPE_FP8E4M3),
        HCCL_CONSTANT(HCCL_DATA_TYPE_FP8E5M2),
        HCCL_CONSTANT(HCCL_DATA_TYPE_FP8E8M0),
        HCCL_CONSTANT(HCCL_DATA_TYPE_RESERVED),
        HCCL_CONSTANT(HCCL_SEND),
        HCCL_CONSTANT(HCCL_RECV),
        HCCL_CONSTANT(HCCL_ROOT_INFO_BYTES),
        HCCL_CONSTANT(COMM_NAME_MAX_LENGTH),
    };
    PyObject *module = modules[PYACL_HCCL];
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
        PyObject *value = PyLong_FromLongLong(constants[i].value);
        if (value == NULL || PyModule_AddObject(module, constants[i].name, value) < 0) {
            Py_XDECREF(value);
            return -1;
        }
    }
    return 0;
}

const struct pyacl_capability pyacl_cap_hccl = {
    .name = "HCCL collectives",
    .methods = {[PYACL_HCCL] = hccl_methods},
    .setup = hccl_add_constants,
};
