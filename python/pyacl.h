/*
 * python/pyacl.h - what every file of the `acl` extension module shares.
 *
 * The module is pyACL's interface over aclrt.h: every function returns its
 * outputs first and the ACL error code last (`event, ret =
 * acl.rt.create_event()`, `ret = acl.rt.record_event(event, stream)`);
 * handles and device pointers are Python ints (0 or None = NULL).
 *
 * One file per capability (rt_device.c, rt_stream.c, rt_event.c, ...) defines
 * its functions and exports them as a `struct pyacl_capability`; aclmodule.c
 * lists the capabilities and installs each table into its submodule. Adding a
 * capability is a new file plus one line in that list.
 *
 * GIL rules (see also call.h for Python callables run by the runtime):
 *   - A call that can wait for stream work releases the GIL around the C
 *     call (PYACL_WITHOUT_GIL): synchronizes, destroys, device resets,
 *     aclFinalize, and every call that submits a task, since a full ring
 *     makes the submitter wait for an executor, and an executor may be
 *     waiting for the GIL to run a Python host function.
 *   - Calls that never wait (queries, creates, getters) keep it: releasing
 *     costs more than the call.
 */
#ifndef PYACL_H
#define PYACL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "aclrt.h"

/* Run `expr` (an aclError expression) with the GIL released. */
#define PYACL_WITHOUT_GIL(rc, expr) \
    do {                            \
        Py_BEGIN_ALLOW_THREADS      \
        (rc) = (expr);              \
        Py_END_ALLOW_THREADS        \
    } while (0)

/* ------------------------------------------------------------------------
 * Arguments: "O&" converters for PyArg_ParseTuple (1 = converted, 0 = a
 * Python exception is set). Wrong types raise TypeError, values outside the
 * C type's range OverflowError, as the standard format codes do.
 * ------------------------------------------------------------------------ */
int pyacl_to_ptr(PyObject *obj, void *out);      /* void **: int or None (NULL); any 64-bit pattern */
int pyacl_to_size(PyObject *obj, void *out);     /* size_t * */
int pyacl_to_uint32(PyObject *obj, void *out);   /* uint32_t * */
int pyacl_to_uint64(PyObject *obj, void *out);   /* uint64_t * */
/* A list of process ids: *pids (PyMem_Free it) and *count; 0 with an exception set. */
int pyacl_pid_list(PyObject *obj, int32_t **pids, size_t *count);

/* ------------------------------------------------------------------------
 * Results, in pyACL's order: outputs, then ret.
 * ------------------------------------------------------------------------ */
static inline PyObject *pyacl_ret(aclError rc)
{
    return PyLong_FromLong(rc);
}

/* (out, rc); steals the reference to `out` (NULL: an exception is set). */
PyObject *pyacl_out_ret(PyObject *out, aclError rc);
/* (out1, out2, rc); steals both. */
PyObject *pyacl_out2_ret(PyObject *out1, PyObject *out2, aclError rc);

/*
 * (status, rc) of a status query. The common results, (0, 0) and (1, 0), are
 * built once and shared (tuples are immutable): the query is the hot path,
 * and a shared tuple saves the allocation.
 */
PyObject *pyacl_status_ret(int status, aclError rc);

static inline PyObject *pyacl_ptr_ret(void *ptr, aclError rc)
{
    return pyacl_out_ret(PyLong_FromVoidPtr(ptr), rc);
}

static inline PyObject *pyacl_long_ret(long long value, aclError rc)
{
    return pyacl_out_ret(PyLong_FromLongLong(value), rc);
}

static inline PyObject *pyacl_ulong_ret(unsigned long long value, aclError rc)
{
    return pyacl_out_ret(PyLong_FromUnsignedLongLong(value), rc);
}

/* ------------------------------------------------------------------------
 * Capabilities: one per file, installed by aclmodule.c.
 * ------------------------------------------------------------------------ */
enum pyacl_submodule {
    PYACL_TOP,  /* acl.*      */
    PYACL_RT,   /* acl.rt.*   */
    PYACL_RTX,  /* acl.rtx.*  (aclrtx extensions) */
    PYACL_UTIL, /* acl.util.* */
    PYACL_HCCL, /* acl.hccl.* (hccl/hccl.h) */
    PYACL_PROF, /* acl.prof.* (acl_prof.h) */
    PYACL_TDT,  /* acl.tdt.*  (acl_tdt.h) */
    PYACL_SUBMODULE_COUNT
};

