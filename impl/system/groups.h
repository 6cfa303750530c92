/*
 * impl/system/groups.h - compute groups: a device's cores split into groups
 * a context's work can be given to (aclrtSetGroup and the queries).
 *
 *   A device here has one group, id 0, that holds all of it: the profile's
 *   AI Cores, AI CPUs and vector cores, the executor threads (they do the
 *   copies a device's DMA engines would: its "SDMA" count) and the streams
 *   the device may have at once. The group selected (aclrtSetGroup) belongs
 *   to the device's set, as the resource limits do: once the device is
 *   released it no longer applies. Tasks run on the same executors whatever
 *   the group.
 *
 *   The group information (aclrtGroupInfo) has the runtime's layout; an
 *   array of one per group comes from aclrtCreateGroupInfo.
 */
#ifndef ACLRT_IMPL_SYSTEM_GROUPS_H
#define ACLRT_IMPL_SYSTEM_GROUPS_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/profile.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "device_info.h"

/* The runtime's group information, field for field. */
struct tagRtGroupInfo {
    int32_t groupId;
    uint32_t flag;
    uint32_t aicoreNum;
    uint32_t aicpuNum;
    uint32_t aivectorNum;
    uint32_t sdmaNum;
    uint32_t activeStreamNum;
    void *extrPtr;
    uint32_t vfID;
    uint32_t poolID;
    uint32_t poolIDMax;
};

#define ACLRT_GROUP_COUNT 1u

/* Group i of the current device (i < ACLRT_GROUP_COUNT). */
static void aclrt_group_fill(struct tagRtGroupInfo *g, uint32_t i)
{
    const struct aclrt_profile *p = aclrt_device_profile();
    memset(g, 0, sizeof *g);
    g->groupId = (int32_t)i;
    g->aicoreNum = p->aicore != 0 ? p->aicore : aclrt_machine_cpus();
    g->aicpuNum = p->aicpu != 0 ? p->aicpu : aclrt_machine_cpus();
    g->aivectorNum = aclrt_res_cores(ACL_RT_DEV_RES_VECTOR_CORE);
    g->sdmaNum = aclrt_rt.config.executors;
    g->activeStreamNum = aclrt_rt.config.max_streams;
}

ACLRT_API aclError aclrtSetGroup(int32_t groupId)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (groupId < 0 || (uint32_t)groupId >= ACLRT_GROUP_COUNT)
        return aclrt_fail(ACL_ERROR_RT_GROUP_NOT_CREATE, "group %d does not exist on device %u (its group: 0)",
                          (int)groupId, ctx->device->id);
    return ACL_SUCCESS; /* group 0 is the whole device: the work runs where it ran */
}

ACLRT_API aclError aclrtGetGroupCount(uint32_t *count)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(count, "count", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *count = ACLRT_GROUP_COUNT;
    return ACL_SUCCESS;
}

ACLRT_API aclrtGroupInfo *aclrtCreateGroupInfo(void)
{
    ACLRT_ENTER();
    aclrtGroupInfo *g = (aclrtGroupInfo *)calloc(ACLRT_GROUP_COUNT, sizeof *g);
    if (g == NULL)
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory creating the information of %u groups", ACLRT_GROUP_COUNT);
    return g;
}

ACLRT_API aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
    ACLRT_ENTER();
    if (groupInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "groupInfo is NULL");
    free(groupInfo);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
    ACLRT_ENTER();
    if (groupInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "groupInfo is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    for (uint32_t i = 0; i < ACLRT_GROUP_COUNT; i++)
        aclrt_group_fill(&groupInfo[i], i);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr,
                                           void *attrValue, size_t valueLen, size_t *paramRetSize)
{
    ACLRT_ENTER();
    if (groupInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "groupInfo is NULL");
    if (attrValue == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attrValue (output) is NULL");
    if (paramRetSize == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "paramRetSize (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (groupIndex < 0 || (uint32_t)groupIndex >= ACLRT_GROUP_COUNT)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "groupIndex %d is outside [0, %u)", (int)groupIndex,
                          ACLRT_GROUP_COUNT);
    const struct tagRtGroupInfo *g = &groupInfo[groupIndex];
    const void *src;
    size_t len;
    switch (attr) {
    case ACL_GROUP_AICORE_INT: src = &g->aicoreNum; len = sizeof g->aicoreNum; break;
    case ACL_GROUP_AIV_INT: src = &g->aivectorNum; len = sizeof g->aivectorNum; break;
    case ACL_GROUP_AIC_INT: src = &g->aicpuNum; len = sizeof g->aicpuNum; break;
    case ACL_GROUP_SDMANUM_INT: src = &g->sdmaNum; len = sizeof g->sdmaNum; break;
    case ACL_GROUP_ASQNUM_INT: src = &g->activeStreamNum; len = sizeof g->activeStreamNum; break;
    case ACL_GROUP_GROUPID_INT: src = &g->groupId; len = sizeof g->groupId; break;
    default:
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%d is not a group attribute (aclrtGroupAttr: [0, 5])", (int)attr);
    }
    if (valueLen < len)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "valueLen %zu is shorter than the attribute's %zu bytes", valueLen,
                          len);
    memcpy(attrValue, src, len);
    *paramRetSize = len;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYSTEM_GROUPS_H */
