/*
 * python/rt_peer.c - acl.rt: peer access between devices.
 *
 *   can_access_peer, ret = acl.rt.device_can_access_peer(device_id, peer_device_id)
 *   ret = acl.rt.device_enable_peer_access(peer_device_id, flags)     from the current device
 *   ret = acl.rt.device_disable_peer_access(peer_device_id)
 *   status, ret = acl.rt.device_peer_access_status(device_id, peer_device_id)
 *
 * Nothing here waits: the GIL is kept.
 */
#include "pyacl.h"

static PyObject *rt_device_can_access_peer(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device, peer;
    if (!PyArg_ParseTuple(args, "ii:device_can_access_peer", &device, &peer))
        return NULL;
    int32_t can = 0;
    aclError rc = aclrtDeviceCanAccessPeer(&can, device, peer);
    return pyacl_long_ret(rc == ACL_SUCCESS ? can : 0, rc);
}

static PyObject *rt_device_enable_peer_access(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t peer;
    uint32_t flags;
    if (!PyArg_ParseTuple(args, "iO&:device_enable_peer_access", &peer, pyacl_to_uint32, &flags))
        return NULL;
    return pyacl_ret(aclrtDeviceEnablePeerAccess(peer, flags));
}

static PyObject *rt_device_disable_peer_access(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t peer;
    if (!PyArg_ParseTuple(args, "i:device_disable_peer_access", &peer))
        return NULL;
    return pyacl_ret(aclrtDeviceDisablePeerAccess(peer));
}

static PyObject *rt_device_peer_access_status(PyObject *self, PyObject *args)
{
    (void)self;
    int32_t device, peer;
    if (!PyArg_ParseTuple(args, "ii:device_peer_access_status", &device, &peer))
        return NULL;
    int32_t status = 0;
    aclError rc = aclrtDevicePeerAccessStatus(device, peer, &status);
    return pyacl_long_ret(rc == ACL_SUCCESS ? status : 0, rc);
}

static PyMethodDef peer_methods[] = {
    {"device_can_access_peer", rt_device_can_access_peer, METH_VARARGS,
     "device_can_access_peer(device_id, peer_device_id) -> (can_access_peer, ret)"},
    {"device_enable_peer_access", rt_device_enable_peer_access, METH_VARARGS,
     "device_enable_peer_access(peer_device_id, flags) -> ret"},
    {"device_disable_peer_access", rt_device_disable_peer_access, METH_VARARGS,
     "device_disable_peer_access(peer_device_id) -> ret"},
    {"device_peer_access_status", rt_device_peer_access_status, METH_VARARGS,
     "device_peer_access_status(device_id, peer_device_id) -> (status, ret)"},
    {NULL, NULL, 0, NULL},
};

const struct pyacl_capability pyacl_cap_peer = {
    .name = "peer access",
    .methods = {[PYACL_RT] = peer_methods},
};
