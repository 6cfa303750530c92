/*
 * python/prof.c - acl.prof: profiling sessions, msproftx markers, steps,
 * settings (acl_prof.h).
 *
 *   ret = acl.prof.init(result_path)
 *   ret = acl.prof.finalize()
 *   config = acl.prof.create_config(device_id_list, aicore_metrics, aicore_events, data_type_config)
 *                                                     int (0 on failure); aicore_events: 0 or None
 *   ret = acl.prof.destroy_config(config)
 *   ret = acl.prof.start(config)          ret = acl.prof.stop(config)
 *   ret = acl.prof.set_config(config_type, config)    config: a str (the setting's value)
 *   stamp = acl.prof.create_stamp()                   int (0 on failure)
 *   acl.prof.destroy_stamp(stamp)                     returns None, as the C call returns nothing
 *   ret = acl.prof.set_stamp_trace_message(stamp, msg[, msg_len])   msg_len: len of msg's UTF-8 bytes
 *   ret = acl.prof.mark(stamp)            ret = acl.prof.push(stamp)      ret = acl.prof.pop()
 *   range_id, ret = acl.prof.range_start(stamp)       ret = acl.prof.range_stop(range_id)
 *   step_info = acl.prof.create_step_info()           int (0 on failure)
 *   ret = acl.prof.get_step_timestamp(step_info, tag, stream)        ACL_STEP_START / ACL_STEP_END
 *   acl.prof.destroy_step_info(step_info)             returns None
 *
 * Handles are the C pointers as ints, as pyACL gives them. start, stop and
 * finalize write the trace and may wait for streams, get_step_timestamp
 * submits a task: they release the GIL; the host markers never wait and
 * keep it.
 */
#include "pyacl.h"

static PyObject *prof_init(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "s#:init", &path, &length))
        return NULL;
    return pyacl_ret(aclprofInit(path, (size_t)length));
}

static PyObject *prof_finalize(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclprofFinalize());
    return pyacl_ret(rc);
}

static PyObject *prof_create_config(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *list;
    int metrics;
    void *events;
    uint64_t data_types;
    if (!PyArg_ParseTuple(args, "OiO&O&:create_config", &list, &metrics, pyacl_to_ptr, &events, pyacl_to_uint64,
                          &data_types))
        return NULL;
    PyObject *seq = PySequence_Fast(list, "create_config: device_id_list must be a sequence of ints");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > UINT32_MAX) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_OverflowError, "create_config: too many devices");
        return NULL;
    }
    uint32_t *ids = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *ids);
    if (ids == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!pyacl_to_uint32(PySequence_Fast_GET_ITEM(seq, i), &ids[i])) {
            PyMem_Free(ids);
            Py_DECREF(seq);
            return NULL;
        }
    Py_DECREF(seq);
    /* An empty list passes NULL, as a C program with no devices would. */
    aclprofConfig *config = aclprofCreateConfig(n > 0 ? ids : NULL, (uint32_t)n, (aclprofAicoreMetrics)metrics,
                                                (const aclprofAicoreEvents *)events, data_types);
    PyMem_Free(ids);
    return PyLong_FromVoidPtr(config);
}

static PyObject *prof_destroy_config(PyObject *self, PyObject *arg)
{
    (void)self;
    void *config;
    if (!pyacl_to_ptr(arg, &config))
        return NULL;
    return pyacl_ret(aclprofDestroyConfig((const aclprofConfig *)config));
}

static PyObject *prof_start(PyObject *self, PyObject *arg)
{
    (void)self;
    void *config;
    if (!pyacl_to_ptr(arg, &config))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclprofStart((const aclprofConfig *)config));
    return pyacl_ret(rc);
}

static PyObject *prof_stop(PyObject *self, PyObject *arg)
{
    (void)self;
    void *config;
    if (!pyacl_to_ptr(arg, &config))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclprofStop((const aclprofConfig *)config));
    return pyacl_ret(rc);
}

static PyObject *prof_set_config(PyObject *self, PyObject *args)
{
    (void)self;
    int type;
    const char *config;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "iz#:set_config", &type, &config, &length))
        return NULL;
    return pyacl_ret(aclprofSetConfig((aclprofConfigType)type, config, config != NULL ? (size_t)length : 0));
}

static PyObject *prof_create_stamp(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromVoidPtr(aclprofCreateStamp());
}

static PyObject *prof_destroy_stamp(PyObject *self, PyObject *arg)
{
    (void)self;
    void *stamp;
    if (!pyacl_to_ptr(arg, &stamp))
        return NULL;
    aclprofDestroyStamp(stamp);
    Py_RETURN_NONE;
}

