/*
 * python/aclmodule.c - the `acl` extension module: pyACL's interface over
 * aclrt.h, written against the C API (no ctypes, no second implementation).
 *
 *   acl            init, finalize, finalize_reference, get_recent_err_msg,
 *                  the ACL constants (constants.c), __version__
 *   acl.rt         the runtime: device, context, stream (and its control),
 *                  event, notify, value ops, memory, host functions,
 *                  kernels, callbacks, exceptions (rt_*.c)
 *   acl.rtx        the aclrtx extensions: host kernels (rtx.c), HCOM tasks
 *                  (rtx_hcom.c)
 *   acl.util       bytes and pointers, threads (util.c)
 *   acl.hccl       HCCL: communicators and collectives on the runtime's
 *                  streams, and HCCL's constants (hccl.c)
 *   acl.prof       profiling sessions, msproftx markers, steps (prof.c)
 *   acl.tdt        tensor data channels, datasets, data items (tdt.c)
 *
 * The submodules are attributes of `acl` and are also entered in sys.modules
 * ("acl.rt", ...), so `import acl.rt` and `from acl import rt` work.
 */
#include "call.h"

/*
 * Every capability: init, devices and contexts, streams, stream control,
 * events, notifies, value ops, memory, launches, kernels, callbacks, exceptions, the
 * aclrtx extensions and HCOM tasks, utilities, HCCL, profiling, tensor data channels. A new capability is one file
 * that defines a `struct pyacl_capability` and one line here (and its
 * declaration in pyacl.h); the Makefile compiles every .c file in python/.
 */
static const struct pyacl_capability *const pyacl_capabilities[] = {
    &pyacl_cap_init,     &pyacl_cap_device,    &pyacl_cap_stream, &pyacl_cap_stream_control, &pyacl_cap_event,
    &pyacl_cap_notify,   &pyacl_cap_value,     &pyacl_cap_memory, &pyacl_cap_launch,         &pyacl_cap_kernel,
    &pyacl_cap_callback,
    &pyacl_cap_exception, &pyacl_cap_sysinfo, &pyacl_cap_options, &pyacl_cap_device_info, &pyacl_cap_peer, &pyacl_cap_error_verbose,
    &pyacl_cap_overflow, &pyacl_cap_builtin, &pyacl_cap_physmem, &pyacl_cap_hostmem, &pyacl_cap_device_profile,
    &pyacl_cap_rtx,      &pyacl_cap_hcom,   &pyacl_cap_allocator, &pyacl_cap_util,
    &pyacl_cap_hccl,     &pyacl_cap_prof,   &pyacl_cap_tdt,
};

static const char *const pyacl_submodule_names[PYACL_SUBMODULE_COUNT] = {
    [PYACL_TOP] = "acl",
    [PYACL_RT] = "acl.rt",
    [PYACL_RTX] = "acl.rtx",
    [PYACL_UTIL] = "acl.util",
    [PYACL_HCCL] = "acl.hccl",
    [PYACL_PROF] = "acl.prof",
    [PYACL_TDT] = "acl.tdt",
};

static const char *const pyacl_submodule_docs[PYACL_SUBMODULE_COUNT] = {
    [PYACL_RT] = "The AscendCL runtime (aclrt*): device, context, stream, event, notify, value ops, memory,\n"
                 "host functions, kernels, callbacks, exceptions.\n"
                 "Every function returns its outputs first and the ACL error code `ret` last.",
    [PYACL_RTX] = "aclrt's extensions beyond the ACL API (aclrtx*): host kernels, HCOM group tasks, the backend.",
    [PYACL_UTIL] = "pyACL's helpers: Python bytes and buffers to pointers and back, threads.",
    [PYACL_HCCL] = "HCCL (hccl/hccl.h): communicators, collectives and sends on the streams of acl.rt, with the\n"
                   "runtime of acl itself. Functions return their outputs first and the HcclResult `ret` last;\n"
                   "communicators, streams and device pointers are ints.",
    [PYACL_PROF] = "Profiling (acl_prof.h): sessions written as a Chrome trace, msproftx markers and ranges,\n"
                   "steps, settings. Handles are ints; functions return their outputs first and `ret` last.",
    [PYACL_TDT] = "Tensor data transfer (acl_tdt.h): channels carrying datasets of data items between threads.\n"
                  "Handles are ints; functions return their outputs first and `ret` last.",
};

