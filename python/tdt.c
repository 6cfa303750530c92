/*
 * python/tdt.c - acl.tdt: tensor data transfer channels, datasets and data
 * items (acl_tdt.h).
 *
 *   handle = acl.tdt.create_channel(device_id, name)                      int (0 on failure)
 *   handle = acl.tdt.create_channel_with_capacity(device_id, name, capacity)
 *   ret = acl.tdt.destroy_channel(handle)      ret = acl.tdt.stop_channel(handle)
 *   ret = acl.tdt.clean_channel(handle)        size, ret = acl.tdt.query_channel_size(handle)
 *   ret = acl.tdt.send_tensor(handle, dataset, timeout)                   timeout: ms, -1 waits
 *   ret = acl.tdt.receive_tensor(handle, dataset, timeout)
 *   item = acl.tdt.create_data_item(tdt_type, dims, data_type, data_ptr, size)   dims: a list of ints or None
 *   ret = acl.tdt.destroy_data_item(item)
 *   tdt_type = acl.tdt.get_tensor_type_from_item(item)
 *   data_type = acl.tdt.get_data_type_from_item(item)
 *   data_ptr = acl.tdt.get_data_addr_from_item(item)                      int (0 for NULL)
 *   size = acl.tdt.get_data_size_from_item(item)
 *   dim_num = acl.tdt.get_dim_num_from_item(item)
 *   dims, ret = acl.tdt.get_dims_from_item(item[, dim_num])               dims: a list
 *   slice_num, slice_id, ret = acl.tdt.get_slice_info_from_item(item)
 *   dataset = acl.tdt.create_dataset()         ret = acl.tdt.destroy_dataset(dataset)
 *   ret = acl.tdt.add_data_item(dataset, item) item = acl.tdt.get_data_item(dataset, index)
 *   size = acl.tdt.get_dataset_size(dataset)   name = acl.tdt.get_dataset_name(dataset)   str, or None
 *
 * Handles, datasets and items are the C pointers as ints. A data item keeps
 * the address it was given (the program keeps its memory alive until the
 * send returns; acl.util makes addresses of bytes). Sends and receives may
 * wait for room or data, and stop/destroy wake them: these release the GIL.
 */
#include "pyacl.h"

static PyObject *tdt_create_channel(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t device;
    const char *name;
    if (!PyArg_ParseTuple(args, "O&z:create_channel", pyacl_to_uint32, &device, &name))
        return NULL;
    return PyLong_FromVoidPtr(acltdtCreateChannel(device, name));
}

static PyObject *tdt_create_channel_with_capacity(PyObject *self, PyObject *args)
{
    (void)self;
    uint32_t device;
    const char *name;
    size_t capacity;
    if (!PyArg_ParseTuple(args, "O&zO&:create_channel_with_capacity", pyacl_to_uint32, &device, &name, pyacl_to_size,
                          &capacity))
        return NULL;
    return PyLong_FromVoidPtr(acltdtCreateChannelWithCapacity(device, name, capacity));
}

/* destroy_channel, stop_channel, clean_channel: (handle) -> ret, the GIL released (they wake waiters). */
#define TDT_CHANNEL_CALL(pyname, cname)                                  \
    static PyObject *tdt_##pyname(PyObject *self, PyObject *arg)         \
    {                                                                    \
        (void)self;                                                      \
        void *handle;                                                    \
        if (!pyacl_to_ptr(arg, &handle))                                 \
            return NULL;                                                 \
        aclError rc;                                                     \
        PYACL_WITHOUT_GIL(rc, cname((acltdtChannelHandle *)handle));     \
        return pyacl_ret(rc);                                            \
    }
TDT_CHANNEL_CALL(destroy_channel, acltdtDestroyChannel)
TDT_CHANNEL_CALL(stop_channel, acltdtStopChannel)
TDT_CHANNEL_CALL(clean_channel, acltdtCleanChannel)

static PyObject *tdt_query_channel_size(PyObject *self, PyObject *arg)
{
    (void)self;
    void *handle;
    if (!pyacl_to_ptr(arg, &handle))
        return NULL;
    size_t size = 0;
    aclError rc = acltdtQueryChannelSize((const acltdtChannelHandle *)handle, &size);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? size : 0, rc);
}

