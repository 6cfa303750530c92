/*
 * python/rt_physmem.c - acl.rt: physical memory and virtual address ranges.
 *
 *   granularity, ret = acl.rt.mem_get_allocation_granularity(prop, option)
 *   handle, ret = acl.rt.malloc_physical(size, prop, flags)
 *   ret = acl.rt.free_physical(handle)
 *   vir_ptr, ret = acl.rt.reserve_mem_address(size, alignment, expect_ptr, flags)
 *   ret = acl.rt.release_mem_address(vir_ptr)
 *   ret = acl.rt.map_mem(vir_ptr, size, offset, handle, flags)
 *   ret = acl.rt.unmap_mem(vir_ptr)
 *
 * `prop` is aclrtPhysicalMemProp as a dict keyed by its member names, as
 * pyACL takes it: {"handleType": ACL_MEM_HANDLE_TYPE_NONE, "allocationType":
 * ACL_MEM_ALLOCATION_TYPE_PINNED, "memAttr": ACL_HBM_MEM_HUGE, "location":
 * {"id": 0, "type": ACL_MEM_LOCATION_TYPE_DEVICE}, "reserve": 0}. A missing
 * key is 0; None is a NULL prop (the C API's parameter error); another type
 * for the dict, or a member that is not an int, raises TypeError, an
 * unknown key ValueError. Handles are ints the runtime checks, like any
 * handle. Nothing here waits: the GIL is kept.
 */
#include "pyacl.h"

/* dict[key] as a C int (or uint32 / uint64 by `out_size`); a missing key leaves *out alone. 1 or 0. */
static int pyacl_prop_member(PyObject *dict, const char *key, void *out, int kind)
{
    PyObject *value = PyDict_GetItemString(dict, key); /* borrowed */
    if (value == NULL)
        return 1;
    if (!PyLong_Check(value) && !PyIndex_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", key, Py_TYPE(value)->tp_name);
        return 0;
    }
    switch (kind) {
    case 'i': {
        PyObject *index = PyNumber_Index(value);
        if (index == NULL)
            return 0;
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(index, &overflow);
        Py_DECREF(index);
        if (v == -1 && PyErr_Occurred())
            return 0;
        if (overflow != 0 || v < INT_MIN || v > INT_MAX) {
            PyErr_Format(PyExc_OverflowError, "%s does not fit in a C int", key);
            return 0;
        }
        *(int *)out = (int)v;
        return 1;
    }
    case 'I':
        return pyacl_to_uint32(value, out);
    default:
        return pyacl_to_uint64(value, out);
    }
}

static int pyacl_check_keys(PyObject *dict, const char *const *keys, const char *what)
{
    PyObject *key;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, NULL)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (name == NULL && PyErr_Occurred())
            return 0;
        int known = 0;
        for (const char *const *k = keys; *k != NULL && name != NULL; k++)
            known |= strcmp(name, *k) == 0;
        if (!known) {
            PyErr_Format(PyExc_ValueError, "%R is not a member of %s", key, what);
            return 0;
        }
    }
    return 1;
}

/* "O&" converter: a prop dict (or None) into a struct pyacl_prop. */
struct pyacl_prop {
    aclrtPhysicalMemProp prop;
    aclrtPhysicalMemProp *ptr; /* &prop, or NULL for None */
};

static int pyacl_to_prop(PyObject *obj, void *out)
{
    static const char *const prop_keys[] = {"handleType", "allocationType", "memAttr", "location", "reserve", NULL};
    static const char *const location_keys[] = {"id", "type", NULL};
    struct pyacl_prop *p = out;
    memset(&p->prop, 0, sizeof p->prop);
    p->ptr = NULL;
    if (obj == Py_None)
        return 1;
    if (!PyDict_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "prop must be a dict (aclrtPhysicalMemProp), not %.100s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    int handle_type = 0, allocation_type = 0, mem_attr = 0, location_type = 0;
    if (!pyacl_check_keys(obj, prop_keys, "aclrtPhysicalMemProp") ||
        !pyacl_prop_member(obj, "handleType", &handle_type, 'i') ||
        !pyacl_prop_member(obj, "allocationType", &allocation_type, 'i') ||
        !pyacl_prop_member(obj, "memAttr", &mem_attr, 'i') ||
        !pyacl_prop_member(obj, "reserve", &p->prop.reserve, 'K'))
        return 0;
    PyObject *location = PyDict_GetItemString(obj, "location"); /* borrowed */
    if (location != NULL) {
        if (!PyDict_Check(location)) {
            PyErr_Format(PyExc_TypeError, "location must be a dict ({\"id\": ..., \"type\": ...}), not %.100s",
                         Py_TYPE(location)->tp_name);
            return 0;
        }
        if (!pyacl_check_keys(location, location_keys, "aclrtMemLocation") ||
            !pyacl_prop_member(location, "id", &p->prop.location.id, 'I') ||
            !pyacl_prop_member(location, "type", &location_type, 'i'))
            return 0;
    }
    p->prop.handleType = (aclrtMemHandleType)handle_type;
    p->prop.allocationType = (aclrtMemAllocationType)allocation_type;
    p->prop.memAttr = (aclrtMemAttr)mem_attr;
    p->prop.location.type = (aclrtMemLocationType)location_type;
    p->ptr = &p->prop;
    return 1;
}

static PyObject *rt_mem_get_allocation_granularity(PyObject *self, PyObject *args)
{
    (void)self;
    struct pyacl_prop prop;
    int option;
    if (!PyArg_ParseTuple(args, "O&i:mem_get_allocation_granularity", pyacl_to_prop, &prop, &option))
        return NULL;
    size_t granularity = 0;
    aclError rc = aclrtMemGetAllocationGranularity(prop.ptr, (aclrtMemGranularityOptions)option, &granularity);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? granularity : 0, rc);
}

