/*
 * python/rt_options.c - data buffers, device capabilities, system parameter
 * options and operator execution timeouts.
 *
 *   data_buffer = acl.create_data_buffer(data, size)      int (0 on failure)
 *   ret = acl.destroy_data_buffer(data_buffer)
 *   ret = acl.update_data_buffer(data_buffer, data, size)
 *   data = acl.get_data_buffer_addr(data_buffer)          int (0 for a NULL buffer)
 *   size = acl.get_data_buffer_size_v2(data_buffer)
 *   size = acl.get_data_buffer_size(data_buffer)          the size cut to 32 bits (deprecated in C)
 *   value, ret = acl.get_device_capability(device_id, device_info)
 *   ret = acl.rt.set_sys_param_opt(opt, value)   value, ret = acl.rt.get_sys_param_opt(opt)
 *   ret = acl.rt.ctx_set_sys_param_opt(opt, value)   value, ret = acl.rt.ctx_get_sys_param_opt(opt)
 *   ret = acl.rt.set_op_execute_time_out(timeout)          seconds
 *   ret = acl.rt.set_op_execute_time_out_with_ms(timeout)  milliseconds
 *   actual_timeout, ret = acl.rt.set_op_execute_time_out_v2(timeout)   microseconds
 *   timeout_ms, ret = acl.rt.get_op_execute_timeout()
 *   interval, ret = acl.rt.get_op_time_out_interval()
 *
 * A buffer is the C pointer as an int, as pyACL gives it; data is an
 * address (an int, or None for NULL). Nothing here waits: the GIL is kept.
 */
#include "pyacl.h"

static PyObject *acl_create_data_buffer(PyObject *self, PyObject *args)
{
    (void)self;
    void *data;
    size_t size;
    if (!PyArg_ParseTuple(args, "O&O&:create_data_buffer", pyacl_to_ptr, &data, pyacl_to_size, &size))
        return NULL;
    return PyLong_FromVoidPtr(aclCreateDataBuffer(data, size));
}

static PyObject *acl_destroy_data_buffer(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf;
    if (!PyArg_ParseTuple(args, "O&:destroy_data_buffer", pyacl_to_ptr, &buf))
        return NULL;
    return pyacl_ret(aclDestroyDataBuffer((const aclDataBuffer *)buf));
}

static PyObject *acl_update_data_buffer(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf, *data;
    size_t size;
    if (!PyArg_ParseTuple(args, "O&O&O&:update_data_buffer", pyacl_to_ptr, &buf, pyacl_to_ptr, &data, pyacl_to_size,
                          &size))
        return NULL;
    return pyacl_ret(aclUpdateDataBuffer((aclDataBuffer *)buf, data, size));
}

static PyObject *acl_get_data_buffer_addr(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf;
    if (!PyArg_ParseTuple(args, "O&:get_data_buffer_addr", pyacl_to_ptr, &buf))
        return NULL;
    return PyLong_FromVoidPtr(aclGetDataBufferAddr((const aclDataBuffer *)buf));
}

static PyObject *acl_get_data_buffer_size_v2(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf;
    if (!PyArg_ParseTuple(args, "O&:get_data_buffer_size_v2", pyacl_to_ptr, &buf))
        return NULL;
    return PyLong_FromSize_t(aclGetDataBufferSizeV2((const aclDataBuffer *)buf));
}

static PyObject *acl_get_data_buffer_size(PyObject *self, PyObject *args)
{
    (void)self;
    void *buf;
    if (!PyArg_ParseTuple(args, "O&:get_data_buffer_size", pyacl_to_ptr, &buf))
        return NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return PyLong_FromUnsignedLong(aclGetDataBufferSize((const aclDataBuffer *)buf));
#pragma GCC diagnostic pop
}

