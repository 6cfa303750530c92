/*
 * python/rt_allocator.c - acl.rt: custom memory allocators (acl_rt_allocator.h).
 *
 *   desc = acl.rt.allocator_create_desc()                                  0 on failure
 *   ret = acl.rt.allocator_destroy_desc(desc)
 *   ret = acl.rt.allocator_set_obj_to_desc(desc, allocator)                allocator: an int
 *   ret = acl.rt.allocator_set_alloc_func_to_desc(desc, fn)                fn(allocator, size) -> block
 *   ret = acl.rt.allocator_set_free_func_to_desc(desc, fn)                 fn(allocator, block)
 *   ret = acl.rt.allocator_set_alloc_advise_func_to_desc(desc, fn)         fn(allocator, size, addr) -> block
 *   ret = acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, fn)  fn(block) -> address
 *   ret = acl.rt.allocator_register(stream, desc)
 *   ret = acl.rt.allocator_unregister(stream)
 *   desc, allocator, alloc, free, alloc_advise, get_addr, ret = acl.rt.allocator_get_by_stream(stream)
 *
 * pyACL has all but the last; allocator_get_by_stream is bound under the
 * name pyACL's convention gives aclrtAllocatorGetByStream, since it completes
 * the feature: it returns what C code gets, as ints (the functions' C
 * addresses), so a program can hand them to C (or call them with ctypes).
 *
 * Python callables behind C function pointers. The C descriptor gets the
 * module's trampolines as its functions and, as its allocator object, a
 * snapshot: an immutable record of the descriptor's Python parts (the
 * allocator int and the four callables), rebuilt by every setter. A
 * registration copies the C descriptor, snapshot pointer included, so it
 * keeps the callables it was registered with, as in C. A trampoline takes
 * the GIL (PyGILState_Ensure: any thread may call it), calls the callable
 * of the snapshot it was given with the allocator int, and reports an
 * exception through sys.unraisablehook (an allocation then returns NULL).
 * aclrtAllocatorGetAddrFromBlockFunc receives only the block, so the alloc
 * trampolines return a small block record (the snapshot and the callable's
 * block int) rather than the int itself: the get-address and free
 * trampolines find the callables through it. Blocks are opaque to C, so this
 * changes nothing for a caller.
 *
 * Lifetimes (GIL-protected counts): a snapshot is held by its descriptor
 * while it is the current one, by each registration made from it (the
 * module's list of registrations, kept by allocator_register /
 * allocator_unregister) and by each block not yet freed. A registration
 * whose stream was destroyed without an unregister keeps its snapshot until
 * allocator_unregister(stream) is called with that int.
 *
 * Descriptors are those this module created: the function setters refuse
 * any other non-zero int with ACL_ERROR_INVALID_PARAM (a trampoline on a
 * descriptor made in C would meet an allocator object that is not a
 * snapshot). The other calls pass unknown ints on to the runtime, which
 * checks them. None of these calls waits: the GIL is kept.
 */
#include "pyacl.h"

enum pyacl_alloc_fn {
    PYACL_ALLOC_FN_ALLOC,
    PYACL_ALLOC_FN_FREE,
    PYACL_ALLOC_FN_ADVISE,
    PYACL_ALLOC_FN_GET_ADDR,
    PYACL_ALLOC_FNS
};

/* What a registration calls: never changed after it is made. */
struct pyacl_alloc_snap {
    Py_ssize_t refs;             /* GIL */
    PyObject *obj;               /* the allocator int */
    PyObject *fn[PYACL_ALLOC_FNS]; /* NULL: not set */
};

struct pyacl_alloc_desc {
    aclrtAllocatorDesc desc;
    PyObject *obj;                 /* NULL until set */
    PyObject *fn[PYACL_ALLOC_FNS];
    struct pyacl_alloc_snap *cur;  /* the C descriptor's allocator object; NULL while obj is not set */
    struct pyacl_alloc_desc *next;
};