static PyObject *tdt_send_tensor(PyObject *self, PyObject *args)
{
    (void)self;
    void *handle, *dataset;
    int32_t timeout;
    if (!PyArg_ParseTuple(args, "O&O&i:send_tensor", pyacl_to_ptr, &handle, pyacl_to_ptr, &dataset, &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, acltdtSendTensor((const acltdtChannelHandle *)handle, (const acltdtDataset *)dataset,
                                           timeout));
    return pyacl_ret(rc);
}

static PyObject *tdt_receive_tensor(PyObject *self, PyObject *args)
{
    (void)self;
    void *handle, *dataset;
    int32_t timeout;
    if (!PyArg_ParseTuple(args, "O&O&i:receive_tensor", pyacl_to_ptr, &handle, pyacl_to_ptr, &dataset, &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, acltdtReceiveTensor((const acltdtChannelHandle *)handle, (acltdtDataset *)dataset,
                                              timeout));
    return pyacl_ret(rc);
}

static PyObject *tdt_create_data_item(PyObject *self, PyObject *args)
{
    (void)self;
    int type, data_type;
    PyObject *dims_obj;
    void *data;
    size_t size;
    if (!PyArg_ParseTuple(args, "iOiO&O&:create_data_item", &type, &dims_obj, &data_type, pyacl_to_ptr, &data,
                          pyacl_to_size, &size))
        return NULL;
    int64_t *dims = NULL;
    Py_ssize_t n = 0;
    if (dims_obj != Py_None) {
        PyObject *seq = PySequence_Fast(dims_obj, "create_data_item: dims must be a sequence of ints or None");
        if (seq == NULL)
            return NULL;
        n = PySequence_Fast_GET_SIZE(seq);
        dims = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *dims);
        if (dims == NULL) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
            if (v == -1 && PyErr_Occurred()) {
                PyMem_Free(dims);
                Py_DECREF(seq);
                return NULL;
            }
            dims[i] = v;
        }
        Py_DECREF(seq);
    }
    acltdtDataItem *item =
        acltdtCreateDataItem((acltdtTensorType)type, dims, (size_t)n, (aclDataType)data_type, data, size);
    PyMem_Free(dims);
    return PyLong_FromVoidPtr(item);
}

static PyObject *tdt_destroy_data_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    return pyacl_ret(acltdtDestroyDataItem((acltdtDataItem *)item));
}

static PyObject *tdt_get_tensor_type_from_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    return PyLong_FromLong((long)acltdtGetTensorTypeFromItem((const acltdtDataItem *)item));
}

static PyObject *tdt_get_data_type_from_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    return PyLong_FromLong((long)acltdtGetDataTypeFromItem((const acltdtDataItem *)item));
}

static PyObject *tdt_get_data_addr_from_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    return PyLong_FromVoidPtr(acltdtGetDataAddrFromItem((const acltdtDataItem *)item));
}

static PyObject *tdt_get_data_size_from_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    return PyLong_FromSize_t(acltdtGetDataSizeFromItem((const acltdtDataItem *)item));
}

static PyObject *tdt_get_dim_num_from_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    return PyLong_FromSize_t(acltdtGetDimNumFromItem((const acltdtDataItem *)item));
}

