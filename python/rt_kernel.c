/*
 * python/rt_kernel.c - acl.rt: kernel binaries, functions, args handles and
 * launches, with pyACL's signatures.
 *
 *   bin_handle, ret = acl.rt.binary_load_from_file(bin_path, options)
 *   bin_handle, ret = acl.rt.binary_load_from_data(mem_addr, length, options)
 *   func_handle, ret = acl.rt.binary_get_function(bin_handle, kernel_name)
 *   ret = acl.rt.binary_unload(bin_handle)
 *   name, ret = acl.rt.get_function_name(func_handle, max_len)
 *   aic_addr, aiv_addr, ret = acl.rt.get_function_addr(func_handle)
 *   args_handle, ret = acl.rt.kernel_args_init(func_handle)
 *   param_handle, ret = acl.rt.kernel_args_append(args_handle, param, param_size)
 *   param_handle, ret = acl.rt.kernel_args_append_place_holder(args_handle)
 *   buffer_addr, ret = acl.rt.kernel_args_get_place_holder_buffer(args_handle, param_handle, data_size)
 *   ret = acl.rt.kernel_args_para_update(args_handle, param_handle, param, param_size)
 *   ret = acl.rt.kernel_args_finalize(args_handle)
 *   ret = acl.rt.launch_kernel(func_handle, num_blocks, args_data, args_size, stream)
 *   ret = acl.rt.launch_kernel_with_config(func_handle, num_blocks, stream, cfg, args_handle, reserve)
 *
 * Addresses (mem_addr, param, args_data) are ints, as acl.util.bytes_to_ptr
 * gives them. `options` is a list of {"type": ..., "value": ...} dicts
 * (aclrtBinaryLoadOption), `cfg` a list of {"id": ..., "value": ...} dicts
 * (aclrtLaunchKernelAttr); [] or None for none. Loading (which runs the
 * library's initialisers) and launches release the GIL.
 */
#include "pyacl.h"

#define RT_KERNEL_MAX_ITEMS 16 /* options or attributes in one call */

/* One {key: int, "value": int} dict of a list: both ints, as 64-bit values. */
static int rt_kernel_item(PyObject *item, const char *key, uint64_t *id, uint64_t *value)
{
    if (!PyDict_Check(item)) {
        PyErr_Format(PyExc_TypeError, "each element must be a dict with \"%s\" and \"value\"", key);
        return 0;
    }
    PyObject *k = PyDict_GetItemString(item, key), *v = PyDict_GetItemString(item, "value");
    if (k == NULL || v == NULL) {
        PyErr_Format(PyExc_TypeError, "each element must be a dict with \"%s\" and \"value\"", key);
        return 0;
    }
    return pyacl_to_uint64(k, id) && pyacl_to_uint64(v, value);
}

/* A list of dicts: its items (at most RT_KERNEL_MAX_ITEMS); None or [] is none. -1: a Python exception. */
static Py_ssize_t rt_kernel_items(PyObject *list, const char *key, uint64_t ids[], uint64_t values[])
{
    if (list == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(list, "expected a list of dicts");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > RT_KERNEL_MAX_ITEMS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d elements", RT_KERNEL_MAX_ITEMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!rt_kernel_item(PySequence_Fast_GET_ITEM(seq, i), key, &ids[i], &values[i])) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    return n;
}

/* options -> aclrtBinaryLoadOptions (NULL for none); 0 with a Python exception. */
static int rt_kernel_options(PyObject *list, aclrtBinaryLoadOption opts[], aclrtBinaryLoadOptions *out,
                             aclrtBinaryLoadOptions **outp)
{
    uint64_t ids[RT_KERNEL_MAX_ITEMS], values[RT_KERNEL_MAX_ITEMS];
    Py_ssize_t n = rt_kernel_items(list, "type", ids, values);
    if (n < 0)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        memset(&opts[i], 0, sizeof opts[i]);
        opts[i].type = (aclrtBinaryLoadOptionType)ids[i];
        opts[i].value.rsv[0] = (uint32_t)values[i]; /* isLazyLoad, magic or cpuKernelMode */
    }
    out->options = opts;
    out->numOpt = (size_t)n;
    *outp = n > 0 ? out : NULL;
    return 1;
}