struct pyacl_alloc_reg {
    aclrtStream stream;
    struct pyacl_alloc_snap *snap; /* NULL: registered from a descriptor this module did not make */
    struct pyacl_alloc_reg *next;
};

/* What the alloc trampolines return as the block. */
struct pyacl_alloc_block {
    struct pyacl_alloc_snap *snap;
    PyObject *block; /* what the callable returned */
};

static struct pyacl_alloc_desc *pyacl_alloc_descs; /* GIL */
static struct pyacl_alloc_reg *pyacl_alloc_regs;   /* GIL */

static void pyacl_snap_release(struct pyacl_alloc_snap *s)
{
    if (s == NULL || --s->refs > 0)
        return;
    /* Destructors of the callables may run Python code: GIL held, nothing of ours points here any more. */
    Py_XDECREF(s->obj);
    for (int i = 0; i < PYACL_ALLOC_FNS; i++)
        Py_XDECREF(s->fn[i]);
    PyMem_Free(s);
}

static struct pyacl_alloc_desc *pyacl_desc_find(aclrtAllocatorDesc desc)
{
    for (struct pyacl_alloc_desc *d = pyacl_alloc_descs; d != NULL; d = d->next)
        if (d->desc == desc)
            return d;
    return NULL;
}

/* ------------------------------------------------------------------------
 * Trampolines (any thread; they take the GIL)
 * ------------------------------------------------------------------------ */

/* GIL held. A block record for what an alloc callable returned (steals `result`); NULL for None, 0 or an error. */
static void *pyacl_block_new(struct pyacl_alloc_snap *s, PyObject *callable, PyObject *result)
{
    if (result == NULL) {
        PyErr_WriteUnraisable(callable);
        return NULL;
    }
    if (result != Py_None && !PyLong_Check(result)) {
        PyErr_Format(PyExc_TypeError, "an allocator's alloc function must return an int (the block), not %.100s",
                     Py_TYPE(result)->tp_name);
        PyErr_WriteUnraisable(callable);
        Py_DECREF(result);
        return NULL;
    }
    int is_null = result == Py_None || PyObject_Not(result) == 1;
    struct pyacl_alloc_block *b = is_null ? NULL : PyMem_Malloc(sizeof *b);
    if (b == NULL) {
        Py_DECREF(result); /* the allocator said no (or there is no memory for the record) */
        return NULL;
    }
    b->snap = s;
    b->block = result;
    s->refs++;
    return b;
}

static void *pyacl_alloc_trampoline(aclrtAllocator allocator, size_t size)
{
    if (!Py_IsInitialized())
        return NULL;
    PyGILState_STATE gil = PyGILState_Ensure();
    struct pyacl_alloc_snap *s = (struct pyacl_alloc_snap *)allocator;
    PyObject *callable = s->fn[PYACL_ALLOC_FN_ALLOC]; /* set: the runtime registers no descriptor without it */
    PyObject *result = PyObject_CallFunction(callable, "OK", s->obj, (unsigned long long)size);
    void *block = pyacl_block_new(s, callable, result);
    PyGILState_Release(gil);
    return block;
}

static void *pyacl_alloc_advise_trampoline(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
    if (!Py_IsInitialized())
        return NULL;
    PyGILState_STATE gil = PyGILState_Ensure();
    struct pyacl_alloc_snap *s = (struct pyacl_alloc_snap *)allocator;
    PyObject *callable = s->fn[PYACL_ALLOC_FN_ADVISE]; /* set: the C descriptor has this trampoline only then */
    PyObject *hint = PyLong_FromVoidPtr(addr);
    PyObject *result =
        hint != NULL ? PyObject_CallFunction(callable, "OKO", s->obj, (unsigned long long)size, hint) : NULL;
    Py_XDECREF(hint);
    void *block = pyacl_block_new(s, callable, result);
    PyGILState_Release(gil);
    return block;
}