static PyObject *rt_malloc_physical(PyObject *self, PyObject *args)
{
    (void)self;
    size_t size;
    struct pyacl_prop prop;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "O&O&O&:malloc_physical", pyacl_to_size, &size, pyacl_to_prop, &prop, pyacl_to_uint64,
                          &flags))
        return NULL;
    aclrtDrvMemHandle handle = NULL;
    aclError rc = aclrtMallocPhysical(&handle, size, prop.ptr, flags);
    return pyacl_ptr_ret(rc == ACL_SUCCESS ? handle : NULL, rc);
}

static PyObject *rt_free_physical(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtDrvMemHandle handle;
    if (!pyacl_to_ptr(arg, &handle))
        return NULL;
    return pyacl_ret(aclrtFreePhysical(handle));
}

static PyObject *rt_reserve_mem_address(PyObject *self, PyObject *args)
{
    (void)self;
    size_t size, alignment;
    void *expect;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "O&O&O&O&:reserve_mem_address", pyacl_to_size, &size, pyacl_to_size, &alignment,
                          pyacl_to_ptr, &expect, pyacl_to_uint64, &flags))
        return NULL;
    void *ptr = NULL;
    aclError rc = aclrtReserveMemAddress(&ptr, size, alignment, expect, flags);
    return pyacl_ptr_ret(rc == ACL_SUCCESS ? ptr : NULL, rc);
}

static PyObject *rt_release_mem_address(PyObject *self, PyObject *arg)
{
    (void)self;
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return NULL;
    return pyacl_ret(aclrtReleaseMemAddress(ptr));
}

static PyObject *rt_map_mem(PyObject *self, PyObject *args)
{
    (void)self;
    void *ptr;
    size_t size, offset;
    aclrtDrvMemHandle handle;
    uint64_t flags;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&:map_mem", pyacl_to_ptr, &ptr, pyacl_to_size, &size, pyacl_to_size, &offset,
                          pyacl_to_ptr, &handle, pyacl_to_uint64, &flags))
        return NULL;
    return pyacl_ret(aclrtMapMem(ptr, size, offset, handle, flags));
}

static PyObject *rt_unmap_mem(PyObject *self, PyObject *arg)
{
    (void)self;
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return NULL;
    return pyacl_ret(aclrtUnmapMem(ptr));
}

static PyMethodDef physmem_methods[] = {
    {"mem_get_allocation_granularity", rt_mem_get_allocation_granularity, METH_VARARGS,
     "mem_get_allocation_granularity(prop, option) -> (granularity, ret)  (prop: dict)"},
    {"malloc_physical", rt_malloc_physical, METH_VARARGS, "malloc_physical(size, prop, flags) -> (handle, ret)"},
    {"free_physical", rt_free_physical, METH_O, "free_physical(handle) -> ret"},
    {"reserve_mem_address", rt_reserve_mem_address, METH_VARARGS,
     "reserve_mem_address(size, alignment, expect_ptr, flags) -> (vir_ptr, ret)"},
    {"release_mem_address", rt_release_mem_address, METH_O, "release_mem_address(vir_ptr) -> ret"},
    {"map_mem", rt_map_mem, METH_VARARGS, "map_mem(vir_ptr, size, offset, handle, flags) -> ret"},
    {"unmap_mem", rt_unmap_mem, METH_O, "unmap_mem(vir_ptr) -> ret"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_physmem = {
    .name = "physical memory",
    .methods = {[PYACL_RT] = physmem_methods},
};
