/*
 * python/rt_memory.c - acl.rt: memory. Pointers are ints; acl.util turns
 * Python buffers into pointers and memory back into bytes.
 *
 *   dev_ptr, ret = acl.rt.malloc(size, policy)
 *   ret = acl.rt.free(dev_ptr)
 *   host_ptr, ret = acl.rt.malloc_host(size)
 *   ret = acl.rt.free_host(host_ptr)
 *   ret = acl.rt.memcpy(dst, dest_max, src, count, kind)
 *   ret = acl.rt.memcpy_async(dst, dest_max, src, count, kind, stream)
 *   ret = acl.rt.memset(dev_ptr, max_count, value, count)
 *   ret = acl.rt.memset_async(dev_ptr, max_count, value, count, stream)
 *   key, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, size, flags)   key: str
 *   ret = acl.rt.ipc_mem_set_import_pid(key, [pid, ...])
 *   ret = acl.rt.ipc_mem_set_attr(key, type, attr)
 *   dev_ptr, ret = acl.rt.ipc_mem_import_by_key(key, flags)
 *   ret = acl.rt.ipc_mem_close(key)
 *
 * Copies and memsets release the GIL: the synchronous ones may be large, the
 * asynchronous ones submit a task (and wait for it with pageable memory).
 */
#include "pyacl.h"

static PyObject *rt_malloc(PyObject *self, PyObject *args)
{
    (void)self;
    size_t size;
    uint32_t policy;
    if (!PyArg_ParseTuple(args, "O&O&:malloc", pyacl_to_size, &size, pyacl_to_uint32, &policy))
        return NULL;
    void *ptr = NULL;
    aclError rc = aclrtMalloc(&ptr, size, (aclrtMemMallocPolicy)policy);
    return pyacl_ptr_ret(ptr, rc);
}

static PyObject *rt_free(PyObject *self, PyObject *arg)
{
    (void)self;
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return NULL;
    return pyacl_ret(aclrtFree(ptr));
}

static PyObject *rt_malloc_host(PyObject *self, PyObject *arg)
{
    (void)self;
    size_t size;
    if (!pyacl_to_size(arg, &size))
        return NULL;
    void *ptr = NULL;
    aclError rc = aclrtMallocHost(&ptr, size);
    return pyacl_ptr_ret(ptr, rc);
}

static PyObject *rt_free_host(PyObject *self, PyObject *arg)
{
    (void)self;
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return NULL;
    return pyacl_ret(aclrtFreeHost(ptr));
}

static PyObject *rt_memcpy(PyObject *self, PyObject *args)
{
    (void)self;
    void *dst, *src;
    size_t dest_max, count;
    int kind;
    if (!PyArg_ParseTuple(args, "O&O&O&O&i:memcpy", pyacl_to_ptr, &dst, pyacl_to_size, &dest_max, pyacl_to_ptr, &src,
                          pyacl_to_size, &count, &kind))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtMemcpy(dst, dest_max, src, count, (aclrtMemcpyKind)kind));
    return pyacl_ret(rc);
}

static PyObject *rt_memcpy_async(PyObject *self, PyObject *args)
{
    (void)self;
    void *dst, *src;
    size_t dest_max, count;
    int kind;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&O&O&iO&:memcpy_async", pyacl_to_ptr, &dst, pyacl_to_size, &dest_max,
                          pyacl_to_ptr, &src, pyacl_to_size, &count, &kind, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtMemcpyAsync(dst, dest_max, src, count, (aclrtMemcpyKind)kind, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_memset(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    size_t max_count, count;
    int32_t value;
    if (!PyArg_ParseTuple(args, "O&O&iO&:memset", pyacl_to_ptr, &ptr, pyacl_to_size, &max_count, &value, pyacl_to_size,
                          &count))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtMemset(ptr, max_count, value, count));
    return pyacl_ret(rc);
}

static PyObject *rt_memset_async(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    size_t max_count, count;
    int32_t value;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&iO&O&:memset_async", pyacl_to_ptr, &ptr, pyacl_to_size, &max_count, &value,
                          pyacl_to_size, &count, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtMemsetAsync(ptr, max_count, value, count, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_ipc_mem_get_export_key(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    size_t size;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "O&O&O&:ipc_mem_get_export_key", pyacl_to_ptr, &ptr, pyacl_to_size, &size,
                          pyacl_to_uint64, &flags))
        return NULL;
    char key[65] = {0};
    aclError rc = aclrtIpcMemGetExportKey(ptr, size, key, sizeof key, flags);
    return pyacl_out_ret(PyUnicode_FromString(key), rc);
}

static PyObject *rt_ipc_mem_set_import_pid(PyObject *self, PyObject *args)
{
    (void)self;
    const char *key;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "sO:ipc_mem_set_import_pid", &key, &list))
        return NULL;
    int32_t *pids;
    size_t n;
    if (!pyacl_pid_list(list, &pids, &n))
        return NULL;
    aclError rc = aclrtIpcMemSetImportPid(key, pids, n);
    PyMem_Free(pids);
    return pyacl_ret(rc);
}