static void pyacl_free_trampoline(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    if (block == NULL || !Py_IsInitialized())
        return;
    (void)allocator; /* the registered snapshot; the block names the one that made it, which is the same */
    PyGILState_STATE gil = PyGILState_Ensure();
    struct pyacl_alloc_block *b = (struct pyacl_alloc_block *)block;
    struct pyacl_alloc_snap *s = b->snap;
    PyObject *callable = s->fn[PYACL_ALLOC_FN_FREE];
    PyObject *result = PyObject_CallFunctionObjArgs(callable, s->obj, b->block, NULL);
    if (result == NULL)
        PyErr_WriteUnraisable(callable);
    Py_XDECREF(result);
    Py_DECREF(b->block);
    pyacl_snap_release(b->snap);
    PyMem_Free(b);
    PyGILState_Release(gil);
}

static void *pyacl_get_addr_trampoline(aclrtAllocatorBlock block)
{
    if (block == NULL || !Py_IsInitialized())
        return NULL;
    PyGILState_STATE gil = PyGILState_Ensure();
    struct pyacl_alloc_block *b = (struct pyacl_alloc_block *)block;
    PyObject *callable = b->snap->fn[PYACL_ALLOC_FN_GET_ADDR];
    PyObject *result = PyObject_CallOneArg(callable, b->block);
    void *addr = NULL;
    if (result != NULL && result != Py_None)
        addr = PyLong_AsVoidPtr(result); /* TypeError for a non-int: reported below */
    if (result == NULL || PyErr_Occurred()) {
        PyErr_WriteUnraisable(callable);
        addr = NULL;
    }
    Py_XDECREF(result);
    PyGILState_Release(gil);
    return addr;
}

/* ------------------------------------------------------------------------
 * Descriptors
 * ------------------------------------------------------------------------ */

/*
 * GIL held, obj set. Returns the runtime's code, or -1 with a Python
 * exception set (no memory). Make a new snapshot of d's parts the C descriptor's
 * allocator object; the old one stays with whatever registrations and blocks
 * hold it.
 */
