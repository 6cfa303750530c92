/*
 * python/rt_event.c - acl.rt: events.
 *
 *   event, ret = acl.rt.create_event()
 *   event, ret = acl.rt.create_event_with_flag(flag)
 *   event, ret = acl.rt.create_event_ex_with_flag(flag)
 *   ret = acl.rt.destroy_event(event)
 *   ret = acl.rt.record_event(event, stream)
 *   ret = acl.rt.record_event_with_flag(event, stream, flag)
 *   ret = acl.rt.reset_event(event, stream)
 *   status, ret = acl.rt.query_event(event)              aclrtEventStatus
 *   status, ret = acl.rt.query_event_status(event)       aclrtEventRecordedStatus (1 = complete!)
 *   status, ret = acl.rt.query_event_wait_status(event)  aclrtEventWaitStatus
 *   ret = acl.rt.synchronize_event(event)
 *   ret = acl.rt.synchronize_event_with_timeout(event, timeout_ms)
 *   ms, ret = acl.rt.event_elapsed_time(start, end)      ms: float
 *   timestamp, ret = acl.rt.event_get_timestamp(event)
 *   ret = acl.rt.stream_wait_event(stream, event)
 *   ret = acl.rt.stream_wait_event_with_timeout(stream, event, timeout_s)
 *   ret = acl.rt.stream_wait_event_with_flag(stream, event, timeout_s, flag)
 *   event_id, ret = acl.rt.get_event_id(event)
 *   count, ret = acl.rt.get_event_avail_num()
 *   ret = acl.rt.set_op_wait_timeout(timeout_s)
 *   handle, ret = acl.rt.ipc_get_event_handle(event)    handle: 64 bytes
 *   event, ret = acl.rt.ipc_open_event_handle(handle)
 *
 * Queries keep the GIL (they never wait: a load and a compare); records,
 * resets and stream waits submit tasks, synchronizes wait: those release it.
 */
#include "pyacl.h"

static PyObject *rt_create_event(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    aclrtEvent event = NULL;
    aclError rc = aclrtCreateEvent(&event);
    return pyacl_ptr_ret(event, rc);
}

static PyObject *rt_create_event_with_flag(PyObject *self, PyObject *arg)
{
    (void)self;
    uint32_t flag;
    if (!pyacl_to_uint32(arg, &flag))
        return NULL;
    aclrtEvent event = NULL;
    aclError rc = aclrtCreateEventWithFlag(&event, flag);
    return pyacl_ptr_ret(event, rc);
}

static PyObject *rt_create_event_ex_with_flag(PyObject *self, PyObject *arg)
{
    (void)self;
    uint32_t flag;
    if (!pyacl_to_uint32(arg, &flag))
        return NULL;
    aclrtEvent event = NULL;
    aclError rc = aclrtCreateEventExWithFlag(&event, flag);
    return pyacl_ptr_ret(event, rc);
}

static PyObject *rt_destroy_event(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    return pyacl_ret(aclrtDestroyEvent(event)); /* never waits */
}

static PyObject *rt_record_event(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtEvent event;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&:record_event", pyacl_to_ptr, &event, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtRecordEvent(event, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_record_event_with_flag(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtEvent event;
    aclrtStream stream;
    uint32_t flag;
    if (!PyArg_ParseTuple(args, "O&O&O&:record_event_with_flag", pyacl_to_ptr, &event, pyacl_to_ptr, &stream,
                          pyacl_to_uint32, &flag))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtRecordEventWithFlag(event, stream, flag));
    return pyacl_ret(rc);
}

static PyObject *rt_reset_event(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtEvent event;
    aclrtStream stream;
    if (!PyArg_ParseTuple(args, "O&O&:reset_event", pyacl_to_ptr, &event, pyacl_to_ptr, &stream))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtResetEvent(event, stream));
    return pyacl_ret(rc);
}

static PyObject *rt_query_event(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    aclrtEventStatus status = ACL_EVENT_STATUS_RESERVED;
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    aclError rc = aclrtQueryEvent(event, &status); /* deprecated in ACL, still part of pyACL */
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return pyacl_status_ret(status, rc);
}

