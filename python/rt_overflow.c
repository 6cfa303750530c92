/*
 * python/rt_overflow.c - acl.rt: floating-point overflow detection.
 *
 *   ret = acl.rt.set_device_sat_mode(mode)             ACL_RT_OVERFLOW_MODE_*
 *   mode, ret = acl.rt.get_device_sat_mode()           ACL_RT_OVERFLOW_MODE_UNDEF on failure
 *   ret = acl.rt.set_stream_overflow_switch(stream, flag)
 *   flag, ret = acl.rt.get_stream_overflow_switch(stream)
 *   ret = acl.rt.get_overflow_status(output_addr, output_size, stream)   a task: 64 bytes at output_addr
 *   ret = acl.rt.reset_overflow_status(stream)                           a task
 *
 * The two status calls submit a task and release the GIL (pyacl.h); the
 * others never wait and keep it.
 */
#include "pyacl.h"

static PyObject *rt_set_device_sat_mode(PyObject *self, PyObject *args)
{
    (void)self;
    int mode;
    if (!PyArg_ParseTuple(args, "i:set_device_sat_mode", &mode))
        return NULL;
    return pyacl_ret(aclrtSetDeviceSatMode((aclrtFloatOverflowMode)mode));
}

static PyObject *rt_get_device_sat_mode(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    aclError rc = aclrtGetDeviceSatMode(&mode);
    return pyacl_long_ret(rc == ACL_SUCCESS ? (long long)mode : (long long)ACL_RT_OVERFLOW_MODE_UNDEF, rc);
}

static PyObject *rt_set_stream_overflow_switch(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    uint32_t flag;
    if (!PyArg_ParseTuple(args, "O&O&:set_stream_overflow_switch", pyacl_to_ptr, &stream, pyacl_to_uint32, &flag))
        return NULL;
    return pyacl_ret(aclrtSetStreamOverflowSwitch(stream, flag));
}

static PyObject *rt_get_stream_overflow_switch(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    uint32_t flag = 0;
    aclError rc = aclrtGetStreamOverflowSwitch(stream, &flag);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? flag : 0, rc);
}

static PyObject *rt_get_overflow_status(PyObject *self, PyObject *args)
{
    (void)self;
    void *output;
    size_t size;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&O&:get_overflow_status", pyacl_to_ptr, &output, pyacl_to_size, &size, pyacl_to_ptr,
                          &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtGetOverflowStatus(output, size, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_reset_overflow_status(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtResetOverflowStatus(stream));
    return pyacl_ret(rc);
}

static PyMethodDef overflow_methods[] = {
    {"set_device_sat_mode", rt_set_device_sat_mode, METH_VARARGS, "set_device_sat_mode(mode) -> ret"},
    {"get_device_sat_mode", rt_get_device_sat_mode, METH_NOARGS, "get_device_sat_mode() -> (mode, ret)"},
    {"set_stream_overflow_switch", rt_set_stream_overflow_switch, METH_VARARGS,
     "set_stream_overflow_switch(stream, flag) -> ret"},
    {"get_stream_overflow_switch", rt_get_stream_overflow_switch, METH_O,
     "get_stream_overflow_switch(stream) -> (flag, ret)"},
    {"get_overflow_status", rt_get_overflow_status, METH_VARARGS,
     "get_overflow_status(output_addr, output_size, stream) -> ret"},
    {"reset_overflow_status", rt_reset_overflow_status, METH_O, "reset_overflow_status(stream) -> ret"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_overflow = {
    .name = "overflow detection",
    .methods = {[PYACL_RT] = overflow_methods},
};