static aclError pyacl_desc_publish(struct pyacl_alloc_desc *d)
{
    struct pyacl_alloc_snap *s = PyMem_Calloc(1, sizeof *s);
    if (s == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->refs = 1;
    s->obj = Py_NewRef(d->obj);
    for (int i = 0; i < PYACL_ALLOC_FNS; i++)
        s->fn[i] = Py_XNewRef(d->fn[i]);
    aclError rc = aclrtAllocatorSetObjToDesc(d->desc, s);
    if (rc != ACL_SUCCESS) { /* cannot happen for a live descriptor with a non-NULL object */
        pyacl_snap_release(s);
        return rc;
    }
    struct pyacl_alloc_snap *old = d->cur;
    d->cur = s;
    pyacl_snap_release(old);
    return ACL_SUCCESS;
}

static PyObject *rt_allocator_create_desc(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    struct pyacl_alloc_desc *d = PyMem_Calloc(1, sizeof *d);
    if (d == NULL)
        return PyErr_NoMemory();
    d->desc = aclrtAllocatorCreateDesc();
    if (d->desc == NULL) {
        PyMem_Free(d);
        return PyLong_FromLong(0);
    }
    PyObject *out = PyLong_FromVoidPtr(d->desc);
    if (out == NULL) {
        aclrtAllocatorDestroyDesc(d->desc);
        PyMem_Free(d);
        return NULL;
    }
    d->next = pyacl_alloc_descs;
    pyacl_alloc_descs = d;
    return out;
}

static PyObject *rt_allocator_destroy_desc(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtAllocatorDesc desc;
    if (!pyacl_to_ptr(arg, &desc))
        return NULL;
    aclError rc = aclrtAllocatorDestroyDesc(desc);
    if (rc != ACL_SUCCESS)
        return pyacl_ret(rc);
    for (struct pyacl_alloc_desc **p = &pyacl_alloc_descs; *p != NULL; p = &(*p)->next)
        if ((*p)->desc == desc) {
            struct pyacl_alloc_desc *d = *p;
            *p = d->next;
            Py_XDECREF(d->obj);
            for (int i = 0; i < PYACL_ALLOC_FNS; i++)
                Py_XDECREF(d->fn[i]);
            pyacl_snap_release(d->cur); /* registrations made from it keep theirs */
            PyMem_Free(d);
            break;
        }
    return pyacl_ret(ACL_SUCCESS);
}

static PyObject *rt_allocator_set_obj_to_desc(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *desc_arg, *obj_arg;
    if (!PyArg_ParseTuple(args, "OO:allocator_set_obj_to_desc", &desc_arg, &obj_arg))
        return NULL;
    aclrtAllocatorDesc desc;
    void *obj;
    if (!pyacl_to_ptr(desc_arg, &desc) || !pyacl_to_ptr(obj_arg, &obj))
        return NULL;
    struct pyacl_alloc_desc *d = pyacl_desc_find(desc);
    if (d == NULL || obj == NULL) /* the runtime's checks (NULLs, a dead descriptor), or a descriptor made in C */
        return pyacl_ret(aclrtAllocatorSetObjToDesc(desc, obj));
    PyObject *value = PyLong_FromVoidPtr(obj); /* normalized: an __index__ object becomes an int */
    if (value == NULL)
        return NULL;
    PyObject *old = d->obj;
    d->obj = value;
    /* The C descriptor's object is the snapshot, never the int itself: a trampoline must always find one. */
    aclError rc = pyacl_desc_publish(d);
    Py_XDECREF(old);
    if (rc == -1)
        return NULL;
    return pyacl_ret(rc);
}

static aclError pyacl_c_set_fn(aclrtAllocatorDesc desc, enum pyacl_alloc_fn which, int clear)
{
    switch (which) {
    case PYACL_ALLOC_FN_ALLOC:
        return aclrtAllocatorSetAllocFuncToDesc(desc, clear ? NULL : pyacl_alloc_trampoline);
    case PYACL_ALLOC_FN_FREE:
        return aclrtAllocatorSetFreeFuncToDesc(desc, clear ? NULL : pyacl_free_trampoline);
    case PYACL_ALLOC_FN_ADVISE:
        return aclrtAllocatorSetAllocAdviseFuncToDesc(desc, clear ? NULL : pyacl_alloc_advise_trampoline);
    default:
        return aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, clear ? NULL : pyacl_get_addr_trampoline);
    }
}

static PyObject *pyacl_set_fn(PyObject *args, const char *format, enum pyacl_alloc_fn which)
{
    PyObject *desc_arg, *fn;
    if (!PyArg_ParseTuple(args, format, &desc_arg, &fn))
        return NULL;
    aclrtAllocatorDesc desc;
    if (!pyacl_to_ptr(desc_arg, &desc))
        return NULL;
    if (fn != Py_None && !PyCallable_Check(fn))
        return PyErr_Format(PyExc_TypeError, "fn must be callable, not %.100s", Py_TYPE(fn)->tp_name);
    struct pyacl_alloc_desc *d = pyacl_desc_find(desc);
    if (desc != NULL && d == NULL)
        return pyacl_ret(ACL_ERROR_INVALID_PARAM); /* not made here (or destroyed): see the top of this file */
    /* None: the runtime's NULL check (ACL_ERROR_INVALID_PARAM, the descriptor unchanged). */
    aclError rc = pyacl_c_set_fn(desc, which, fn == Py_None);
    if (rc != ACL_SUCCESS)
        return pyacl_ret(rc);
    PyObject *old = d->fn[which];
    d->fn[which] = Py_NewRef(fn);
    rc = d->obj != NULL ? pyacl_desc_publish(d) : ACL_SUCCESS;
    Py_XDECREF(old);
    if (rc == -1)
        return NULL;
    return pyacl_ret(rc);
}

static PyObject *rt_allocator_set_alloc_func_to_desc(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_set_fn(args, "OO:allocator_set_alloc_func_to_desc", PYACL_ALLOC_FN_ALLOC);
}

