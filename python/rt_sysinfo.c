/*
 * python/rt_sysinfo.c - system and version: the SoC, package versions, CANN
 * attributes, half-precision conversions, data type sizes.
 *
 *   name = acl.get_soc_name()                          str, or None on failure
 *   version_str, ret = acl.sys_get_version_str(pkg_name)     "" on failure
 *   version_num, ret = acl.sys_get_version_num(pkg_name)
 *   attrs, ret = acl.get_cann_attribute_list()         list of ACL_CANN_ATTR_* ([] on failure)
 *   value, ret = acl.get_cann_attribute(attr)
 *   can_compatible, ret = acl.rt.check_arch_compatibility(soc_version)
 *   output = acl.float_to_float16(value)               int: the aclFloat16 bits
 *   output = acl.float16_to_float(value)               float
 *   size = acl.data_type_size(data_type)               int (0 for types without a size)
 *
 * aclsysGetVersionStr/Num have no pyACL form; they are bound at the top of
 * the module under the names the convention gives them (the prefix "aclsys"
 * becomes "sys_"). A string argument may be None (NULL in C: the C API's
 * parameter error). Nothing here waits: the GIL is kept.
 */
#include "pyacl.h"

static PyObject *acl_get_soc_name(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *name = aclrtGetSocName();
    if (name == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}

static PyObject *acl_sys_get_version_str(PyObject *self, PyObject *args)
{
    (void)self;
    char *pkg_name;
    if (!PyArg_ParseTuple(args, "z:sys_get_version_str", &pkg_name))
        return NULL;
    char version[ACL_PKG_VERSION_MAX_SIZE] = {0};
    aclError rc = aclsysGetVersionStr(pkg_name, version);
    if (rc != ACL_SUCCESS)
        version[0] = '\0';
    version[sizeof version - 1] = '\0';
    return pyacl_out_ret(PyUnicode_FromString(version), rc);
}

static PyObject *acl_sys_get_version_num(PyObject *self, PyObject *args)
{
    (void)self;
    char *pkg_name;
    if (!PyArg_ParseTuple(args, "z:sys_get_version_num", &pkg_name))
        return NULL;
    int32_t num = 0;
    aclError rc = aclsysGetVersionNum(pkg_name, &num);
    return pyacl_long_ret(rc == ACL_SUCCESS ? num : 0, rc);
}

static PyObject *acl_get_cann_attribute_list(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const aclCannAttr *list = NULL;
    size_t num = 0;
    aclError rc = aclGetCannAttributeList(&list, &num);
    if (rc != ACL_SUCCESS || list == NULL)
        num = 0;
    PyObject *out = PyList_New((Py_ssize_t)num);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < num; i++) {
        PyObject *item = PyLong_FromLong(list[i]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, item); /* steals */
    }
    return pyacl_out_ret(out, rc);
}

static PyObject *acl_get_cann_attribute(PyObject *self, PyObject *args)
{
    (void)self;
    int attr;
    if (!PyArg_ParseTuple(args, "i:get_cann_attribute", &attr))
        return NULL;
    int32_t value = 0;
    aclError rc = aclGetCannAttribute((aclCannAttr)attr, &value);
    return pyacl_long_ret(rc == ACL_SUCCESS ? value : 0, rc);
}

static PyObject *rt_check_arch_compatibility(PyObject *self, PyObject *args)
{
    (void)self;
    char *soc_version;
    if (!PyArg_ParseTuple(args, "z:check_arch_compatibility", &soc_version))
        return NULL;
    int32_t can = 0;
    aclError rc = aclrtCheckArchCompatibility(soc_version, &can);
    return pyacl_long_ret(rc == ACL_SUCCESS ? can : 0, rc);
}

static PyObject *acl_float_to_float16(PyObject *self, PyObject *args)
{
    (void)self;
    float value;
    if (!PyArg_ParseTuple(args, "f:float_to_float16", &value))
        return NULL;
    return PyLong_FromUnsignedLong(aclFloatToFloat16(value));
}

static PyObject *acl_float16_to_float(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t bits;
    if (!PyArg_ParseTuple(args, "O&:float16_to_float", pyacl_to_uint32, &bits))
        return NULL;
    if (bits > UINT16_MAX) {
        PyErr_SetString(PyExc_OverflowError, "an aclFloat16 is an unsigned 16-bit integer");
        return NULL;
    }
    return PyFloat_FromDouble(aclFloat16ToFloat((aclFloat16)bits));
}

static PyObject *acl_data_type_size(PyObject *self, PyObject *args)
{
    (void)self;
    int type;
    if (!PyArg_ParseTuple(args, "i:data_type_size", &type))
        return NULL;
    return PyLong_FromSize_t(aclDataTypeSize((aclDataType)type));
}

static PyMethodDef sysinfo_top_methods[] = {
    {"get_soc_name", acl_get_soc_name, METH_NOARGS, "get_soc_name() -> name  (str, None on failure)"},
    {"sys_get_version_str", acl_sys_get_version_str, METH_VARARGS,
     "sys_get_version_str(pkg_name) -> (version_str, ret)  (aclsysGetVersionStr)"},
    {"sys_get_version_num", acl_sys_get_version_num, METH_VARARGS,
     "sys_get_version_num(pkg_name) -> (version_num, ret)  (aclsysGetVersionNum)"},
    {"get_cann_attribute_list", acl_get_cann_attribute_list, METH_NOARGS, "get_cann_attribute_list() -> (attrs, ret)"},
    {"get_cann_attribute", acl_get_cann_attribute, METH_VARARGS, "get_cann_attribute(attr) -> (value, ret)"},
    {"float_to_float16", acl_float_to_float16, METH_VARARGS, "float_to_float16(value) -> output  (int: the half's bits)"},
    {"float16_to_float", acl_float16_to_float, METH_VARARGS, "float16_to_float(value) -> output  (float)"},
    {"data_type_size", acl_data_type_size, METH_VARARGS, "data_type_size(data_type) -> size"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef sysinfo_rt_methods[] = {
    {"check_arch_compatibility", rt_check_arch_compatibility, METH_VARARGS,
     "check_arch_compatibility(soc_version) -> (can_compatible, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_sysinfo = {
    .name = "system and version",
    .methods = {[PYACL_TOP] = sysinfo_top_methods, [PYACL_RT] = sysinfo_rt_methods},
};
