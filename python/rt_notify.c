/*
 * python/rt_notify.c - acl.rt: notifies and counting notifies.
 *
 *   notify, ret = acl.rt.create_notify(flag)
 *   ret = acl.rt.destroy_notify(notify)
 *   ret = acl.rt.record_notify(notify, stream)
 *   ret = acl.rt.wait_and_reset_notify(notify, stream, timeout)     seconds, 0 = never
 *   notify_id, ret = acl.rt.get_notify_id(notify)
 *   ret = acl.rt.notify_batch_reset(notifies)                       a list of notifies
 *   key, ret = acl.rt.notify_get_export_key(notify, flags)          key: str
 *   notify, ret = acl.rt.notify_import_by_key(key, flags)
 *   ret = acl.rt.notify_set_import_pid(notify, [pid, ...])
 *
 *   cnt_notify, ret = acl.rt.cnt_notify_create(flag)
 *   ret = acl.rt.cnt_notify_destroy(cnt_notify)
 *   ret = acl.rt.cnt_notify_record(cnt_notify, stream, mode, value)
 *   ret = acl.rt.cnt_notify_wait_with_timeout(cnt_notify, stream, mode, value, timeout, is_clear=0)
 *   ret = acl.rt.cnt_notify_reset(cnt_notify, stream)
 *   notify_id, ret = acl.rt.cnt_notify_get_id(cnt_notify)
 *
 * The notify functions are pyACL's. pyACL has no counting notifies; their
 * names follow its convention (aclrtCntNotifyRecord -> cnt_notify_record),
 * and the record and wait info structures are flattened into arguments:
 * mode (ACL_RT_CNT_NOTIFY_RECORD_* / ACL_RT_CNT_NOTIFY_WAIT_*) and value, and
 * for the wait the timeout (seconds, 0 = never) and is_clear (non-zero:
 * the wait that passes sets the counter to 0).
 *
 * GIL: records, waits and resets are tasks: released (a full ring waits).
 * Creates, destroys (they release waits, never wait), ids and the batch reset
 * (synchronous, no wait) keep it.
 */
#include "pyacl.h"

/* ------------------------------------------------------------------------
 * Notifies
 * ------------------------------------------------------------------------ */

static PyObject *rt_create_notify(PyObject *self, PyObject *arg)
{
    (void)self;
    uint64_t flag;
    if (!pyacl_to_uint64(arg, &flag))
        return NULL;
    aclrtNotify notify = NULL;
    aclError rc = aclrtCreateNotify(&notify, flag);
    return pyacl_ptr_ret(notify, rc);
}

static PyObject *rt_destroy_notify(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtNotify notify;
    if (!pyacl_to_ptr(arg, &notify))
        return NULL;
    return pyacl_ret(aclrtDestroyNotify(notify)); /* releases pending waits; never waits */
}

