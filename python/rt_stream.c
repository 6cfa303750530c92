/*
 * python/rt_stream.c - acl.rt: streams.
 *
 *   stream, ret = acl.rt.create_stream()
 *   stream, ret = acl.rt.create_stream_with_config(priority, flag)
 *   handle = acl.rt.create_stream_config_handle()          0 on failure
 *   ret = acl.rt.set_stream_config_opt(handle, attr, value) value: int
 *   ret = acl.rt.destroy_stream_config_handle(handle)
 *   stream, ret = acl.rt.create_stream_v2(handle)
 *   ret = acl.rt.destroy_stream(stream)                    waits for its work
 *   ret = acl.rt.destroy_stream_force(stream)
 *   ret = acl.rt.synchronize_stream(stream)
 *   ret = acl.rt.synchronize_stream_with_timeout(stream, timeout_ms)
 *   status, ret = acl.rt.stream_query(stream)
 *   stream_id, ret = acl.rt.stream_get_id(stream)
 *   priority, ret = acl.rt.stream_get_priority(stream)
 *   flags, ret = acl.rt.stream_get_flags(stream)
 *   ret = acl.rt.set_stream_failure_mode(stream, mode)
 *   ret = acl.rt.set_stream_attribute(stream, attr, value)  value: int
 *   value, ret = acl.rt.get_stream_attribute(stream, attr)
 *   least, greatest, ret = acl.rt.device_get_stream_priority_range()
 *   count, ret = acl.rt.get_stream_available_num()
 */
#include "pyacl.h"

static PyObject *rt_create_stream(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclrtStream stream = NULL;
    aclError rc = aclrtCreateStream(&stream);
    return pyacl_ptr_ret(stream, rc);
}

static PyObject *rt_create_stream_with_config(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t priority, flag;
    if (!PyArg_ParseTuple(args, "O&O&:create_stream_with_config", pyacl_to_uint32, &priority, pyacl_to_uint32,
                          &flag))
        return NULL;
    aclrtStream stream = NULL;
    aclError rc = aclrtCreateStreamWithConfig(&stream, priority, flag);
    return pyacl_ptr_ret(stream, rc);
}

static PyObject *rt_create_stream_config_handle(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromVoidPtr(aclrtCreateStreamConfigHandle());
}

/* The value's C size follows the attribute, as aclrtSetStreamConfigOpt expects. */
static PyObject *rt_set_stream_config_opt(PyObject *self, PyObject *args)
{
    (void)self;
    void *handle;
    int attr;
    uint64_t value;
    if (!PyArg_ParseTuple(args, "O&iO&:set_stream_config_opt", pyacl_to_ptr, &handle, &attr, pyacl_to_uint64, &value))
        return NULL;
    union {
        void *ptr;
        size_t size;
        uint32_t u32;
        uint64_t u64;
    } v;
    size_t size;
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR: v.ptr = (void *)(uintptr_t)value; size = sizeof v.ptr; break;
    case ACL_RT_STREAM_WORK_SIZE:
    case ACL_RT_STREAM_FLAG: v.size = (size_t)value; size = sizeof v.size; break;
    case ACL_RT_STREAM_PRIORITY:
        if (value > UINT32_MAX)
            return PyErr_Format(PyExc_OverflowError, "priority %llu does not fit in 32 bits",
                                (unsigned long long)value);
        v.u32 = (uint32_t)value;
        size = sizeof v.u32;
        break;
    default: v.u64 = value; size = sizeof v.u64; break; /* the runtime rejects the attribute */
    }
    return pyacl_ret(aclrtSetStreamConfigOpt(handle, (aclrtStreamConfigAttr)attr, &v, size));
}

static PyObject *rt_destroy_stream_config_handle(PyObject *self, PyObject *arg)
{
    (void)self;
    void *handle;
    if (!pyacl_to_ptr(arg, &handle))
        return NULL;
    return pyacl_ret(aclrtDestroyStreamConfigHandle(handle));
}

static PyObject *rt_create_stream_v2(PyObject *self, PyObject *arg)
{
    (void)self;
    void *handle;
    if (!pyacl_to_ptr(arg, &handle))
        return NULL;
    aclrtStream stream = NULL;
    aclError rc = aclrtCreateStreamV2(&stream, handle);
    return pyacl_ptr_ret(stream, rc);
}

static PyObject *rt_destroy_stream(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtDestroyStream(stream)); /* waits for the stream's work */
    return pyacl_ret(rc);
}

static PyObject *rt_destroy_stream_force(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtDestroyStreamForce(stream)); /* may wait for the running task */
    return pyacl_ret(rc);
}

static PyObject *rt_synchronize_stream(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtSynchronizeStream(stream));
    return pyacl_ret(rc);
}