static PyObject *rt_ipc_mem_set_attr(PyObject *self, PyObject *args)
{
    (void)self;
    const char *key;
    uint32_t type;
    uint64_t attr;
    if (!PyArg_ParseTuple(args, "sO&O&:ipc_mem_set_attr", &key, pyacl_to_uint32, &type, pyacl_to_uint64, &attr))
        return NULL;
    return pyacl_ret(aclrtIpcMemSetAttr(key, (aclrtIpcMemAttrType)type, attr));
}

static PyObject *rt_ipc_mem_import_by_key(PyObject *self, PyObject *args)
{
    (void)self;
    const char *key;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "sO&:ipc_mem_import_by_key", &key, pyacl_to_uint64, &flags))
        return NULL;
    void *ptr = NULL;
    aclError rc = aclrtIpcMemImportByKey(&ptr, key, flags);
    return pyacl_ptr_ret(ptr, rc);
}

static PyObject *rt_ipc_mem_close(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *key = PyUnicode_AsUTF8(arg);
    if (key == NULL)
        return NULL;
    return pyacl_ret(aclrtIpcMemClose(key));
}

static PyMethodDef memory_methods[] = {
    {"malloc", rt_malloc, METH_VARARGS, "malloc(size, policy) -> (dev_ptr, ret)"},
    {"free", rt_free, METH_O, "free(dev_ptr) -> ret"},
    {"malloc_host", rt_malloc_host, METH_O, "malloc_host(size) -> (host_ptr, ret)"},
    {"free_host", rt_free_host, METH_O, "free_host(host_ptr) -> ret"},
    {"memcpy", rt_memcpy, METH_VARARGS, "memcpy(dst, dest_max, src, count, kind) -> ret"},
    {"memcpy_async", rt_memcpy_async, METH_VARARGS, "memcpy_async(dst, dest_max, src, count, kind, stream) -> ret"},
    {"memset", rt_memset, METH_VARARGS, "memset(dev_ptr, max_count, value, count) -> ret"},
    {"memset_async", rt_memset_async, METH_VARARGS, "memset_async(dev_ptr, max_count, value, count, stream) -> ret"},
    {"ipc_mem_get_export_key", rt_ipc_mem_get_export_key, METH_VARARGS,
     "ipc_mem_get_export_key(dev_ptr, size, flags) -> (key, ret)"},
    {"ipc_mem_set_import_pid", rt_ipc_mem_set_import_pid, METH_VARARGS, "ipc_mem_set_import_pid(key, pids) -> ret"},
    {"ipc_mem_set_attr", rt_ipc_mem_set_attr, METH_VARARGS, "ipc_mem_set_attr(key, type, attr) -> ret"},
    {"ipc_mem_import_by_key", rt_ipc_mem_import_by_key, METH_VARARGS,
     "ipc_mem_import_by_key(key, flags) -> (dev_ptr, ret)"},
    {"ipc_mem_close", rt_ipc_mem_close, METH_O, "ipc_mem_close(key) -> ret"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_memory = {
    .name = "memory",
    .methods = {[PYACL_RT] = memory_methods},
};
