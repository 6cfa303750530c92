/*
 * python/rt_builtin.c - acl.rt: built-in tasks.
 *
 *   ret = acl.rt.reduce_async(dst, src, count, kind, type, stream, reserve=0)
 *         kind: ACL_RT_MEMCPY_SDMA_AUTOMATIC_*, type: an aclDataType (ACL_FLOAT, ...),
 *         count in bytes; dst = dst (op) src, element by element, in stream order
 *
 * aclrtRandomNumAsync is not bound: pyACL has no Python form of it, and its
 * task description is a nest of unions and byte arrays with no natural
 * Python shape. reduce_async submits a task and releases the GIL.
 */
#include "pyacl.h"

static PyObject *rt_reduce_async(PyObject *self, PyObject *args)
{
    (void)self;
    void *dst, *src, *reserve = NULL;
    uint64_t count;
    int kind, type;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&O&iiO&|O&:reduce_async", pyacl_to_ptr, &dst, pyacl_to_ptr, &src, pyacl_to_uint64,
                          &count, &kind, &type, pyacl_to_ptr, &stream, pyacl_to_ptr, &reserve))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtReduceAsync(dst, src, count, (aclrtReduceKind)kind, (aclDataType)type, stream, reserve));
    return pyacl_ret(rc);
}

static PyMethodDef builtin_methods[] = {
    {"reduce_async", rt_reduce_async, METH_VARARGS,
     "reduce_async(dst, src, count, kind, type, stream, reserve=0) -> ret"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_builtin = {
    .name = "built-in tasks",
    .methods = {[PYACL_RT] = builtin_methods},
};