static PyObject *acl_get_device_capability(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t device;
    int info;
    if (!PyArg_ParseTuple(args, "O&i:get_device_capability", pyacl_to_uint32, &device, &info))
        return NULL;
    int64_t value = 0;
    aclError rc = aclGetDeviceCapability(device, (aclDeviceInfo)info, &value);
    return pyacl_long_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *sys_param_set(PyObject *args, const char *format, aclError (*set)(aclSysParamOpt, int64_t))
{
    int opt;
    long long value;
    if (!PyArg_ParseTuple(args, format, &opt, &value))
        return NULL;
    return pyacl_ret(set((aclSysParamOpt)opt, (int64_t)value));
}

static PyObject *sys_param_get(PyObject *args, const char *format, aclError (*get)(aclSysParamOpt, int64_t *))
{
    int opt;
    if (!PyArg_ParseTuple(args, format, &opt))
        return NULL;
    int64_t value = 0;
    aclError rc = get((aclSysParamOpt)opt, &value);
    return pyacl_long_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *rt_set_sys_param_opt(PyObject *self, PyObject *args)
{
    (void)self;
    return sys_param_set(args, "iL:set_sys_param_opt", aclrtSetSysParamOpt);
}

static PyObject *rt_get_sys_param_opt(PyObject *self, PyObject *args)
{
    (void)self;
    return sys_param_get(args, "i:get_sys_param_opt", aclrtGetSysParamOpt);
}

static PyObject *rt_ctx_set_sys_param_opt(PyObject *self, PyObject *args)
{
    (void)self;
    return sys_param_set(args, "iL:ctx_set_sys_param_opt", aclrtCtxSetSysParamOpt);
}

static PyObject *rt_ctx_get_sys_param_opt(PyObject *self, PyObject *args)
{
    (void)self;
    return sys_param_get(args, "i:ctx_get_sys_param_opt", aclrtCtxGetSysParamOpt);
}

static PyObject *rt_set_op_execute_time_out(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t timeout;
    if (!PyArg_ParseTuple(args, "O&:set_op_execute_time_out", pyacl_to_uint32, &timeout))
        return NULL;
    return pyacl_ret(aclrtSetOpExecuteTimeOut(timeout));
}

static PyObject *rt_set_op_execute_time_out_with_ms(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t timeout;
    if (!PyArg_ParseTuple(args, "O&:set_op_execute_time_out_with_ms", pyacl_to_uint32, &timeout))
        return NULL;
    return pyacl_ret(aclrtSetOpExecuteTimeOutWithMs(timeout));
}

static PyObject *rt_set_op_execute_time_out_v2(PyObject *self, PyObject *args)
{
    (void)self;
    uint64_t timeout, actual = 0;
    if (!PyArg_ParseTuple(args, "O&:set_op_execute_time_out_v2", pyacl_to_uint64, &timeout))
        return NULL;
    aclError rc = aclrtSetOpExecuteTimeOutV2(timeout, &actual);
    return pyacl_out_ret(PyLong_FromUnsignedLongLong(rc == ACL_SUCCESS ? actual : 0), rc);
}

static PyObject *rt_get_op_execute_timeout(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint32_t ms = 0;
    aclError rc = aclrtGetOpExecuteTimeout(&ms);
    return pyacl_out_ret(PyLong_FromUnsignedLong(rc == ACL_SUCCESS ? ms : 0), rc);
}

static PyObject *rt_get_op_time_out_interval(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint64_t interval = 0;
    aclError rc = aclrtGetOpTimeOutInterval(&interval);
    return pyacl_out_ret(PyLong_FromUnsignedLongLong(rc == ACL_SUCCESS ? interval : 0), rc);
}

static PyMethodDef options_top_methods[] = {
    {"create_data_buffer", acl_create_data_buffer, METH_VARARGS, "create_data_buffer(data, size) -> data_buffer"},
    {"destroy_data_buffer", acl_destroy_data_buffer, METH_VARARGS, "destroy_data_buffer(data_buffer) -> ret"},
    {"update_data_buffer", acl_update_data_buffer, METH_VARARGS, "update_data_buffer(data_buffer, data, size) -> ret"},
    {"get_data_buffer_addr", acl_get_data_buffer_addr, METH_VARARGS, "get_data_buffer_addr(data_buffer) -> data"},
    {"get_data_buffer_size_v2", acl_get_data_buffer_size_v2, METH_VARARGS, "get_data_buffer_size_v2(data_buffer) -> size"},
    {"get_data_buffer_size", acl_get_data_buffer_size, METH_VARARGS, "get_data_buffer_size(data_buffer) -> size"},
    {"get_device_capability", acl_get_device_capability, METH_VARARGS,
     "get_device_capability(device_id, device_info) -> (value, ret)"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef options_rt_methods[] = {
    {"set_sys_param_opt", rt_set_sys_param_opt, METH_VARARGS, "set_sys_param_opt(opt, value) -> ret"},
    {"get_sys_param_opt", rt_get_sys_param_opt, METH_VARARGS, "get_sys_param_opt(opt) -> (value, ret)"},
    {"ctx_set_sys_param_opt", rt_ctx_set_sys_param_opt, METH_VARARGS, "ctx_set_sys_param_opt(opt, value) -> ret"},
    {"ctx_get_sys_param_opt", rt_ctx_get_sys_param_opt, METH_VARARGS, "ctx_get_sys_param_opt(opt) -> (value, ret)"},
    {"set_op_execute_time_out", rt_set_op_execute_time_out, METH_VARARGS, "set_op_execute_time_out(timeout) -> ret"},
    {"set_op_execute_time_out_with_ms", rt_set_op_execute_time_out_with_ms, METH_VARARGS,
     "set_op_execute_time_out_with_ms(timeout) -> ret"},
    {"set_op_execute_time_out_v2", rt_set_op_execute_time_out_v2, METH_VARARGS,
     "set_op_execute_time_out_v2(timeout) -> (actual_timeout, ret)"},
    {"get_op_execute_timeout", rt_get_op_execute_timeout, METH_NOARGS, "get_op_execute_timeout() -> (timeout_ms, ret)"},
    {"get_op_time_out_interval", rt_get_op_time_out_interval, METH_NOARGS,
     "get_op_time_out_interval() -> (interval, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_options = {
    .name = "data buffers and runtime options",
    .methods = {[PYACL_TOP] = options_top_methods, [PYACL_RT] = options_rt_methods},
};
