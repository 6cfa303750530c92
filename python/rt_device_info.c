/*
 * python/rt_device_info.c - acl.rt: device information and resource limits.
 *
 *   value, ret = acl.rt.get_device_info(device_id, attr)           attr: ACL_DEV_ATTR_*
 *   value, ret = acl.rt.get_device_capability(device_id, feature)  feature: ACL_FEATURE_*
 *   status, ret = acl.rt.query_device_status(device_id)            ACL_RT_DEVICE_STATUS_*
 *   info, ret = acl.rt.get_device_utilization_rate(device_id)      dict, None on failure
 *   value, ret = acl.rt.get_device_res_limit(device_id, type)      type: ACL_RT_DEV_RES_*
 *   ret = acl.rt.set_device_res_limit(device_id, type, value)
 *   ret = acl.rt.reset_device_res_limit(device_id)
 *   value, ret = acl.rt.get_res_in_current_thread(type)
 *
 * The utilization is aclrtUtilizationInfo as a dict keyed by its member
 * names (pyACL's form for structures): cubeUtilization, vectorUtilization,
 * aicpuUtilization, memoryUtilization (-1: not available). A failed
 * query_device_status reports ACL_RT_DEVICE_STATUS_END, not 0 (which reads
 * "normal"). Nothing here waits: the GIL is kept.
 */
#include "pyacl.h"

static PyObject *rt_get_device_info(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t device;
    int attr;
    if (!PyArg_ParseTuple(args, "O&i:get_device_info", pyacl_to_uint32, &device, &attr))
        return NULL;
    int64_t value = 0;
    aclError rc = aclrtGetDeviceInfo(device, (aclrtDevAttr)attr, &value);
    return pyacl_long_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *rt_get_device_capability(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    int feature;
    if (!PyArg_ParseTuple(args, "ii:get_device_capability", &device, &feature))
        return NULL;
    int32_t value = 0;
    aclError rc = aclrtGetDeviceCapability(device, (aclrtDevFeatureType)feature, &value);
    return pyacl_long_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *rt_query_device_status(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:query_device_status", &device))
        return NULL;
    aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_END;
    aclError rc = aclrtQueryDeviceStatus(device, &status);
    return pyacl_long_ret(rc == ACL_SUCCESS ? (long long)status : (long long)ACL_RT_DEVICE_STATUS_END, rc);
}

/* dict[key] = value (an int); 0 on success, -1 with an exception set. */
static int pyacl_dict_set_long(PyObject *dict, const char *key, long long value)
{
    PyObject *item = PyLong_FromLongLong(value);
    if (item == NULL)
        return -1;
    int err = PyDict_SetItemString(dict, key, item);
    Py_DECREF(item);
    return err;
}

static PyObject *rt_get_device_utilization_rate(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:get_device_utilization_rate", &device))
        return NULL;
    aclrtUtilizationInfo info = {0};
    aclError rc = aclrtGetDeviceUtilizationRate(device, &info);
    if (rc != ACL_SUCCESS) {
        Py_INCREF(Py_None);
        return pyacl_out_ret(Py_None, rc);
    }
    PyObject *dict = PyDict_New();
    if (dict == NULL || pyacl_dict_set_long(dict, "cubeUtilization", info.cubeUtilization) < 0 ||
        pyacl_dict_set_long(dict, "vectorUtilization", info.vectorUtilization) < 0 ||
        pyacl_dict_set_long(dict, "aicpuUtilization", info.aicpuUtilization) < 0 ||
        pyacl_dict_set_long(dict, "memoryUtilization", info.memoryUtilization) < 0) {
        Py_XDECREF(dict);
        return NULL;
    }
    return pyacl_out_ret(dict, rc);
}

static PyObject *rt_get_device_res_limit(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    int type;
    if (!PyArg_ParseTuple(args, "ii:get_device_res_limit", &device, &type))
        return NULL;
    uint32_t value = 0;
    aclError rc = aclrtGetDeviceResLimit(device, (aclrtDevResLimitType)type, &value);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *rt_set_device_res_limit(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    int type;
    uint32_t value;
    if (!PyArg_ParseTuple(args, "iiO&:set_device_res_limit", &device, &type, pyacl_to_uint32, &value))
        return NULL;
    return pyacl_ret(aclrtSetDeviceResLimit(device, (aclrtDevResLimitType)type, value));
}

static PyObject *rt_reset_device_res_limit(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:reset_device_res_limit", &device))
        return NULL;
    return pyacl_ret(aclrtResetDeviceResLimit(device));
}

static PyObject *rt_get_res_in_current_thread(PyObject *self, PyObject *args)
{
    (void)self;
    int type;
    if (!PyArg_ParseTuple(args, "i:get_res_in_current_thread", &type))
        return NULL;
    uint32_t value = 0;
    aclError rc = aclrtGetResInCurrentThread((aclrtDevResLimitType)type, &value);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyMethodDef device_info_methods[] = {
    {"get_device_info", rt_get_device_info, METH_VARARGS, "get_device_info(device_id, attr) -> (value, ret)"},
    {"get_device_capability", rt_get_device_capability, METH_VARARGS,
     "get_device_capability(device_id, feature_type) -> (value, ret)"},
    {"query_device_status", rt_query_device_status, METH_VARARGS, "query_device_status(device_id) -> (status, ret)"},
    {"get_device_utilization_rate", rt_get_device_utilization_rate, METH_VARARGS,
     "get_device_utilization_rate(device_id) -> (info, ret)  (dict; None on failure)"},
    {"get_device_res_limit", rt_get_device_res_limit, METH_VARARGS,
     "get_device_res_limit(device_id, type) -> (value, ret)"},
    {"set_device_res_limit", rt_set_device_res_limit, METH_VARARGS, "set_device_res_limit(device_id, type, value) -> ret"},
    {"reset_device_res_limit", rt_reset_device_res_limit, METH_VARARGS, "reset_device_res_limit(device_id) -> ret"},
    {"get_res_in_current_thread", rt_get_res_in_current_thread, METH_VARARGS,
     "get_res_in_current_thread(type) -> (value, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_device_info = {
    .name = "device information and limits",
    .methods = {[PYACL_RT] = device_info_methods},
};