static PyObject *rt_synchronize_stream_with_timeout(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    int32_t timeout;
    if (!PyArg_ParseTuple(args, "O&i:synchronize_stream_with_timeout", pyacl_to_ptr, &stream, &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtSynchronizeStreamWithTimeout(stream, timeout));
    return pyacl_ret(rc);
}

static PyObject *rt_stream_query(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    aclError rc = aclrtStreamQuery(stream, &status);
    return pyacl_status_ret(status, rc);
}

static PyObject *rt_stream_get_id(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    int32_t id = 0;
    aclError rc = aclrtStreamGetId(stream, &id);
    return pyacl_long_ret(id, rc);
}

static PyObject *rt_stream_get_priority(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    uint32_t priority = 0;
    aclError rc = aclrtStreamGetPriority(stream, &priority);
    return pyacl_ulong_ret(priority, rc);
}

static PyObject *rt_stream_get_flags(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    uint32_t flags = 0;
    aclError rc = aclrtStreamGetFlags(stream, &flags);
    return pyacl_ulong_ret(flags, rc);
}

static PyObject *rt_set_stream_failure_mode(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    uint64_t mode;
    if (!PyArg_ParseTuple(args, "O&O&:set_stream_failure_mode", pyacl_to_ptr, &stream, pyacl_to_uint64, &mode))
        return NULL;
    return pyacl_ret(aclrtSetStreamFailureMode(stream, mode));
}

/*
 * aclrtStreamAttrValue is a union: the failure mode is its 64-bit member,
 * every other attribute a 32-bit member at offset 0 (reserve[0]).
 */
static PyObject *rt_set_stream_attribute(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    int attr;
    uint64_t value;
    if (!PyArg_ParseTuple(args, "O&iO&:set_stream_attribute", pyacl_to_ptr, &stream, &attr, pyacl_to_uint64, &value))
        return NULL;
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    if (attr == ACL_STREAM_ATTR_FAILURE_MODE)
        v.failureMode = value;
    else if (value > UINT32_MAX)
        return PyErr_Format(PyExc_OverflowError, "attribute %d takes a 32-bit value", attr);
    else
        v.reserve[0] = (uint32_t)value;
    return pyacl_ret(aclrtSetStreamAttribute(stream, (aclrtStreamAttr)attr, &v));
}

static PyObject *rt_get_stream_attribute(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    int attr;
    if (!PyArg_ParseTuple(args, "O&i:get_stream_attribute", pyacl_to_ptr, &stream, &attr))
        return NULL;
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    aclError rc = aclrtGetStreamAttribute(stream, (aclrtStreamAttr)attr, &v);
    return pyacl_ulong_ret(attr == ACL_STREAM_ATTR_FAILURE_MODE ? v.failureMode : v.reserve[0], rc);
}

static PyObject *rt_device_get_stream_priority_range(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    int32_t least = 0, greatest = 0;
    aclError rc = aclrtDeviceGetStreamPriorityRange(&least, &greatest);
    return pyacl_out2_ret(PyLong_FromLong(least), PyLong_FromLong(greatest), rc);
}

static PyObject *rt_get_stream_available_num(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint32_t count = 0;
    aclError rc = aclrtGetStreamAvailableNum(&count);
    return pyacl_ulong_ret(count, rc);
}

static PyMethodDef stream_methods[] = {
    {"create_stream", rt_create_stream, METH_NOARGS, "create_stream() -> (stream, ret)"},
    {"create_stream_with_config", rt_create_stream_with_config, METH_VARARGS,
     "create_stream_with_config(priority, flag) -> (stream, ret)"},
    {"create_stream_config_handle", rt_create_stream_config_handle, METH_NOARGS,
     "create_stream_config_handle() -> handle (0 on failure)"},
    {"set_stream_config_opt", rt_set_stream_config_opt, METH_VARARGS,
     "set_stream_config_opt(handle, attr, value) -> ret"},
    {"destroy_stream_config_handle", rt_destroy_stream_config_handle, METH_O,
     "destroy_stream_config_handle(handle) -> ret"},
    {"create_stream_v2", rt_create_stream_v2, METH_O, "create_stream_v2(handle) -> (stream, ret)"},
    {"destroy_stream", rt_destroy_stream, METH_O, "destroy_stream(stream) -> ret"},
    {"destroy_stream_force", rt_destroy_stream_force, METH_O, "destroy_stream_force(stream) -> ret"},
    {"synchronize_stream", rt_synchronize_stream, METH_O, "synchronize_stream(stream) -> ret"},
    {"synchronize_stream_with_timeout", rt_synchronize_stream_with_timeout, METH_VARARGS,
     "synchronize_stream_with_timeout(stream, timeout_ms) -> ret"},
    {"stream_query", rt_stream_query, METH_O, "stream_query(stream) -> (status, ret)"},
    {"stream_get_id", rt_stream_get_id, METH_O, "stream_get_id(stream) -> (stream_id, ret)"},
    {"stream_get_priority", rt_stream_get_priority, METH_O, "stream_get_priority(stream) -> (priority, ret)"},
    {"stream_get_flags", rt_stream_get_flags, METH_O, "stream_get_flags(stream) -> (flags, ret)"},
    {"set_stream_failure_mode", rt_set_stream_failure_mode, METH_VARARGS,
     "set_stream_failure_mode(stream, mode) -> ret"},
    {"set_stream_attribute", rt_set_stream_attribute, METH_VARARGS, "set_stream_attribute(stream, attr, value) -> ret"},
    {"get_stream_attribute", rt_get_stream_attribute, METH_VARARGS,
     "get_stream_attribute(stream, attr) -> (value, ret)"},
    {"device_get_stream_priority_range", rt_device_get_stream_priority_range, METH_NOARGS,
     "device_get_stream_priority_range() -> (least, greatest, ret)"},
    {"get_stream_available_num", rt_get_stream_available_num, METH_NOARGS,
     "get_stream_available_num() -> (count, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_stream = {
    .name = "streams",
    .methods = {[PYACL_RT] = stream_methods},
};