/*
 * atexit hook: Python host functions still queued must run (or be discarded)
 * before the interpreter goes away, or a runtime thread would find a
 * finalizing interpreter in PyGILState_Ensure. aclFinalize waits for the
 * streams' work; the GIL is released so that the functions can take it
 * (callbacks no thread has taken yet are dropped by it). With a Python
 * exception callback installed it is called too: a task that failed may
 * have finished its Python code and still be on its way to the callback,
 * which must see the failure before the trampoline closes. Then the exception
 * trampoline is closed: a task may fail later without any Python callable
 * queued (a stream wait timing out), and the exception callback must not run
 * then (rt_exception.c).
 */
static PyObject *acl_at_exit(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (pyacl_calls_pending() > 0 || pyacl_exception_callback_set()) {
        aclError rc;
        PYACL_WITHOUT_GIL(rc, aclFinalize());
        (void)rc; /* exiting: nobody to tell */
    }
    pyacl_exception_at_exit();
    Py_RETURN_NONE;
}

static PyMethodDef acl_at_exit_def = {"_at_exit", acl_at_exit, METH_NOARGS, NULL};

static int pyacl_register_at_exit(void)
{
    PyObject *atexit = PyImport_ImportModule("atexit");
    if (atexit == NULL)
        return -1;
    PyObject *hook = PyCFunction_New(&acl_at_exit_def, NULL);
    PyObject *done = hook ? PyObject_CallMethod(atexit, "register", "O", hook) : NULL;
    Py_XDECREF(done);
    Py_XDECREF(hook);
    Py_DECREF(atexit);
    return done ? 0 : -1;
}

#define PYACL_VERSION                                                                                              \
    Py_STRINGIFY(ACLRT_VERSION_MAJOR) "." Py_STRINGIFY(ACLRT_VERSION_MINOR) "." Py_STRINGIFY(ACLRT_VERSION_PATCH)

static struct PyModuleDef acl_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "acl",
    .m_doc = "pyACL's interface (acl.rt.*, acl.util.*) over aclrt, the AscendCL runtime API on the host.\n"
             "Handles and pointers are ints (0 = NULL); functions return (outputs..., ret).",
    .m_size = -1, /* single-phase: the runtime is process-wide anyway */
};

/* A submodule `acl.<name>`: a new module object, an attribute of acl, an entry in sys.modules. */
static PyObject *pyacl_new_submodule(PyObject *acl, enum pyacl_submodule which)
{
    const char *full = pyacl_submodule_names[which];
    PyObject *module = PyModule_New(full);
    if (module == NULL)
        return NULL;
    if (PyModule_SetDocString(module, pyacl_submodule_docs[which]) < 0 ||
        PyDict_SetItemString(PyImport_GetModuleDict(), full, module) < 0 ||
        PyModule_AddObjectRef(acl, full + strlen("acl."), module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module; /* new reference */
}

PyMODINIT_FUNC PyInit_acl(void)
{
    PyObject *modules[PYACL_SUBMODULE_COUNT] = {NULL};
    PyObject *acl = PyModule_Create(&acl_module_def);
    if (acl == NULL)
        return NULL;
    modules[PYACL_TOP] = acl;
    for (int m = PYACL_TOP + 1; m < PYACL_SUBMODULE_COUNT; m++)
        if ((modules[m] = pyacl_new_submodule(acl, (enum pyacl_submodule)m)) == NULL)
            goto fail;
    for (size_t c = 0; c < sizeof pyacl_capabilities / sizeof pyacl_capabilities[0]; c++) {
        for (int m = 0; m < PYACL_SUBMODULE_COUNT; m++) {
            PyMethodDef *methods = pyacl_capabilities[c]->methods[m];
            if (methods != NULL && PyModule_AddFunctions(modules[m], methods) < 0)
                goto fail;
        }
        if (pyacl_capabilities[c]->setup != NULL && pyacl_capabilities[c]->setup(modules) < 0)
            goto fail;
    }
    if (pyacl_add_constants(acl) < 0 || PyModule_AddStringConstant(acl, "__version__", PYACL_VERSION) < 0 ||
        pyacl_register_at_exit() < 0)
        goto fail;
    for (int m = PYACL_TOP + 1; m < PYACL_SUBMODULE_COUNT; m++)
        Py_DECREF(modules[m]); /* acl and sys.modules hold them */
    return acl;
fail:
    for (int m = 0; m < PYACL_SUBMODULE_COUNT; m++)
        Py_XDECREF(modules[m]);
    return NULL;
}
