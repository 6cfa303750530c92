/*
 * python/rt_value.c - acl.rt: stream memory operations (value write / wait).
 *
 *   ret = acl.rt.value_write(dev_addr, value, flag, stream)   flag 0
 *   ret = acl.rt.value_wait(dev_addr, value, flag, stream)    flag: ACL_STREAM_WAIT_VALUE_*
 *
 * dev_addr: a 64-bit word of acl.rt.malloc memory, 8-byte aligned (the
 * runtime checks both and returns its code otherwise); value: an unsigned
 * 64-bit int. Both are tasks: the GIL is released (a full ring waits).
 */
#include "pyacl.h"

typedef aclError (*pyacl_value_op)(void *, uint64_t, uint32_t, aclrtStream);

static PyObject *pyacl_value(PyObject *args, const char *format, pyacl_value_op op)
{
    void *addr;
    uint64_t value;
    uint32_t flag;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, format, pyacl_to_ptr, &addr, pyacl_to_uint64, &value, pyacl_to_uint32, &flag,
                          pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, op(addr, value, flag, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_value_write(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_value(args, "O&O&O&O&:value_write", aclrtValueWrite);
}

static PyObject *rt_value_wait(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_value(args, "O&O&O&O&:value_wait", aclrtValueWait);
}

static PyMethodDef value_methods[] = {
    {"value_write", rt_value_write, METH_VARARGS,
     "value_write(dev_addr, value, flag, stream) -> ret\n\n"
     "aclrtValueWrite: in stream order, stores value (uint64) at dev_addr (acl.rt.malloc memory, 8-byte\n"
     "aligned); flag 0."},
    {"value_wait", rt_value_wait, METH_VARARGS,
     "value_wait(dev_addr, value, flag, stream) -> ret\n\n"
     "aclrtValueWait: the stream waits until the word at dev_addr compares with value as flag says\n"
     "(ACL_STREAM_WAIT_VALUE_GEQ, _EQ, _AND, _NOR)."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_value = {
    .name = "stream memory operations",
    .methods = {[PYACL_RT] = value_methods},
};