/* The hot path: one load and a compare in C; here the call, the conversion and a shared tuple. */
static PyObject *rt_query_event_status(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclError rc = aclrtQueryEventStatus(event, &status);
    return pyacl_status_ret(status, rc);
}

static PyObject *rt_query_event_wait_status(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_RESERVED;
    aclError rc = aclrtQueryEventWaitStatus(event, &status);
    return pyacl_status_ret(status, rc);
}

static PyObject *rt_synchronize_event(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtSynchronizeEvent(event));
    return pyacl_ret(rc);
}

static PyObject *rt_synchronize_event_with_timeout(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtEvent event;
    int32_t timeout;
    if (!PyArg_ParseTuple(args, "O&i:synchronize_event_with_timeout", pyacl_to_ptr, &event, &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtSynchronizeEventWithTimeout(event, timeout));
    return pyacl_ret(rc);
}

static PyObject *rt_event_elapsed_time(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtEvent start, end;
    if (!PyArg_ParseTuple(args, "O&O&:event_elapsed_time", pyacl_to_ptr, &start, pyacl_to_ptr, &end))
        return NULL;
    float ms = 0.0f;
    aclError rc = aclrtEventElapsedTime(&ms, start, end);
    return pyacl_out_ret(PyFloat_FromDouble(ms), rc);
}

static PyObject *rt_event_get_timestamp(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    uint64_t timestamp = 0;
    aclError rc = aclrtEventGetTimestamp(event, &timestamp);
    return pyacl_ulong_ret(timestamp, rc);
}

static PyObject *rt_stream_wait_event(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    aclrtEvent event;
    if (!PyArg_ParseTuple(args, "O&O&:stream_wait_event", pyacl_to_ptr, &stream, pyacl_to_ptr, &event))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtStreamWaitEvent(stream, event));
    return pyacl_ret(rc);
}

static PyObject *rt_stream_wait_event_with_timeout(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    aclrtEvent event;
    int32_t timeout;
    if (!PyArg_ParseTuple(args, "O&O&i:stream_wait_event_with_timeout", pyacl_to_ptr, &stream, pyacl_to_ptr, &event,
                          &timeout))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtStreamWaitEventWithTimeout(stream, event, timeout));
    return pyacl_ret(rc);
}

static PyObject *rt_stream_wait_event_with_flag(PyObject *self, PyObject *args)
{
    (void)self;
    aclrtStream stream;
    aclrtEvent event;
    uint32_t timeout, flag;
    if (!PyArg_ParseTuple(args, "O&O&O&O&:stream_wait_event_with_flag", pyacl_to_ptr, &stream, pyacl_to_ptr, &event,
                          pyacl_to_uint32, &timeout, pyacl_to_uint32, &flag))
        return NULL;
    aclError rc;
    PYACL_WITHOUT_GIL(rc, aclrtStreamWaitEventWithFlag(stream, event, timeout, flag));
    return pyacl_ret(rc);
}

static PyObject *rt_get_event_id(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    uint32_t id = 0;
    aclError rc = aclrtGetEventId(event, &id);
    return pyacl_ulong_ret(id, rc);
}

static PyObject *rt_get_event_avail_num(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    uint32_t count = 0;
    aclError rc = aclrtGetEventAvailNum(&count);
    return pyacl_ulong_ret(count, rc);
}

static PyObject *rt_set_op_wait_timeout(PyObject *self, PyObject *arg)
{
    (void)self;
    uint32_t timeout;
    if (!pyacl_to_uint32(arg, &timeout))
        return NULL;
    return pyacl_ret(aclrtSetOpWaitTimeout(timeout));
}

static PyObject *rt_ipc_get_event_handle(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtEvent event;
    if (!pyacl_to_ptr(arg, &event))
        return NULL;
    aclrtIpcEventHandle handle;
    memset(&handle, 0, sizeof handle);
    aclError rc = aclrtIpcGetEventHandle(event, &handle);
    return pyacl_out_ret(PyBytes_FromStringAndSize(handle.reserved, sizeof handle.reserved), rc);
}