/* cfg -> aclrtLaunchKernelCfg (NULL for none): each value into the union member its id names. */
static int rt_kernel_cfg(PyObject *list, aclrtLaunchKernelAttr attrs[], aclrtLaunchKernelCfg *out,
                         aclrtLaunchKernelCfg **outp)
{
    uint64_t ids[RT_KERNEL_MAX_ITEMS], values[RT_KERNEL_MAX_ITEMS];
    Py_ssize_t n = rt_kernel_items(list, "id", ids, values);
    if (n < 0)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        aclrtLaunchKernelAttr *a = &attrs[i];
        memset(a, 0, sizeof *a);
        a->id = (aclrtLaunchKernelAttrId)ids[i];
        uint64_t v = values[i];
        switch ((int)ids[i]) {
        case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE: a->value.schemMode = (uint8_t)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE: a->value.dynUBufSize = (uint32_t)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE: a->value.engineType = (aclrtEngineType)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET: a->value.blockDimOffset = (uint32_t)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH: a->value.isBlockTaskPrefetch = (uint8_t)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP: a->value.isDataDump = (uint8_t)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT: a->value.timeout = (uint16_t)v; break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
            a->value.timeoutUs.timeoutLow = (uint32_t)v;
            a->value.timeoutUs.timeoutHigh = (uint32_t)(v >> 32);
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING: a->value.enableProfiling = (uint8_t)v; break;
        default: a->value.rsv[0] = (uint32_t)v; break;
        }
    }
    out->attrs = attrs;
    out->numAttrs = (size_t)n;
    *outp = n > 0 ? out : NULL;
    return 1;
}

static PyObject *rt_binary_load_from_file(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path;
    PyObject *options = Py_None;
    if (!PyArg_ParseTuple(args, "s|O:binary_load_from_file", &path, &options))
        return NULL;
    aclrtBinaryLoadOption opts[RT_KERNEL_MAX_ITEMS];
    aclrtBinaryLoadOptions set, *setp;
    if (!rt_kernel_options(options, opts, &set, &setp))
        return NULL;
    aclrtBinHandle bin = NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtBinaryLoadFromFile(path, setp, &bin));
    return pyacl_ptr_ret(bin, rc);
}

static PyObject *rt_binary_load_from_data(PyObject *self, PyObject *args)
{
    (void)self;
    void *data;
    size_t length;
    PyObject *options = Py_None;
    if (!PyArg_ParseTuple(args, "O&O&|O:binary_load_from_data", pyacl_to_ptr, &data, pyacl_to_size, &length, &options))
        return NULL;
    aclrtBinaryLoadOption opts[RT_KERNEL_MAX_ITEMS];
    aclrtBinaryLoadOptions set, *setp;
    if (!rt_kernel_options(options, opts, &set, &setp))
        return NULL;
    aclrtBinHandle bin = NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtBinaryLoadFromData(data, length, setp, &bin));
    return pyacl_ptr_ret(bin, rc);
}

static PyObject *rt_binary_get_function(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtBinHandle bin;
    const char *name;
    if (!PyArg_ParseTuple(args, "O&s:binary_get_function", pyacl_to_ptr, &bin, &name))
        return NULL;
    aclrtFuncHandle f = NULL;
    aclError rc = aclrtBinaryGetFunction(bin, name, &f);
    return pyacl_ptr_ret(f, rc);
}

static PyObject *rt_binary_unload(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtBinHandle bin;
    if (!pyacl_to_ptr(arg, &bin))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtBinaryUnLoad(bin)); /* may close the library: its finalisers run */
    return pyacl_ret(rc);
}

