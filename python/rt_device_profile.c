/*
 * python/rt_device_profile.c - acl.rt: device limits, atomics, the task
 * scheduler, the primary context, compute groups and the abort of a device.
 *
 *   ret = acl.rt.device_set_limit(limit, value)                     limit: ACL_RT_DEV_LIMIT_*
 *   value, ret = acl.rt.device_get_limit(limit)
 *   caps, ret = acl.rt.device_get_host_atomic_capabilities(operations, device_id)
 *   caps, ret = acl.rt.device_get_p2p_atomic_capabilities(operations, src_device_id, dst_device_id)
 *   ret = acl.rt.set_ts_device(ts_id)                               ts_id: ACL_TS_ID_*
 *   active, ret = acl.rt.get_primary_ctx_state(device_id)
 *   ret = acl.rt.set_group(group_id)
 *   count, ret = acl.rt.get_group_count()
 *   group_info = acl.rt.create_group_info()                         an address, 0 on failure
 *   ret = acl.rt.destroy_group_info(group_info)
 *   ret = acl.rt.get_all_group_info(group_info)
 *   value, ret = acl.rt.get_group_info_detail(group_info, group_index, attr)   attr: ACL_GROUP_*
 *   ret = acl.rt.device_task_abort(device_id, timeout)
 *
 * operations is a list of ACL_RT_ATOMIC_OPERATION_* values, caps the list of
 * their masks (ACL_RT_ATOMIC_CAPABILITY_*; None on failure). Every group
 * attribute is a 4-byte integer. get_primary_ctx_state has no flags
 * argument: it is reserved (NULL). device_task_abort waits for running tasks
 * with the GIL released. The abort callbacks
 * (aclrtSetDeviceTaskAbortCallback) are not bound.
 */
#include "pyacl.h"

static PyObject *rt_device_set_limit(PyObject *self, PyObject *args)
{
    (void)self;
    int limit;
    size_t value;
    if (!PyArg_ParseTuple(args, "iO&:device_set_limit", &limit, pyacl_to_size, &value))
        return NULL;
    return pyacl_ret(aclrtDeviceSetLimit((aclrtDeviceLimit)limit, value));
}

static PyObject *rt_device_get_limit(PyObject *self, PyObject *args)
{
    (void)self;
    int limit;
    if (!PyArg_ParseTuple(args, "i:device_get_limit", &limit))
        return NULL;
    size_t value = 0;
    aclError rc = aclrtDeviceGetLimit((aclrtDeviceLimit)limit, &value);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

/*
 * The operations of a Python list as a C array (PyMem_Free it) and their
 * count; 0 with an exception set. An empty list is passed on as count 0.
 */
static int atomic_ops_from_list(PyObject *list, aclrtAtomicOperation **ops, uint32_t *count)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "operations must be a list of ACL_RT_ATOMIC_OPERATION_* values");
        return 0;
    }
    Py_ssize_t n = PyList_Size(list);
    if (n > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too many operations");
        return 0;
    }
    *ops = (aclrtAtomicOperation *)PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof **ops);
    if (*ops == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GetItem(list, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(*ops);
            return 0;
        }
        (*ops)[i] = (aclrtAtomicOperation)v;
    }
    *count = (uint32_t)n;
    return 1;
}

/* (caps, rc): the masks as a list, None on failure. Frees ops and caps. */
static PyObject *atomic_caps_ret(aclrtAtomicOperation *ops, uint32_t *caps, uint32_t count, aclError rc)
{
    PyMem_Free(ops);
    PyObject *out;
    if (rc != ACL_SUCCESS) {
        Py_INCREF(Py_None);
        out = Py_None;
    } else if ((out = PyList_New((Py_ssize_t)count)) != NULL) {
        for (uint32_t i = 0; i < count; i++) {
            PyObject *item = PyLong_FromUnsignedLong(caps[i]);
            if (item == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, (Py_ssize_t)i, item);
        }
    }
    PyMem_Free(caps);
    return pyacl_out_ret(out, rc);
}

static PyObject *rt_device_get_host_atomic_capabilities(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *list;
    int32_t device;
    if (!PyArg_ParseTuple(args, "Oi:device_get_host_atomic_capabilities", &list, &device))
        return NULL;
    aclrtAtomicOperation *ops;
    uint32_t count;
    if (!atomic_ops_from_list(list, &ops, &count))
        return NULL;
    uint32_t *caps = (uint32_t *)PyMem_Malloc((size_t)(count > 0 ? count : 1) * sizeof *caps);
    if (caps == NULL) {
        PyMem_Free(ops);
        return PyErr_NoMemory();
    }
    aclError rc = aclrtDeviceGetHostAtomicCapabilities(caps, ops, count, device);
    return atomic_caps_ret(ops, caps, count, rc);
}