static PyObject *rt_ipc_open_event_handle(PyObject *self, PyObject *arg)
{
    (void)self;
    char *data;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(arg, &data, &size) < 0)
        return NULL;
    if (size != ACL_IPC_EVENT_HANDLE_SIZE)
        return PyErr_Format(PyExc_ValueError, "an IPC event handle is %u bytes, not %zd", ACL_IPC_EVENT_HANDLE_SIZE,
                            size);
    aclrtIpcEventHandle handle;
    memcpy(handle.reserved, data, sizeof handle.reserved);
    aclrtEvent event = NULL;
    aclError rc = aclrtIpcOpenEventHandle(handle, &event);
    return pyacl_ptr_ret(event, rc);
}

static PyMethodDef event_methods[] = {
    {"create_event", rt_create_event, METH_NOARGS, "create_event() -> (event, ret)"},
    {"create_event_with_flag", rt_create_event_with_flag, METH_O, "create_event_with_flag(flag) -> (event, ret)"},
    {"create_event_ex_with_flag", rt_create_event_ex_with_flag, METH_O,
     "create_event_ex_with_flag(flag) -> (event, ret)"},
    {"destroy_event", rt_destroy_event, METH_O, "destroy_event(event) -> ret"},
    {"record_event", rt_record_event, METH_VARARGS, "record_event(event, stream) -> ret"},
    {"record_event_with_flag", rt_record_event_with_flag, METH_VARARGS,
     "record_event_with_flag(event, stream, flag) -> ret"},
    {"reset_event", rt_reset_event, METH_VARARGS, "reset_event(event, stream) -> ret"},
    {"query_event", rt_query_event, METH_O, "query_event(event) -> (status, ret)  (0 = complete)"},
    {"query_event_status", rt_query_event_status, METH_O,
     "query_event_status(event) -> (status, ret)  (ACL_EVENT_RECORDED_STATUS_COMPLETE = 1)"},
    {"query_event_wait_status", rt_query_event_wait_status, METH_O,
     "query_event_wait_status(event) -> (status, ret)  (0 = complete)"},
    {"synchronize_event", rt_synchronize_event, METH_O, "synchronize_event(event) -> ret"},
    {"synchronize_event_with_timeout", rt_synchronize_event_with_timeout, METH_VARARGS,
     "synchronize_event_with_timeout(event, timeout_ms) -> ret"},
    {"event_elapsed_time", rt_event_elapsed_time, METH_VARARGS, "event_elapsed_time(start, end) -> (ms, ret)"},
    {"event_get_timestamp", rt_event_get_timestamp, METH_O, "event_get_timestamp(event) -> (timestamp, ret)"},
    {"stream_wait_event", rt_stream_wait_event, METH_VARARGS, "stream_wait_event(stream, event) -> ret"},
    {"stream_wait_event_with_timeout", rt_stream_wait_event_with_timeout, METH_VARARGS,
     "stream_wait_event_with_timeout(stream, event, timeout_s) -> ret"},
    {"stream_wait_event_with_flag", rt_stream_wait_event_with_flag, METH_VARARGS,
     "stream_wait_event_with_flag(stream, event, timeout_s, flag) -> ret"},
    {"get_event_id", rt_get_event_id, METH_O, "get_event_id(event) -> (event_id, ret)"},
    {"get_event_avail_num", rt_get_event_avail_num, METH_NOARGS, "get_event_avail_num() -> (count, ret)"},
    {"set_op_wait_timeout", rt_set_op_wait_timeout, METH_O, "set_op_wait_timeout(timeout_s) -> ret"},
    {"ipc_get_event_handle", rt_ipc_get_event_handle, METH_O,
     "ipc_get_event_handle(event) -> (handle, ret)  (handle: 64 bytes; the event from ACL_EVENT_IPC)"},
    {"ipc_open_event_handle", rt_ipc_open_event_handle, METH_O,
     "ipc_open_event_handle(handle) -> (event, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_event = {
    .name = "events",
    .methods = {[PYACL_RT] = event_methods},
};