static PyObject *rt_get_function_name(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtFuncHandle f;
    uint32_t max_len;
    if (!PyArg_ParseTuple(args, "O&O&:get_function_name", pyacl_to_ptr, &f, pyacl_to_uint32, &max_len))
        return NULL;
    char small[256];
    char *name = max_len <= sizeof small ? small : (char *)PyMem_Malloc(max_len);
    if (name == NULL)
        return PyErr_NoMemory();
    aclError rc = aclrtGetFunctionName(f, max_len, name);
    PyObject *out = rc == ACL_SUCCESS ? PyUnicode_FromString(name) : PyUnicode_FromString("");
    if (name != small)
        PyMem_Free(name);
    return pyacl_out_ret(out, rc);
}

static PyObject *rt_get_function_addr(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtFuncHandle f;
    if (!pyacl_to_ptr(arg, &f))
        return NULL;
    void *aic = NULL, *aiv = NULL;
    aclError rc = aclrtGetFunctionAddr(f, &aic, &aiv);
    return pyacl_out2_ret(PyLong_FromVoidPtr(aic), PyLong_FromVoidPtr(aiv), rc);
}

static PyObject *rt_kernel_args_init(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtFuncHandle f;
    if (!pyacl_to_ptr(arg, &f))
        return NULL;
    aclrtArgsHandle h = NULL;
    aclError rc = aclrtKernelArgsInit(f, &h);
    return pyacl_ptr_ret(h, rc);
}

static PyObject *rt_kernel_args_append(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtArgsHandle h;
    void *param;
    size_t size;
    if (!PyArg_ParseTuple(args, "O&O&O&:kernel_args_append", pyacl_to_ptr, &h, pyacl_to_ptr, &param, pyacl_to_size,
                          &size))
        return NULL;
    aclrtParamHandle p = NULL;
    aclError rc = aclrtKernelArgsAppend(h, param, size, &p);
    return pyacl_ptr_ret(p, rc);
}

static PyObject *rt_kernel_args_append_place_holder(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtArgsHandle h;
    if (!pyacl_to_ptr(arg, &h))
        return NULL;
    aclrtParamHandle p = NULL;
    aclError rc = aclrtKernelArgsAppendPlaceHolder(h, &p);
    return pyacl_ptr_ret(p, rc);
}

static PyObject *rt_kernel_args_get_place_holder_buffer(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtArgsHandle h;
    aclrtParamHandle p;
    size_t size;
    if (!PyArg_ParseTuple(args, "O&O&O&:kernel_args_get_place_holder_buffer", pyacl_to_ptr, &h, pyacl_to_ptr, &p,
                          pyacl_to_size, &size))
        return NULL;
    void *buffer = NULL;
    aclError rc = aclrtKernelArgsGetPlaceHolderBuffer(h, p, size, &buffer);
    return pyacl_ptr_ret(buffer, rc);
}

static PyObject *rt_kernel_args_para_update(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtArgsHandle h;
    aclrtParamHandle p;
    void *param;
    size_t size;
    if (!PyArg_ParseTuple(args, "O&O&O&O&:kernel_args_para_update", pyacl_to_ptr, &h, pyacl_to_ptr, &p, pyacl_to_ptr,
                          &param, pyacl_to_size, &size))
        return NULL;
    return pyacl_ret(aclrtKernelArgsParaUpdate(h, p, param, size));
}

static PyObject *rt_kernel_args_finalize(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtArgsHandle h;
    if (!pyacl_to_ptr(arg, &h))
        return NULL;
    return pyacl_ret(aclrtKernelArgsFinalize(h));
}

