/*
 * python/rt_hostmem.c - acl.rt: host memory registered for the devices,
 * managed memory.
 *
 *   dev_ptr, ret = acl.rt.host_register(ptr, size, type)    ACL_HOST_REGISTER_MAPPED
 *   ret = acl.rt.host_register_v2(ptr, size, flag)           ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED
 *   dev_ptr, ret = acl.rt.host_get_device_pointer(host_ptr, flag=0)
 *   ret = acl.rt.host_unregister(ptr)
 *   ptr, ret = acl.rt.mem_alloc_managed(size, flag)          ACL_RT_MEM_ATTACH_GLOBAL; freed with acl.rt.free
 *
 * Addresses are ints (0 or None = NULL), 0 on failure. None of these waits
 * for stream work: the GIL is kept.
 */
#include "pyacl.h"

static PyObject *rt_host_register(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    uint64_t size;
    int type;
    if (!PyArg_ParseTuple(args, "O&O&i:host_register", pyacl_to_ptr, &ptr, pyacl_to_uint64, &size, &type))
        return NULL;
    void *dev = NULL;
    aclError rc = aclrtHostRegister(ptr, size, (aclrtHostRegisterType)type, &dev);
    return pyacl_ptr_ret(rc == ACL_SUCCESS ? dev : NULL, rc);
}

static PyObject *rt_host_register_v2(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    uint64_t size;
    uint32_t flag;
    if (!PyArg_ParseTuple(args, "O&O&O&:host_register_v2", pyacl_to_ptr, &ptr, pyacl_to_uint64, &size,
                          pyacl_to_uint32, &flag))
        return NULL;
    return pyacl_ret(aclrtHostRegisterV2(ptr, size, flag));
}

static PyObject *rt_host_get_device_pointer(PyObject *self, PyObject *args)
{
    (void)self;
    void *host;
    uint32_t flag = 0;
    if (!PyArg_ParseTuple(args, "O&|O&:host_get_device_pointer", pyacl_to_ptr, &host, pyacl_to_uint32, &flag))
        return NULL;
    void *dev = NULL;
    aclError rc = aclrtHostGetDevicePointer(host, &dev, flag);
    return pyacl_ptr_ret(rc == ACL_SUCCESS ? dev : NULL, rc);
}

static PyObject *rt_host_unregister(PyObject *self, PyObject *arg)
{
    (void)self;
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return NULL;
    return pyacl_ret(aclrtHostUnregister(ptr));
}

static PyObject *rt_mem_alloc_managed(PyObject *self, PyObject *args)
{
    (void)self;
    uint64_t size;
    uint32_t flag;
    if (!PyArg_ParseTuple(args, "O&O&:mem_alloc_managed", pyacl_to_uint64, &size, pyacl_to_uint32, &flag))
        return NULL;
    void *ptr = NULL;
    aclError rc = aclrtMemAllocManaged(&ptr, size, flag);
    return pyacl_ptr_ret(rc == ACL_SUCCESS ? ptr : NULL, rc);
}

static PyMethodDef hostmem_methods[] = {
    {"host_register", rt_host_register, METH_VARARGS, "host_register(ptr, size, type) -> (dev_ptr, ret)"},
    {"host_register_v2", rt_host_register_v2, METH_VARARGS, "host_register_v2(ptr, size, flag) -> ret"},
    {"host_get_device_pointer", rt_host_get_device_pointer, METH_VARARGS,
     "host_get_device_pointer(host_ptr, flag=0) -> (dev_ptr, ret)"},
    {"host_unregister", rt_host_unregister, METH_O, "host_unregister(ptr) -> ret"},
    {"mem_alloc_managed", rt_mem_alloc_managed, METH_VARARGS, "mem_alloc_managed(size, flag) -> (ptr, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_hostmem = {
    .name = "host registration, managed memory",
    .methods = {[PYACL_RT] = hostmem_methods},
};