static PyObject *rt_device_get_p2p_atomic_capabilities(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *list;
    int32_t src, dst;
    if (!PyArg_ParseTuple(args, "Oii:device_get_p2p_atomic_capabilities", &list, &src, &dst))
        return NULL;
    aclrtAtomicOperation *ops;
    uint32_t count;
    if (!atomic_ops_from_list(list, &ops, &count))
        return NULL;
    uint32_t *caps = (uint32_t *)PyMem_Malloc((size_t)(count > 0 ? count : 1) * sizeof *caps);
    if (caps == NULL) {
        PyMem_Free(ops);
        return PyErr_NoMemory();
    }
    aclError rc = aclrtDeviceGetP2PAtomicCapabilities(caps, ops, count, src, dst);
    return atomic_caps_ret(ops, caps, count, rc);
}

static PyObject *rt_set_ts_device(PyObject *self, PyObject *args)
{
    (void)self;
    int ts;
    if (!PyArg_ParseTuple(args, "i:set_ts_device", &ts))
        return NULL;
    return pyacl_ret(aclrtSetTsDevice((aclrtTsId)ts));
}

static PyObject *rt_get_primary_ctx_state(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:get_primary_ctx_state", &device))
        return NULL;
    int32_t active = 0;
    aclError rc = aclrtGetPrimaryCtxState(device, NULL, &active);
    return pyacl_long_ret(rc == ACL_SUCCESS ? active : 0, rc);
}

static PyObject *rt_set_group(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t group;
    if (!PyArg_ParseTuple(args, "i:set_group", &group))
        return NULL;
    return pyacl_ret(aclrtSetGroup(group));
}

static PyObject *rt_get_group_count(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    uint32_t count = 0;
    aclError rc = aclrtGetGroupCount(&count);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? count : 0, rc);
}

static PyObject *rt_create_group_info(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyLong_FromVoidPtr(aclrtCreateGroupInfo());
}

static PyObject *rt_destroy_group_info(PyObject *self, PyObject *args)
{
    (void)self;
    void *info;
    if (!PyArg_ParseTuple(args, "O&:destroy_group_info", pyacl_to_ptr, &info))
        return NULL;
    return pyacl_ret(aclrtDestroyGroupInfo((aclrtGroupInfo *)info));
}

static PyObject *rt_get_all_group_info(PyObject *self, PyObject *args)
{
    (void)self;
    void *info;
    if (!PyArg_ParseTuple(args, "O&:get_all_group_info", pyacl_to_ptr, &info))
        return NULL;
    return pyacl_ret(aclrtGetAllGroupInfo((aclrtGroupInfo *)info));
}

static PyObject *rt_get_group_info_detail(PyObject *self, PyObject *args)
{
    (void)self;
    void *info;
    int32_t index;
    int attr;
    if (!PyArg_ParseTuple(args, "O&ii:get_group_info_detail", pyacl_to_ptr, &info, &index, &attr))
        return NULL;
    int32_t value = 0;
    size_t len = 0;
    aclError rc = aclrtGetGroupInfoDetail((const aclrtGroupInfo *)info, index, (aclrtGroupAttr)attr, &value,
                                          sizeof value, &len);
    return pyacl_long_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *rt_device_task_abort(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    uint32_t timeout;
    if (!PyArg_ParseTuple(args, "iO&:device_task_abort", &device, pyacl_to_uint32, &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtDeviceTaskAbort(device, timeout));
    return pyacl_ret(rc);
}

static PyMethodDef device_profile_methods[] = {
    {"device_set_limit", rt_device_set_limit, METH_VARARGS, "device_set_limit(limit, value) -> ret"},
    {"device_get_limit", rt_device_get_limit, METH_VARARGS, "device_get_limit(limit) -> (value, ret)"},
    {"device_get_host_atomic_capabilities", rt_device_get_host_atomic_capabilities, METH_VARARGS,
     "device_get_host_atomic_capabilities(operations, device_id) -> (caps, ret)"},
    {"device_get_p2p_atomic_capabilities", rt_device_get_p2p_atomic_capabilities, METH_VARARGS,
     "device_get_p2p_atomic_capabilities(operations, src_device_id, dst_device_id) -> (caps, ret)"},
    {"set_ts_device", rt_set_ts_device, METH_VARARGS, "set_ts_device(ts_id) -> ret"},
    {"get_primary_ctx_state", rt_get_primary_ctx_state, METH_VARARGS,
     "get_primary_ctx_state(device_id) -> (active, ret)"},
    {"set_group", rt_set_group, METH_VARARGS, "set_group(group_id) -> ret"},
    {"get_group_count", rt_get_group_count, METH_NOARGS, "get_group_count() -> (count, ret)"},
    {"create_group_info", rt_create_group_info, METH_NOARGS, "create_group_info() -> group_info (0 on failure)"},
    {"destroy_group_info", rt_destroy_group_info, METH_VARARGS, "destroy_group_info(group_info) -> ret"},
    {"get_all_group_info", rt_get_all_group_info, METH_VARARGS, "get_all_group_info(group_info) -> ret"},
    {"get_group_info_detail", rt_get_group_info_detail, METH_VARARGS,
     "get_group_info_detail(group_info, group_index, attr) -> (value, ret)"},
    {"device_task_abort", rt_device_task_abort, METH_VARARGS, "device_task_abort(device_id, timeout) -> ret"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_device_profile = {
    .name = "device limits, atomics, groups and task abort",
    .methods = {[PYACL_RT] = device_profile_methods},
};