static PyObject *rt_record_notify(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtNotify notify;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&:record_notify", pyacl_to_ptr, &notify, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtRecordNotify(notify, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_wait_and_reset_notify(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtNotify notify;
    aclrtStream stream;
    uint32_t timeout;
    if (!PyArg_ParseTuple(args, "O&O&O&:wait_and_reset_notify", pyacl_to_ptr, &notify, pyacl_to_ptr, &stream,
                          pyacl_to_uint32, &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtWaitAndResetNotify(notify, stream, timeout));
    return pyacl_ret(rc);
}

static PyObject *rt_get_notify_id(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtNotify notify;
    if (!pyacl_to_ptr(arg, &notify))
        return NULL;
    uint32_t id = 0;
    aclError rc = aclrtGetNotifyId(notify, &id);
    return pyacl_ulong_ret(id, rc);
}

/* notifies: a sequence of notify ints (a list in pyACL). Empty: the runtime's code. */
static PyObject *rt_notify_batch_reset(PyObject *self, PyObject *arg)
{
    (void)self;
    if (PyLong_Check(arg) || PyUnicode_Check(arg) || PyBytes_Check(arg))
        return PyErr_Format(PyExc_TypeError, "notifies must be a list of notifies, not %.100s", Py_TYPE(arg)->tp_name);
    PyObject *items = PySequence_Fast(arg, "notifies must be a list of notifies");
    if (items == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    aclrtNotify *notifies = PyMem_New(aclrtNotify, n > 0 ? n : 1);
    if (notifies == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!pyacl_to_ptr(PySequence_Fast_GET_ITEM(items, i), &notifies[i]))
            goto done;
    result = pyacl_ret(aclrtNotifyBatchReset(notifies, (size_t)n)); /* synchronous, no wait */
done:
    PyMem_Free(notifies);
    Py_DECREF(items);
    return result;
}

/* ------------------------------------------------------------------------
 * Counting notifies
 * ------------------------------------------------------------------------ */

static PyObject *rt_cnt_notify_create(PyObject *self, PyObject *arg)
{
    (void)self;
    uint64_t flag;
    if (!pyacl_to_uint64(arg, &flag))
        return NULL;
    aclrtCntNotify cnt = NULL;
    aclError rc = aclrtCntNotifyCreate(&cnt, flag);
    return pyacl_ptr_ret(cnt, rc);
}

static PyObject *rt_cnt_notify_destroy(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtCntNotify cnt;
    if (!pyacl_to_ptr(arg, &cnt))
        return NULL;
    return pyacl_ret(aclrtCntNotifyDestroy(cnt));
}

static PyObject *rt_cnt_notify_record(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtCntNotify cnt;
    aclrtStream stream;
    int mode;
    uint32_t value;
    if (!PyArg_ParseTuple(args, "O&O&iO&:cnt_notify_record", pyacl_to_ptr, &cnt, pyacl_to_ptr, &stream, &mode,
                          pyacl_to_uint32, &value))
        return NULL;
    aclrtCntNotifyRecordInfo info = {.mode = (aclrtCntNotifyRecordMode)mode, .value = value};
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtCntNotifyRecord(cnt, stream, &info)); /* a bad mode is the runtime's */
    return pyacl_ret(rc);
}

static PyObject *rt_cnt_notify_wait_with_timeout(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"cnt_notify", "stream", "mode", "value", "timeout", "is_clear", NULL};
    aclrtCntNotify cnt;
    aclrtStream stream;
    int mode;
    uint32_t value, timeout, is_clear = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O&iO&O&|O&:cnt_notify_wait_with_timeout", kwlist, pyacl_to_ptr,
                                     &cnt, pyacl_to_ptr, &stream, &mode, pyacl_to_uint32, &value, pyacl_to_uint32,
                                     &timeout, pyacl_to_uint32, &is_clear))
        return NULL;
    aclrtCntNotifyWaitInfo info;
    memset(&info, 0, sizeof info);
    info.mode = (aclrtCntNotifyWaitMode)mode;
    info.value = value;
    info.timeout = timeout;
    info.isClear = is_clear != 0;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtCntNotifyWaitWithTimeout(cnt, stream, &info));
    return pyacl_ret(rc);
}

static PyObject *rt_cnt_notify_reset(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtCntNotify cnt;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&:cnt_notify_reset", pyacl_to_ptr, &cnt, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtCntNotifyReset(cnt, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_cnt_notify_get_id(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtCntNotify cnt;
    if (!pyacl_to_ptr(arg, &cnt))
        return NULL;
    uint32_t id = 0;
    aclError rc = aclrtCntNotifyGetId(cnt, &id);
    return pyacl_ulong_ret(id, rc);
}

static PyObject *rt_notify_get_export_key(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtNotify notify;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "O&O&:notify_get_export_key", pyacl_to_ptr, &notify, pyacl_to_uint64, &flags))
        return NULL;
    char key[65] = {0};
    aclError rc = aclrtNotifyGetExportKey(notify, key, sizeof key, flags);
    return pyacl_out_ret(PyUnicode_FromString(key), rc);
}

static PyObject *rt_notify_import_by_key(PyObject *self, PyObject *args)
{
    (void)self;
    const char *key;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "sO&:notify_import_by_key", &key, pyacl_to_uint64, &flags))
        return NULL;
    aclrtNotify notify = NULL;
    aclError rc = aclrtNotifyImportByKey(&notify, key, flags);
    return pyacl_ptr_ret(notify, rc);
}