/* dim_num defaults to the item's; a smaller one gives the C call's error. */
static PyObject *tdt_get_dims_from_item(PyObject *self, PyObject *args)
{
    (void)self;
    void *item;
    PyObject *given = NULL;
    if (!PyArg_ParseTuple(args, "O&|O:get_dims_from_item", pyacl_to_ptr, &item, &given))
        return NULL;
    size_t n;
    if (given != NULL && given != Py_None) {
        if (!pyacl_to_size(given, &n))
            return NULL;
        if (n > 1024 * 1024) {
            PyErr_SetString(PyExc_ValueError, "get_dims_from_item: dim_num is too large");
            return NULL;
        }
    } else {
        n = acltdtGetDimNumFromItem((const acltdtDataItem *)item);
    }
    int64_t *dims = PyMem_Calloc(n > 0 ? n : 1, sizeof *dims);
    if (dims == NULL)
        return PyErr_NoMemory();
    aclError rc = acltdtGetDimsFromItem((const acltdtDataItem *)item, dims, n);
    size_t got = rc == ACL_SUCCESS ? acltdtGetDimNumFromItem((const acltdtDataItem *)item) : 0;
    if (got > n)
        got = n;
    PyObject *list = PyList_New((Py_ssize_t)got);
    for (size_t i = 0; list != NULL && i < got; i++) {
        PyObject *v = PyLong_FromLongLong(dims[i]);
        if (v == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    PyMem_Free(dims);
    return pyacl_out_ret(list, rc);
}

static PyObject *tdt_get_slice_info_from_item(PyObject *self, PyObject *arg)
{
    (void)self;
    void *item;
    if (!pyacl_to_ptr(arg, &item))
        return NULL;
    size_t num = 0, id = 0;
    aclError rc = acltdtGetSliceInfoFromItem((const acltdtDataItem *)item, &num, &id);
    if (rc != ACL_SUCCESS)
        num = id = 0;
    return pyacl_out2_ret(PyLong_FromSize_t(num), PyLong_FromSize_t(id), rc);
}

static PyObject *tdt_create_dataset(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromVoidPtr(acltdtCreateDataset());
}

static PyObject *tdt_destroy_dataset(PyObject *self, PyObject *arg)
{
    (void)self;
    void *dataset;
    if (!pyacl_to_ptr(arg, &dataset))
        return NULL;
    return pyacl_ret(acltdtDestroyDataset((acltdtDataset *)dataset));
}

static PyObject *tdt_add_data_item(PyObject *self, PyObject *args)
{
    (void)self;
    void *dataset, *item;
    if (!PyArg_ParseTuple(args, "O&O&:add_data_item", pyacl_to_ptr, &dataset, pyacl_to_ptr, &item))
        return NULL;
    return pyacl_ret(acltdtAddDataItem((acltdtDataset *)dataset, (acltdtDataItem *)item));
}

static PyObject *tdt_get_data_item(PyObject *self, PyObject *args)
{
    (void)self;
    void *dataset;
    size_t index;
    if (!PyArg_ParseTuple(args, "O&O&:get_data_item", pyacl_to_ptr, &dataset, pyacl_to_size, &index))
        return NULL;
    return PyLong_FromVoidPtr(acltdtGetDataItem((const acltdtDataset *)dataset, index));
}

static PyObject *tdt_get_dataset_size(PyObject *self, PyObject *arg)
{
    (void)self;
    void *dataset;
    if (!pyacl_to_ptr(arg, &dataset))
        return NULL;
    return PyLong_FromSize_t(acltdtGetDatasetSize((const acltdtDataset *)dataset));
}

static PyObject *tdt_get_dataset_name(PyObject *self, PyObject *arg)
{
    (void)self;
    void *dataset;
    if (!pyacl_to_ptr(arg, &dataset))
        return NULL;
    const char *name = acltdtGetDatasetName((const acltdtDataset *)dataset);
    if (name == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace");
}

static PyMethodDef tdt_methods[] = {
    {"create_channel", tdt_create_channel, METH_VARARGS, "create_channel(device_id, name) -> handle (0 on failure)"},
    {"create_channel_with_capacity", tdt_create_channel_with_capacity, METH_VARARGS,
     "create_channel_with_capacity(device_id, name, capacity) -> handle (0 on failure)"},
    {"destroy_channel", tdt_destroy_channel, METH_O, "destroy_channel(handle) -> ret"},
    {"stop_channel", tdt_stop_channel, METH_O, "stop_channel(handle) -> ret"},
    {"clean_channel", tdt_clean_channel, METH_O, "clean_channel(handle) -> ret"},
    {"query_channel_size", tdt_query_channel_size, METH_O, "query_channel_size(handle) -> (size, ret)"},
    {"send_tensor", tdt_send_tensor, METH_VARARGS, "send_tensor(handle, dataset, timeout) -> ret"},
    {"receive_tensor", tdt_receive_tensor, METH_VARARGS, "receive_tensor(handle, dataset, timeout) -> ret"},
    {"create_data_item", tdt_create_data_item, METH_VARARGS,
     "create_data_item(tdt_type, dims, data_type, data_ptr, size) -> item (0 on failure)"},
    {"destroy_data_item", tdt_destroy_data_item, METH_O, "destroy_data_item(item) -> ret"},
    {"get_tensor_type_from_item", tdt_get_tensor_type_from_item, METH_O, "get_tensor_type_from_item(item) -> tdt_type"},
    {"get_data_type_from_item", tdt_get_data_type_from_item, METH_O, "get_data_type_from_item(item) -> data_type"},
    {"get_data_addr_from_item", tdt_get_data_addr_from_item, METH_O, "get_data_addr_from_item(item) -> data_ptr"},
    {"get_data_size_from_item", tdt_get_data_size_from_item, METH_O, "get_data_size_from_item(item) -> size"},
    {"get_dim_num_from_item", tdt_get_dim_num_from_item, METH_O, "get_dim_num_from_item(item) -> dim_num"},
    {"get_dims_from_item", tdt_get_dims_from_item, METH_VARARGS, "get_dims_from_item(item[, dim_num]) -> (dims, ret)"},
    {"get_slice_info_from_item", tdt_get_slice_info_from_item, METH_O,
     "get_slice_info_from_item(item) -> (slice_num, slice_id, ret)"},
    {"create_dataset", tdt_create_dataset, METH_NOARGS, "create_dataset() -> dataset (0 on failure)"},
    {"destroy_dataset", tdt_destroy_dataset, METH_O, "destroy_dataset(dataset) -> ret"},
    {"add_data_item", tdt_add_data_item, METH_VARARGS, "add_data_item(dataset, item) -> ret"},
    {"get_data_item", tdt_get_data_item, METH_VARARGS, "get_data_item(dataset, index) -> item (0 if none)"},
    {"get_dataset_size", tdt_get_dataset_size, METH_O, "get_dataset_size(dataset) -> size"},
    {"get_dataset_name", tdt_get_dataset_name, METH_O, "get_dataset_name(dataset) -> name (None for NULL)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_tdt = {
    .name = "tensor data transfer",
    .methods = {[PYACL_TDT] = tdt_methods},
};