static PyObject *rt_launch_kernel(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtFuncHandle f;
    uint32_t blocks;
    void *data;
    size_t size;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&O&O&O&:launch_kernel", pyacl_to_ptr, &f, pyacl_to_uint32, &blocks, pyacl_to_ptr,
                          &data, pyacl_to_size, &size, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtLaunchKernel(f, blocks, data, size, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_launch_kernel_with_config(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtFuncHandle f;
    uint32_t blocks;
    aclrtStream stream;
    PyObject *cfg_list = Py_None;
    aclrtArgsHandle h;
    void *reserve = NULL;
    if (!PyArg_ParseTuple(args, "O&O&O&OO&|O&:launch_kernel_with_config", pyacl_to_ptr, &f, pyacl_to_uint32, &blocks,
                          pyacl_to_ptr, &stream, &cfg_list, pyacl_to_ptr, &h, pyacl_to_ptr, &reserve))
        return NULL;
    aclrtLaunchKernelAttr attrs[RT_KERNEL_MAX_ITEMS];
    aclrtLaunchKernelCfg cfg, *cfgp;
    if (!rt_kernel_cfg(cfg_list, attrs, &cfg, &cfgp))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtLaunchKernelWithConfig(f, blocks, stream, cfgp, h, reserve));
    return pyacl_ret(rc);
}

static PyMethodDef kernel_methods[] = {
    {"binary_load_from_file", rt_binary_load_from_file, METH_VARARGS,
     "binary_load_from_file(bin_path, options) -> (bin_handle, ret)\n\n"
     "aclrtBinaryLoadFromFile. options: [{\"type\": ..., \"value\": ...}] or []."},
    {"binary_load_from_data", rt_binary_load_from_data, METH_VARARGS,
     "binary_load_from_data(mem_addr, length, options) -> (bin_handle, ret)\n\n"
     "aclrtBinaryLoadFromData: the bytes are copied; mem_addr may be freed afterwards."},
    {"binary_get_function", rt_binary_get_function, METH_VARARGS,
     "binary_get_function(bin_handle, kernel_name) -> (func_handle, ret)"},
    {"binary_unload", rt_binary_unload, METH_O,
     "binary_unload(bin_handle) -> ret\n\nLaunches already queued still run; the library closes after them."},
    {"get_function_name", rt_get_function_name, METH_VARARGS, "get_function_name(func_handle, max_len) -> (name, ret)"},
    {"get_function_addr", rt_get_function_addr, METH_O, "get_function_addr(func_handle) -> (aic_addr, aiv_addr, ret)"},
    {"kernel_args_init", rt_kernel_args_init, METH_O, "kernel_args_init(func_handle) -> (args_handle, ret)"},
    {"kernel_args_append", rt_kernel_args_append, METH_VARARGS,
     "kernel_args_append(args_handle, param, param_size) -> (param_handle, ret)\n\n"
     "param: the address of the value (acl.util.bytes_to_ptr), copied now."},
    {"kernel_args_append_place_holder", rt_kernel_args_append_place_holder, METH_O,
     "kernel_args_append_place_holder(args_handle) -> (param_handle, ret)"},
    {"kernel_args_get_place_holder_buffer", rt_kernel_args_get_place_holder_buffer, METH_VARARGS,
     "kernel_args_get_place_holder_buffer(args_handle, param_handle, data_size) -> (buffer_addr, ret)"},
    {"kernel_args_para_update", rt_kernel_args_para_update, METH_VARARGS,
     "kernel_args_para_update(args_handle, param_handle, param, param_size) -> ret"},
    {"kernel_args_finalize", rt_kernel_args_finalize, METH_O, "kernel_args_finalize(args_handle) -> ret"},
    {"launch_kernel", rt_launch_kernel, METH_VARARGS,
     "launch_kernel(func_handle, num_blocks, args_data, args_size, stream) -> ret\n\n"
     "args_data: device memory (acl.rt.malloc) the kernel reads when it runs."},
    {"launch_kernel_with_config", rt_launch_kernel_with_config, METH_VARARGS,
     "launch_kernel_with_config(func_handle, num_blocks, stream, cfg, args_handle, reserve=0) -> ret\n\n"
     "cfg: [{\"id\": ..., \"value\": ...}] or []; the args are copied at the launch."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_kernel = {
    .name = "kernels",
    .methods = {[PYACL_RT] = kernel_methods},
};