static PyObject *rt_allocator_set_free_func_to_desc(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_set_fn(args, "OO:allocator_set_free_func_to_desc", PYACL_ALLOC_FN_FREE);
}

static PyObject *rt_allocator_set_alloc_advise_func_to_desc(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_set_fn(args, "OO:allocator_set_alloc_advise_func_to_desc", PYACL_ALLOC_FN_ADVISE);
}

static PyObject *rt_allocator_set_get_addr_from_block_func_to_desc(PyObject *self, PyObject *args)
{
    (void)self;
    return pyacl_set_fn(args, "OO:allocator_set_get_addr_from_block_func_to_desc", PYACL_ALLOC_FN_GET_ADDR);
}

/* ------------------------------------------------------------------------
 * Registrations
 * ------------------------------------------------------------------------ */

/* GIL held. The stream's registration now holds `snap` (may be NULL); the previous one lets go. */
static int pyacl_reg_set(aclrtStream stream, struct pyacl_alloc_snap *snap, int remove)
{
    for (struct pyacl_alloc_reg **p = &pyacl_alloc_regs; *p != NULL; p = &(*p)->next)
        if ((*p)->stream == stream) {
            struct pyacl_alloc_reg *r = *p;
            struct pyacl_alloc_snap *old = r->snap;
            if (remove) {
                *p = r->next;
                PyMem_Free(r);
            } else {
                r->snap = snap;
            }
            pyacl_snap_release(old);
            return 0;
        }
    if (remove)
        return 0;
    struct pyacl_alloc_reg *r = PyMem_Malloc(sizeof *r);
    if (r == NULL) {
        pyacl_snap_release(snap);
        PyErr_NoMemory();
        return -1;
    }
    r->stream = stream;
    r->snap = snap;
    r->next = pyacl_alloc_regs;
    pyacl_alloc_regs = r;
    return 0;
}

static PyObject *rt_allocator_register(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *stream_arg, *desc_arg;
    if (!PyArg_ParseTuple(args, "OO:allocator_register", &stream_arg, &desc_arg))
        return NULL;
    aclrtStream stream;
    aclrtAllocatorDesc desc;
    if (!pyacl_to_ptr(stream_arg, &stream) || !pyacl_to_ptr(desc_arg, &desc))
        return NULL;
    aclError rc = aclrtAllocatorRegister(stream, desc);
    if (rc != ACL_SUCCESS)
        return pyacl_ret(rc);
    /* The registration copied the C descriptor, and with it the current snapshot (if the descriptor is ours). */
    struct pyacl_alloc_desc *d = pyacl_desc_find(desc);
    struct pyacl_alloc_snap *snap = d != NULL ? d->cur : NULL;
    if (snap != NULL)
        snap->refs++;
    if (pyacl_reg_set(stream, snap, 0) < 0)
        return NULL;
    return pyacl_ret(ACL_SUCCESS);
}

static PyObject *rt_allocator_unregister(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclError rc = aclrtAllocatorUnregister(stream);
    if (rc == ACL_SUCCESS)
        pyacl_reg_set(stream, NULL, 1);
    return pyacl_ret(rc);
}

static PyObject *pyacl_fn_int(void (*fn)(void))
{
    return PyLong_FromVoidPtr((void *)(uintptr_t)fn); /* a C address, for C code or ctypes */
}

static PyObject *rt_allocator_get_by_stream(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtStream stream;
    if (!pyacl_to_ptr(arg, &stream))
        return NULL;
    aclrtAllocatorDesc desc = NULL;
    aclrtAllocator allocator = NULL;
    aclrtAllocatorAllocFunc alloc = NULL;
    aclrtAllocatorFreeFunc free_fn = NULL;
    aclrtAllocatorAllocAdviseFunc advise = NULL;
    aclrtAllocatorGetAddrFromBlockFunc get_addr = NULL;
    aclError rc = aclrtAllocatorGetByStream(stream, &desc, &allocator, &alloc, &free_fn, &advise, &get_addr);
    return Py_BuildValue("(NNNNNNi)", PyLong_FromVoidPtr(desc), PyLong_FromVoidPtr(allocator),
                         pyacl_fn_int((void (*)(void))alloc), pyacl_fn_int((void (*)(void))free_fn),
                         pyacl_fn_int((void (*)(void))advise), pyacl_fn_int((void (*)(void))get_addr), rc);
}

