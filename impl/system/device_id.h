/*
 * impl/system/device_id.h - who a device is: its UUID, PCI bus id, topology between devices, and its ids.
 *
 *   - UUID: 16 bytes, the same for a device id on a machine in every
 *     process (programs that share devices across processes match them by
 *     it): a hash of the machine's id (/etc/machine-id, else the host
 *     name) and the device id, with the variant and version bits of an
 *     RFC 9562 name-based UUID (version 8), so that two devices never share
 *     one.
 *   - PCI bus id: synthesized, "0000:<bus>:00.0" with bus 0x01 + the device
 *     id (13 bytes with the NUL): unique in the process, as the runtime's
 *     ids are in a virtual machine. aclrtDeviceGetByPCIBusId reads the same
 *     format back (hexadecimal digits in either case).
 *   - Topology: the devices of a process share the machine's coherent
 *     memory, so every pair, a device with itself included, reports
 *     ACL_RT_DEVS_TOPOLOGY_HCCS.
 *   - Ids: there is no container and no ASCEND_RT_VISIBLE_DEVICES
 *     remapping, so a user, logical and physical device id are the same
 *     number; each conversion checks it is a device of the configuration.
 *   A device id outside the configuration is ACL_ERROR_RT_INVALID_DEVICEID
 *   (aclrtGetDevicesTopo: ACL_ERROR_RT_PARAM_INVALID, its ids being
 *   unsigned as aclrtGetDeviceInfo's), a NULL output ACL_ERROR_INVALID_PARAM.
 */
#ifndef ACLRT_IMPL_SYSTEM_DEVICE_ID_H
#define ACLRT_IMPL_SYSTEM_DEVICE_ID_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"

#define ACLRT_PCI_BUS_ID_LEN 13 /* "0000:01:00.0" and the NUL */

/* FNV-1a, 64 bits, of n bytes of p continuing from h. */
static uint64_t aclrt_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* The machine's id: /etc/machine-id's text, else the host name, else "". */
static void aclrt_machine_id(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/etc/machine-id", "r");
    if (f != NULL) {
        bool ok = fgets(buf, (int)size, f) != NULL;
        fclose(f);
        if (ok && buf[0] != '\0')
            return;
    }
    if (gethostname(buf, size) != 0)
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

ACLRT_API aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    ACLRT_ENTER();
    if (uuid == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "uuid (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    char machine[256];
    aclrt_machine_id(machine, sizeof machine);
    uint64_t h = aclrt_fnv1a(UINT64_C(0xcbf29ce484222325), "aclrt device ", 13);
    h = aclrt_fnv1a(h, machine, strlen(machine));
    uint64_t hi = h, lo = aclrt_fnv1a(h, &dev->id, sizeof dev->id);
    /* The device id itself in the low bits: unique per device whatever the hash. */
    lo = (lo & ~UINT64_C(0xffff)) | (uint64_t)(dev->id & 0xffff);
    unsigned char b[16];
    for (int i = 0; i < 8; i++) {
        b[i] = (unsigned char)(hi >> (56 - 8 * i));
        b[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x80); /* version 8 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* variant 10 */
    memcpy(uuid->bytes, b, sizeof b);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)
{
    ACLRT_ENTER();
    if (pciBusId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pciBusId (output) is NULL");
    if (len < ACLRT_PCI_BUS_ID_LEN)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "len %d is too short: a PCI bus id takes %d bytes", (int)len,
                          ACLRT_PCI_BUS_ID_LEN);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    snprintf(pciBusId, ACLRT_PCI_BUS_ID_LEN, "0000:%02x:00.0", (unsigned)(dev->id + 1) & 0xffu);
    return ACL_SUCCESS;
}

/* The value of n hexadecimal digits at s, or -1. */
static long aclrt_hex_field(const char *s, int n)
{
    long v = 0;
    for (int i = 0; i < n; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

ACLRT_API aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)
{
    ACLRT_ENTER();
    if (pciBusId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pciBusId is NULL");
    if (deviceId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceId (output) is NULL");
    if (strlen(pciBusId) != ACLRT_PCI_BUS_ID_LEN - 1 || pciBusId[4] != ':' || pciBusId[7] != ':' ||
        pciBusId[10] != '.' || aclrt_hex_field(pciBusId, 4) < 0 || aclrt_hex_field(pciBusId + 5, 2) < 0 ||
        aclrt_hex_field(pciBusId + 8, 2) < 0 || aclrt_hex_field(pciBusId + 11, 1) < 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "\"%.32s\" is not a PCI bus id (domain:bus:device.function, "
                                                   "e.g. 0000:01:00.0)", pciBusId);
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    long bus = aclrt_hex_field(pciBusId + 5, 2);
    if (aclrt_hex_field(pciBusId, 4) != 0 || aclrt_hex_field(pciBusId + 8, 2) != 0 ||
        aclrt_hex_field(pciBusId + 11, 1) != 0 || bus < 1 || (uint32_t)bus > aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_INVALID_DEVICEID, "no device has PCI bus id %s (the %u devices have "
                                                         "0000:01:00.0 to 0000:%02x:00.0)",
                          pciBusId, aclrt_rt.device_count, aclrt_rt.device_count);
    *deviceId = (int32_t)(bus - 1);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (deviceId >= aclrt_rt.device_count || otherDeviceId >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "device id %u is out of range [0, %u)",
                          deviceId >= aclrt_rt.device_count ? deviceId : otherDeviceId, aclrt_rt.device_count);
    *value = ACL_RT_DEVS_TOPOLOGY_HCCS;
    return ACL_SUCCESS;
}

/* One id to another: the same number, for a device of the configuration. */
static aclError aclrt_device_id_map(int32_t id, int32_t *out, const char *what)
{
    if (out == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", what);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(id, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    *out = id;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    ACLRT_ENTER();
    return aclrt_device_id_map(userDevid, logicDevId, "logicDevId");
}

ACLRT_API aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    ACLRT_ENTER();
    return aclrt_device_id_map(logicDevId, userDevid, "userDevid");
}

ACLRT_API aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    ACLRT_ENTER();
    return aclrt_device_id_map(phyDevId, logicDevId, "logicDevId");
}

ACLRT_API aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    ACLRT_ENTER();
    return aclrt_device_id_map(logicDevId, phyDevId, "phyDevId");
}

ACLRT_API aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
    ACLRT_ENTER();
    return aclrt_device_id_map(phyDevId, userDevId, "userDevId");
}

ACLRT_API aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
    ACLRT_ENTER();
    return aclrt_device_id_map(userDevId, phyDevId, "phyDevId");
}

#endif /* ACLRT_IMPL_SYSTEM_DEVICE_ID_H */
