/*
 * python/rtx_hcom.c - acl.rtx: HCOM group record/wait tasks (aclrtx).
 *
 *   task, ret = acl.rtx.create_hcom_record_task(group_name=None)   None or "": "group"
 *   task, ret = acl.rtx.create_hcom_wait_task(group_name=None)
 *   ret = acl.rtx.hcom_task_set_stream_id(task, stream_id)         stream_id: acl.rt.stream_get_id
 *   data, ret = acl.rtx.hcom_task_serialize(task)                  bytes (b"" on failure)
 *   ret = acl.rtx.destroy_hcom_task(task)
 *   ret = acl.rtx.launch_hcom_task_list(data)                      serialized tasks back to back
 *
 * A record task wakes, on other streams, the wait tasks of its group: the
 * k-th wait launched on a group is released by the group's k-th record. A
 * list is bytes-like: b"".join(serialized tasks); each task goes to its
 * stream, in list order, and a list with anything wrong runs nothing.
 *
 * Task descriptors are plain host memory in the runtime (not handles it
 * can check), so the module keeps the set of descriptors it created and not
 * yet destroyed: any other non-zero int gets ACL_ERROR_RT_INVALID_HANDLE
 * without the runtime reading it (None or 0 is passed on: the runtime's
 * code for NULL). These calls never wait and keep the GIL, which also makes
 * the set and the descriptors safe between Python threads. The launch
 * submits tasks: GIL released (the buffer stays exported meanwhile).
 */
#include "pyacl.h"

static PyObject *pyacl_hcom_tasks; /* set of the ints of live descriptors; GIL */

static PyObject *pyacl_hcom_task_set(void)
{
    if (pyacl_hcom_tasks == NULL)
        pyacl_hcom_tasks = PySet_New(NULL);
    return pyacl_hcom_tasks;
}

/* The descriptor argument: NULL passes (the runtime rejects it); unknown: *known = 0. */
static int pyacl_hcom_task_arg(PyObject *arg, aclrtxHcomTask **task, int *known)
{
    void *ptr;
    if (!pyacl_to_ptr(arg, &ptr))
        return 0;
    *task = (aclrtxHcomTask *)ptr;
    *known = 1;
    if (ptr == NULL)
        return 1;
    PyObject *set = pyacl_hcom_task_set();
    PyObject *key = set != NULL ? PyLong_FromVoidPtr(ptr) : NULL;
    int found = key != NULL ? PySet_Contains(set, key) : -1;
    Py_XDECREF(key);
    if (found < 0)
        return 0;
    *known = found;
    return 1;
}

static PyObject *pyacl_hcom_create(PyObject *args, PyObject *kwargs, const char *format,
                                   aclError (*create)(aclrtxHcomTask **, const char *))
{
    static char *kwlist[] = {"group_name", NULL};
    const char *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, kwlist, &name)) /* "|z": str or None; NUL: ValueError */
        return NULL;
    PyObject *set = pyacl_hcom_task_set();
    if (set == NULL)
        return NULL;
    aclrtxHcomTask *task = NULL;
    aclError rc = create(&task, name);
    if (rc != ACL_SUCCESS)
        return pyacl_ptr_ret(NULL, rc);
    PyObject *key = PyLong_FromVoidPtr(task);
    if (key == NULL || PySet_Add(set, key) < 0) {
        Py_XDECREF(key);
        aclrtxDestroyHcomTask(task);
        return NULL;
    }
    return pyacl_out_ret(key, ACL_SUCCESS); /* steals key; the set holds its own reference */
}

static PyObject *rtx_create_hcom_record_task(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return pyacl_hcom_create(args, kwargs, "|z:create_hcom_record_task", aclrtxCreateHcomRecordTask);
}

static PyObject *rtx_create_hcom_wait_task(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    return pyacl_hcom_create(args, kwargs, "|z:create_hcom_wait_task", aclrtxCreateHcomWaitTask);
}

static PyObject *rtx_hcom_task_set_stream_id(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *task_arg;
    int stream_id, known;
    aclrtxHcomTask *task;
    if (!PyArg_ParseTuple(args, "Oi:hcom_task_set_stream_id", &task_arg, &stream_id) ||
        !pyacl_hcom_task_arg(task_arg, &task, &known))
        return NULL;
    if (!known)
        return pyacl_ret(ACL_ERROR_RT_INVALID_HANDLE);
    return pyacl_ret(aclrtxHcomTaskSetStreamId(task, stream_id));
}