static PyMethodDef allocator_methods[] = {
    {"allocator_create_desc", rt_allocator_create_desc, METH_NOARGS,
     "allocator_create_desc() -> desc\n\n"
     "aclrtAllocatorCreateDesc: a new allocator descriptor (an int; 0 on failure)."},
    {"allocator_destroy_desc", rt_allocator_destroy_desc, METH_O,
     "allocator_destroy_desc(desc) -> ret\n\n"
     "aclrtAllocatorDestroyDesc. Registrations made from the descriptor keep what they copied."},
    {"allocator_set_obj_to_desc", rt_allocator_set_obj_to_desc, METH_VARARGS,
     "allocator_set_obj_to_desc(desc, allocator) -> ret\n\n"
     "aclrtAllocatorSetObjToDesc: allocator (a non-zero int) is passed to the alloc, free and\n"
     "alloc-advise functions."},
    {"allocator_set_alloc_func_to_desc", rt_allocator_set_alloc_func_to_desc, METH_VARARGS,
     "allocator_set_alloc_func_to_desc(desc, fn) -> ret\n\n"
     "aclrtAllocatorSetAllocFuncToDesc: fn(allocator, size) returns a block (a non-zero int; None or 0: no\n"
     "memory). Runs with the GIL held in the thread that calls the C function; an exception goes to\n"
     "sys.unraisablehook and the allocation returns NULL."},
    {"allocator_set_free_func_to_desc", rt_allocator_set_free_func_to_desc, METH_VARARGS,
     "allocator_set_free_func_to_desc(desc, fn) -> ret\n\n"
     "aclrtAllocatorSetFreeFuncToDesc: fn(allocator, block) frees a block fn's alloc function returned."},
    {"allocator_set_alloc_advise_func_to_desc", rt_allocator_set_alloc_advise_func_to_desc, METH_VARARGS,
     "allocator_set_alloc_advise_func_to_desc(desc, fn) -> ret\n\n"
     "aclrtAllocatorSetAllocAdviseFuncToDesc: fn(allocator, size, addr) returns a block, addr (an int) being\n"
     "the suggested address. Optional."},
    {"allocator_set_get_addr_from_block_func_to_desc", rt_allocator_set_get_addr_from_block_func_to_desc,
     METH_VARARGS,
     "allocator_set_get_addr_from_block_func_to_desc(desc, fn) -> ret\n\n"
     "aclrtAllocatorSetGetAddrFromBlockFuncToDesc: fn(block) returns the block's device address (an int)."},
    {"allocator_register", rt_allocator_register, METH_VARARGS,
     "allocator_register(stream, desc) -> ret\n\n"
     "aclrtAllocatorRegister: stream (not 0) gets a copy of the descriptor (allocator, alloc, free and\n"
     "get-address functions required); registering again replaces it. aclrt never calls the functions\n"
     "itself: they are for the program and for C code (allocator_get_by_stream)."},
    {"allocator_unregister", rt_allocator_unregister, METH_O,
     "allocator_unregister(stream) -> ret\n\n"
     "aclrtAllocatorUnregister: a stream with no registration (or a dead one) is a success."},
    {"allocator_get_by_stream", rt_allocator_get_by_stream, METH_O,
     "allocator_get_by_stream(stream) -> (desc, allocator, alloc, free, alloc_advise, get_addr, ret)\n\n"
     "aclrtAllocatorGetByStream, as C sees it: every value an int (the functions are C addresses; for\n"
     "Python functions, the module's trampolines, which call them). All 0 on failure."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_allocator = {
    .name = "custom allocators",
    .methods = {[PYACL_RT] = allocator_methods},
};