static PyObject *rt_notify_set_import_pid(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtNotify notify;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O&O:notify_set_import_pid", pyacl_to_ptr, &notify, &list))
        return NULL;
    int32_t *pids;
    size_t n;
    if (!pyacl_pid_list(list, &pids, &n))
        return NULL;
    aclError rc = aclrtNotifySetImportPid(notify, pids, n);
    PyMem_Free(pids);
    return pyacl_ret(rc);
}

static PyMethodDef notify_methods[] = {
    {"create_notify", rt_create_notify, METH_O,
     "create_notify(flag) -> (notify, ret)\n\naclrtCreateNotify (flag: ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY)."},
    {"destroy_notify", rt_destroy_notify, METH_O,
     "destroy_notify(notify) -> ret\n\naclrtDestroyNotify: pending waits are released."},
    {"record_notify", rt_record_notify, METH_VARARGS,
     "record_notify(notify, stream) -> ret\n\naclrtRecordNotify: releases exactly one wait, in stream order."},
    {"wait_and_reset_notify", rt_wait_and_reset_notify, METH_VARARGS,
     "wait_and_reset_notify(notify, stream, timeout) -> ret\n\n"
     "aclrtWaitAndResetNotify: the stream waits for (and consumes) one record; timeout in seconds, 0 = never."},
    {"get_notify_id", rt_get_notify_id, METH_O, "get_notify_id(notify) -> (notify_id, ret)\n\naclrtGetNotifyId."},
    {"notify_batch_reset", rt_notify_batch_reset, METH_O,
     "notify_batch_reset(notifies) -> ret\n\naclrtNotifyBatchReset: drops the unconsumed records of a list of notifies."},
    {"notify_get_export_key", rt_notify_get_export_key, METH_VARARGS,
     "notify_get_export_key(notify, flags) -> (key, ret)\n\naclrtNotifyGetExportKey: a key another process imports."},
    {"notify_import_by_key", rt_notify_import_by_key, METH_VARARGS,
     "notify_import_by_key(key, flags) -> (notify, ret)\n\naclrtNotifyImportByKey: records here release the "
     "exporter's waits."},
    {"notify_set_import_pid", rt_notify_set_import_pid, METH_VARARGS,
     "notify_set_import_pid(notify, pids) -> ret\n\naclrtNotifySetImportPid: the processes that may import."},
    {"cnt_notify_create", rt_cnt_notify_create, METH_O,
     "cnt_notify_create(flag) -> (cnt_notify, ret)\n\naclrtCntNotifyCreate (flag 0): a 32-bit counter, 0 at creation."},
    {"cnt_notify_destroy", rt_cnt_notify_destroy, METH_O,
     "cnt_notify_destroy(cnt_notify) -> ret\n\naclrtCntNotifyDestroy: pending waits are released."},
    {"cnt_notify_record", rt_cnt_notify_record, METH_VARARGS,
     "cnt_notify_record(cnt_notify, stream, mode, value) -> ret\n\n"
     "aclrtCntNotifyRecord: in stream order, the counter is set / added / ORed / ANDed with value\n"
     "(mode: ACL_RT_CNT_NOTIFY_RECORD_*_MODE)."},
    {"cnt_notify_wait_with_timeout", (PyCFunction)(void (*)(void))rt_cnt_notify_wait_with_timeout,
     METH_VARARGS | METH_KEYWORDS,
     "cnt_notify_wait_with_timeout(cnt_notify, stream, mode, value, timeout, is_clear=0) -> ret\n\n"
     "aclrtCntNotifyWaitWithTimeout: the stream waits until the counter compares with value as mode says\n"
     "(ACL_RT_CNT_NOTIFY_WAIT_*_MODE); timeout in seconds, 0 = never; is_clear: the passing wait zeroes it."},
    {"cnt_notify_reset", rt_cnt_notify_reset, METH_VARARGS,
     "cnt_notify_reset(cnt_notify, stream) -> ret\n\naclrtCntNotifyReset: the counter is set to 0, in stream order."},
    {"cnt_notify_get_id", rt_cnt_notify_get_id, METH_O,
     "cnt_notify_get_id(cnt_notify) -> (notify_id, ret)\n\naclrtCntNotifyGetId."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_notify = {
    .name = "notifies and counting notifies",
    .methods = {[PYACL_RT] = notify_methods},
};