static PyObject *prof_set_stamp_trace_message(PyObject *self, PyObject *args)
{
    (void)self;
    void *stamp;
    const char *msg;
    Py_ssize_t length;
    PyObject *given = NULL;
    if (!PyArg_ParseTuple(args, "O&z#|O:set_stamp_trace_message", pyacl_to_ptr, &stamp, &msg, &length, &given))
        return NULL;
    uint32_t msg_len;
    if (given != NULL && given != Py_None) {
        if (!pyacl_to_uint32(given, &msg_len))
            return NULL;
        /* A length past the string would read beyond its bytes. */
        if (msg != NULL && msg_len > (size_t)length + 1) {
            PyErr_SetString(PyExc_ValueError, "set_stamp_trace_message: msg_len is longer than msg");
            return NULL;
        }
    } else {
        if (msg != NULL && (size_t)length > UINT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "set_stamp_trace_message: msg is too long");
            return NULL;
        }
        msg_len = msg != NULL ? (uint32_t)length : 0;
    }
    return pyacl_ret(aclprofSetStampTraceMessage(stamp, msg, msg_len));
}

static PyObject *prof_mark(PyObject *self, PyObject *arg)
{
    (void)self;
    void *stamp;
    if (!pyacl_to_ptr(arg, &stamp))
        return NULL;
    return pyacl_ret(aclprofMark(stamp));
}

static PyObject *prof_push(PyObject *self, PyObject *arg)
{
    (void)self;
    void *stamp;
    if (!pyacl_to_ptr(arg, &stamp))
        return NULL;
    return pyacl_ret(aclprofPush(stamp));
}

static PyObject *prof_pop(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return pyacl_ret(aclprofPop());
}

static PyObject *prof_range_start(PyObject *self, PyObject *arg)
{
    (void)self;
    void *stamp;
    if (!pyacl_to_ptr(arg, &stamp))
        return NULL;
    uint32_t id = 0;
    aclError rc = aclprofRangeStart(stamp, &id);
    return pyacl_ulong_ret(rc == ACL_SUCCESS ? id : 0, rc);
}

static PyObject *prof_range_stop(PyObject *self, PyObject *arg)
{
    (void)self;
    uint32_t id;
    if (!pyacl_to_uint32(arg, &id))
        return NULL;
    return pyacl_ret(aclprofRangeStop(id));
}

static PyObject *prof_create_step_info(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromVoidPtr(aclprofCreateStepInfo());
}

static PyObject *prof_destroy_step_info(PyObject *self, PyObject *arg)
{
    (void)self;
    void *info;
    if (!pyacl_to_ptr(arg, &info))
        return NULL;
    aclprofDestroyStepInfo((aclprofStepInfo *)info);
    Py_RETURN_NONE;
}

static PyObject *prof_get_step_timestamp(PyObject *self, PyObject *args)
{
    (void)self;
    void *info;
    int tag;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&iO&:get_step_timestamp", pyacl_to_ptr, &info, &tag, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    /* A task in the stream's order: a full ring waits for an executor (pyacl.h). */
    PYACL_WITHOUT_GIL(rc, aclprofGetStepTimestamp((aclprofStepInfo *)info, (aclprofStepTag)tag, stream));
    return pyacl_ret(rc);
}

static PyMethodDef prof_methods[] = {
    {"init", prof_init, METH_VARARGS, "init(result_path) -> ret"},
    {"finalize", prof_finalize, METH_NOARGS, "finalize() -> ret"},
    {"create_config", prof_create_config, METH_VARARGS,
     "create_config(device_id_list, aicore_metrics, aicore_events, data_type_config) -> config (0 on failure)"},
    {"destroy_config", prof_destroy_config, METH_O, "destroy_config(config) -> ret"},
    {"start", prof_start, METH_O, "start(config) -> ret"},
    {"stop", prof_stop, METH_O, "stop(config) -> ret"},
    {"set_config", prof_set_config, METH_VARARGS, "set_config(config_type, config) -> ret"},
    {"create_stamp", prof_create_stamp, METH_NOARGS, "create_stamp() -> stamp (0 on failure)"},
    {"destroy_stamp", prof_destroy_stamp, METH_O, "destroy_stamp(stamp) -> None"},
    {"set_stamp_trace_message", prof_set_stamp_trace_message, METH_VARARGS,
     "set_stamp_trace_message(stamp, msg[, msg_len]) -> ret"},
    {"mark", prof_mark, METH_O, "mark(stamp) -> ret"},
    {"push", prof_push, METH_O, "push(stamp) -> ret"},
    {"pop", prof_pop, METH_NOARGS, "pop() -> ret"},
    {"range_start", prof_range_start, METH_O, "range_start(stamp) -> (range_id, ret)"},
    {"range_stop", prof_range_stop, METH_O, "range_stop(range_id) -> ret"},
    {"create_step_info", prof_create_step_info, METH_NOARGS, "create_step_info() -> step_info (0 on failure)"},
    {"get_step_timestamp", prof_get_step_timestamp, METH_VARARGS, "get_step_timestamp(step_info, tag, stream) -> ret"},
    {"destroy_step_info", prof_destroy_step_info, METH_O, "destroy_step_info(step_info) -> None"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_prof = {
    .name = "profiling",
    .methods = {[PYACL_PROF] = prof_methods},
};