struct pyacl_capability {
    const char *name;                               /* for documentation and messages */
    PyMethodDef *methods[PYACL_SUBMODULE_COUNT];    /* per module, NULL-terminated, or NULL */
    /* Optional: adds what is not a function (constants) to the modules, indexed by enum pyacl_submodule. */
    int (*setup)(PyObject *const *modules);
};

extern const struct pyacl_capability pyacl_cap_init;   /* init.c:      acl.init, finalize, errors */
extern const struct pyacl_capability pyacl_cap_device; /* rt_device.c: device and context */
extern const struct pyacl_capability pyacl_cap_stream; /* rt_stream.c: streams */
extern const struct pyacl_capability pyacl_cap_event;  /* rt_event.c:  events */
extern const struct pyacl_capability pyacl_cap_memory; /* rt_memory.c: memory */
extern const struct pyacl_capability pyacl_cap_allocator; /* rt_allocator.c: custom memory allocators */
extern const struct pyacl_capability pyacl_cap_stream_control; /* rt_stream_control.c: abort, stop */
extern const struct pyacl_capability pyacl_cap_launch; /* rt_launch.c: host functions */
extern const struct pyacl_capability pyacl_cap_kernel; /* rt_kernel.c: binaries, functions, args, launches */
extern const struct pyacl_capability pyacl_cap_callback;  /* rt_callback.c: report callbacks, host-function threads */
extern const struct pyacl_capability pyacl_cap_exception; /* rt_exception.c: exception callback, task ids */
extern const struct pyacl_capability pyacl_cap_notify;    /* rt_notify.c: notifies, counting notifies */
extern const struct pyacl_capability pyacl_cap_value;     /* rt_value.c: value write / wait */
extern const struct pyacl_capability pyacl_cap_hcom;      /* rtx_hcom.c: HCOM group record/wait tasks */
extern const struct pyacl_capability pyacl_cap_sysinfo;     /* rt_sysinfo.c: SoC, versions, CANN attributes, fp16 */
extern const struct pyacl_capability pyacl_cap_options;     /* rt_options.c: data buffers, capabilities, options, op timeouts */
extern const struct pyacl_capability pyacl_cap_device_info; /* rt_device_info.c: device information and limits */
extern const struct pyacl_capability pyacl_cap_peer;        /* rt_peer.c: peer access between devices */
extern const struct pyacl_capability pyacl_cap_error_verbose; /* rt_error_verbose.c: hardware error details */
extern const struct pyacl_capability pyacl_cap_device_profile; /* rt_device_profile.c: limits, atomics, groups, abort */
extern const struct pyacl_capability pyacl_cap_overflow;    /* rt_overflow.c: overflow detection */
extern const struct pyacl_capability pyacl_cap_builtin;     /* rt_builtin.c: built-in tasks (reduce) */
extern const struct pyacl_capability pyacl_cap_hostmem;     /* rt_hostmem.c: host registration, managed memory */
extern const struct pyacl_capability pyacl_cap_physmem;     /* rt_physmem.c: physical memory, address ranges */
extern const struct pyacl_capability pyacl_cap_prof;   /* prof.c:      acl.prof, profiling and markers */
extern const struct pyacl_capability pyacl_cap_tdt;    /* tdt.c:       acl.tdt, tensor data channels */
extern const struct pyacl_capability pyacl_cap_rtx;    /* rtx.c:       host kernels, backend */
extern const struct pyacl_capability pyacl_cap_util;   /* util.c:      bytes/pointers, threads */
extern const struct pyacl_capability pyacl_cap_hccl;   /* hccl.c:      acl.hccl, HCCL collectives */

/* rt_exception.c: at interpreter exit, close the exception trampoline (GIL held; releases it to wait). */
void pyacl_exception_at_exit(void);
int pyacl_exception_callback_set(void);

/* constants.c: the ACL constants as attributes of `acl`. */
int pyacl_add_constants(PyObject *module);

#endif /* PYACL_H */
