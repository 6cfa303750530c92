/*
 * python/rtx.c - acl.rtx: the aclrtx extensions (not part of pyACL, as the
 * C extensions are not part of ACL).
 *
 *   ret = acl.rtx.launch_host_kernel(stream, num_blocks, fn, args)
 *   name = acl.rtx.get_backend_name()          "host", or None before the runtime starts
 *
 * A host kernel is the CPU stand-in for a device kernel: fn(block_idx,
 * num_blocks, args) runs once per block, blocks possibly on several executor
 * threads (each takes the GIL in turn). fn returns 0 or None for success or
 * an ACL error code; a non-zero code fails the task like a device kernel
 * fault: the stream's next synchronize returns it and the stream's failure
 * mode applies. A kernel that raises is reported through sys.unraisablehook
 * and fails the task with PYACL_KERNEL_EXCEPTION (AI Core exception, the code
 * of a faulting device kernel). Once a block has failed, the remaining blocks
 * are skipped, as the runtime skips them.
 *
 * Lifetime: the runtime skips the blocks left after a block returns
 * non-zero, so counting blocks to know when to free the call would leak. The
 * trampoline therefore never fails a block early: it records the first
 * failure, skips the Python call for later blocks, and the last block to
 * finish reports the failure and frees the call. Every block returns exactly
 * once, so the call is freed exactly once.
 */
#include "call.h"

#define PYACL_KERNEL_EXCEPTION ACL_ERROR_RT_AICORE_EXCEPTION

/* One block's code: 0 for None, the int it returned, or PYACL_KERNEL_EXCEPTION. */
static aclError pyacl_kernel_block(struct pyacl_call *call, uint32_t block_idx, uint32_t num_blocks)
{
    PyObject *leading[2] = {PyLong_FromUnsignedLong(block_idx), PyLong_FromUnsignedLong(num_blocks)};
    aclError rc = PYACL_KERNEL_EXCEPTION;
    if (leading[0] == NULL || leading[1] == NULL) {
        PyErr_WriteUnraisable(call->fn);
        goto out;
    }
    PyObject *result = pyacl_call_invoke(call, leading, 2);
    if (result == NULL)
        goto out; /* reported by pyacl_call_invoke */
    if (result == Py_None) {
        rc = ACL_SUCCESS;
    } else if (PyLong_Check(result)) {
        int overflow = 0;
        long code = PyLong_AsLongAndOverflow(result, &overflow);
        if (overflow != 0 || code < INT32_MIN || code > INT32_MAX) {
            PyErr_Format(PyExc_OverflowError, "host kernel returned %R, which is not an ACL error code", result);
            PyErr_WriteUnraisable(call->fn);
        } else {
            rc = (aclError)code;
        }
    } else {
        PyErr_Format(PyExc_TypeError, "host kernel must return an int error code or None, not %.100s",
                     Py_TYPE(result)->tp_name);
        PyErr_WriteUnraisable(call->fn);
    }
    Py_DECREF(result);
out:
    Py_XDECREF(leading[0]);
    Py_XDECREF(leading[1]);
    return rc;
}

/* Runs on executor threads, once per block, possibly on several threads at once. */
static aclError pyacl_host_kernel_trampoline(uint32_t block_idx, uint32_t num_blocks, void *arg)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    struct pyacl_call *call = (struct pyacl_call *)arg;
    /* The GIL serializes these fields between blocks. */
    if (call->failure == ACL_SUCCESS)
        call->failure = pyacl_kernel_block(call, block_idx, num_blocks);
    aclError rc = ACL_SUCCESS;
    if (++call->finished == call->blocks) {
        rc = call->failure; /* the last block reports the first failure */
        pyacl_call_free(call);
    }
    PyGILState_Release(gil);
    return rc;
}

static PyObject *rtx_launch_host_kernel(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    uint32_t num_blocks;
    PyObject *fn, *fn_args;
    if (!PyArg_ParseTuple(args, "O&O&OO:launch_host_kernel", pyacl_to_ptr, &stream, pyacl_to_uint32, &num_blocks, &fn,
                          &fn_args))
        return NULL;
    struct pyacl_call *call = pyacl_call_new(fn, fn_args);
    if (call == NULL)
        return NULL;
    call->blocks = num_blocks;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtxLaunchHostKernel(stream, num_blocks, pyacl_host_kernel_trampoline, call));
    if (rc != ACL_SUCCESS)
        pyacl_call_free(call); /* never queued (num_blocks 0 is rejected here): still ours */
    return pyacl_ret(rc);
}

static PyObject *rtx_get_backend_name(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *name = aclrtxGetBackendName();
    if (name == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}

static PyMethodDef rtx_methods[] = {
    {"launch_host_kernel", rtx_launch_host_kernel, METH_VARARGS,
     "launch_host_kernel(stream, num_blocks, fn, args) -> ret\n\n"
     "aclrtxLaunchHostKernel: fn(block_idx, num_blocks, args) per block, returning 0/None or an error code.\n"
     "A non-zero code (or an exception: ACL_ERROR_RT_AICORE_EXCEPTION) fails the task like a device kernel."},
    {"get_backend_name", rtx_get_backend_name, METH_NOARGS,
     "get_backend_name() -> str or None\n\naclrtxGetBackendName."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_rtx = {
    .name = "aclrtx extensions",
    .methods = {[PYACL_RTX] = rtx_methods},
};
