/*
 * python/rt_device.c - acl.rt: device and context.
 *
 *   ret = acl.rt.set_device(device_id)
 *   ret = acl.rt.reset_device(device_id)          waits for the device's streams
 *   ret = acl.rt.reset_device_force(device_id)
 *   device_id, ret = acl.rt.get_device()
 *   count, ret = acl.rt.get_device_count()
 *   ret = acl.rt.synchronize_device()
 *   ret = acl.rt.synchronize_device_with_timeout(timeout_ms)
 *   context, ret = acl.rt.create_context(device_id)
 *   ret = acl.rt.destroy_context(context)
 *   ret = acl.rt.set_context(context)             pyACL's name (alias: set_current_context)
 *   context, ret = acl.rt.get_context()           pyACL's name (alias: get_current_context)
 *   stream, ret = acl.rt.ctx_get_current_default_stream()
 *   run_mode, ret = acl.rt.get_run_mode()
 */
#include "pyacl.h"

static PyObject *rt_set_device(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:set_device", &device))
        return NULL;
    return pyacl_ret(aclrtSetDevice(device));
}

static PyObject *rt_reset_device(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:reset_device", &device))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtResetDevice(device));
    return pyacl_ret(rc);
}

static PyObject *rt_reset_device_force(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:reset_device_force", &device))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtResetDeviceForce(device));
    return pyacl_ret(rc);
}

static PyObject *rt_get_device(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    int32_t device = 0;
    aclError rc = aclrtGetDevice(&device);
    return pyacl_long_ret(device, rc);
}

static PyObject *rt_get_device_count(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint32_t count = 0;
    aclError rc = aclrtGetDeviceCount(&count);
    return pyacl_ulong_ret(count, rc);
}

static PyObject *rt_synchronize_device(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtSynchronizeDevice());
    return pyacl_ret(rc);
}

static PyObject *rt_synchronize_device_with_timeout(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t timeout;
    if (!PyArg_ParseTuple(args, "i:synchronize_device_with_timeout", &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtSynchronizeDeviceWithTimeout(timeout));
    return pyacl_ret(rc);
}

static PyObject *rt_create_context(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device;
    if (!PyArg_ParseTuple(args, "i:create_context", &device))
        return NULL;
    aclrtContext context = NULL;
    aclError rc = aclrtCreateContext(&context, device);
    return pyacl_ptr_ret(context, rc);
}

static PyObject *rt_destroy_context(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtContext context;
    if (!pyacl_to_ptr(arg, &context))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtDestroyContext(context)); /* waits for its streams */
    return pyacl_ret(rc);
}

static PyObject *rt_set_context(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtContext context;
    if (!pyacl_to_ptr(arg, &context))
        return NULL;
    return pyacl_ret(aclrtSetCurrentContext(context));
}

static PyObject *rt_get_context(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclrtContext context = NULL;
    aclError rc = aclrtGetCurrentContext(&context);
    return pyacl_ptr_ret(context, rc);
}

static PyObject *rt_ctx_get_current_default_stream(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclrtStream stream = NULL;
    aclError rc = aclrtCtxGetCurrentDefaultStream(&stream);
    return pyacl_ptr_ret(stream, rc);
}

static PyObject *rt_get_run_mode(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclrtRunMode mode = ACL_HOST;
    aclError rc = aclrtGetRunMode(&mode);
    return pyacl_long_ret(mode, rc);
}

static PyMethodDef device_methods[] = {
    {"set_device", rt_set_device, METH_VARARGS, "set_device(device_id) -> ret"},
    {"reset_device", rt_reset_device, METH_VARARGS, "reset_device(device_id) -> ret"},
    {"reset_device_force", rt_reset_device_force, METH_VARARGS, "reset_device_force(device_id) -> ret"},
    {"get_device", rt_get_device, METH_NOARGS, "get_device() -> (device_id, ret)"},
    {"get_device_count", rt_get_device_count, METH_NOARGS, "get_device_count() -> (count, ret)"},
    {"synchronize_device", rt_synchronize_device, METH_NOARGS, "synchronize_device() -> ret"},
    {"synchronize_device_with_timeout", rt_synchronize_device_with_timeout, METH_VARARGS,
     "synchronize_device_with_timeout(timeout_ms) -> ret"},
    {"create_context", rt_create_context, METH_VARARGS, "create_context(device_id) -> (context, ret)"},
    {"destroy_context", rt_destroy_context, METH_O, "destroy_context(context) -> ret"},
    {"set_context", rt_set_context, METH_O, "set_context(context) -> ret  (aclrtSetCurrentContext)"},
    {"set_current_context", rt_set_context, METH_O, "set_current_context(context) -> ret  (alias of set_context)"},
    {"get_context", rt_get_context, METH_NOARGS, "get_context() -> (context, ret)  (aclrtGetCurrentContext)"},
    {"get_current_context", rt_get_context, METH_NOARGS,
     "get_current_context() -> (context, ret)  (alias of get_context)"},
    {"ctx_get_current_default_stream", rt_ctx_get_current_default_stream, METH_NOARGS,
     "ctx_get_current_default_stream() -> (stream, ret)"},
    {"get_run_mode", rt_get_run_mode, METH_NOARGS, "get_run_mode() -> (run_mode, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_device = {
    .name = "device and context",
    .methods = {[PYACL_RT] = device_methods},
};