static PyObject *rtx_hcom_task_serialize(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtxHcomTask *task;
    int known;
    if (!pyacl_hcom_task_arg(arg, &task, &known))
        return NULL;
    if (!known)
        return pyacl_out_ret(PyBytes_FromStringAndSize(NULL, 0), ACL_ERROR_RT_INVALID_HANDLE);
    size_t needed = 0;
    aclError rc = aclrtxHcomTaskSerialize(task, NULL, 0, &needed); /* the size */
    if (rc != ACL_SUCCESS)
        return pyacl_out_ret(PyBytes_FromStringAndSize(NULL, 0), rc);
    PyObject *data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)needed);
    if (data == NULL)
        return NULL;
    rc = aclrtxHcomTaskSerialize(task, PyBytes_AS_STRING(data), needed, &needed);
    if (rc != ACL_SUCCESS) {
        Py_DECREF(data);
        return pyacl_out_ret(PyBytes_FromStringAndSize(NULL, 0), rc);
    }
    return pyacl_out_ret(data, ACL_SUCCESS);
}

static PyObject *rtx_destroy_hcom_task(PyObject *self, PyObject *arg)
{
    (void)self;
    aclrtxHcomTask *task;
    int known;
    if (!pyacl_hcom_task_arg(arg, &task, &known))
        return NULL;
    if (!known)
        return pyacl_ret(ACL_ERROR_RT_INVALID_HANDLE);
    if (task != NULL) {
        PyObject *key = PyLong_FromVoidPtr(task);
        if (key == NULL || PySet_Discard(pyacl_hcom_tasks, key) < 0) {
            Py_XDECREF(key);
            return NULL;
        }
        Py_DECREF(key);
    }
    return pyacl_ret(aclrtxDestroyHcomTask(task));
}

static PyObject *rtx_launch_hcom_task_list(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) /* TypeError: not bytes-like */
        return NULL;
    aclError rc;
    /* An empty buffer's pointer may be NULL: the runtime's NULL code would hide "empty list". */
    const void *bytes = view.buf != NULL ? view.buf : (const void *)"";
    PYACL_WITHOUT_GIL(rc, aclrtxLaunchHcomTaskList(bytes, (size_t)view.len));
    PyBuffer_Release(&view);
    return pyacl_ret(rc);
}

static PyMethodDef hcom_methods[] = {
    {"create_hcom_record_task", (PyCFunction)(void (*)(void))rtx_create_hcom_record_task,
     METH_VARARGS | METH_KEYWORDS,
     "create_hcom_record_task(group_name=None) -> (task, ret)\n\n"
     "aclrtxCreateHcomRecordTask: a record task of the group (None or \"\": \"group\")."},
    {"create_hcom_wait_task", (PyCFunction)(void (*)(void))rtx_create_hcom_wait_task, METH_VARARGS | METH_KEYWORDS,
     "create_hcom_wait_task(group_name=None) -> (task, ret)\n\n"
     "aclrtxCreateHcomWaitTask: the k-th wait launched on a group is released by its k-th record."},
    {"hcom_task_set_stream_id", rtx_hcom_task_set_stream_id, METH_VARARGS,
     "hcom_task_set_stream_id(task, stream_id) -> ret\n\n"
     "aclrtxHcomTaskSetStreamId: the stream (acl.rt.stream_get_id) the task will go to."},
    {"hcom_task_serialize", rtx_hcom_task_serialize, METH_O,
     "hcom_task_serialize(task) -> (data, ret)\n\naclrtxHcomTaskSerialize: the task as bytes (b\"\" on failure)."},
    {"destroy_hcom_task", rtx_destroy_hcom_task, METH_O,
     "destroy_hcom_task(task) -> ret\n\naclrtxDestroyHcomTask."},
    {"launch_hcom_task_list", rtx_launch_hcom_task_list, METH_O,
     "launch_hcom_task_list(data) -> ret\n\n"
     "aclrtxLaunchHcomTaskList: serialized tasks back to back (bytes-like); each goes to its stream, in order."},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_hcom = {
    .name = "HCOM group record/wait tasks",
    .methods = {[PYACL_RTX] = hcom_methods},
};
