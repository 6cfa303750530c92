/*
 * impl/system/platform.h - what the platform says of itself: the queries of
 * acl/acl_platform.h and aclGetDeviceCapability (acl_base_rt.h).
 *
 *   The figures are those of the device profile's SoC (core/profile.h), as
 *   CANN's platform file for that SoC gives them: core counts, global
 *   memory and L2 from the profile; the AI Core's buffers (UB, L0A/B/C, L1,
 *   BT), its frequency, the AIC version and the NPU architecture from the
 *   table below (the Atlas A2 SoCs share all but the frequency). A figure
 *   the SoC's file leaves empty or lacks (the memory type, the vector core
 *   frequency) is ACL_ERROR_INVALID_PARAM, as in the runtime [src]. The
 *   profile "host" has its core counts, memory and L2 (the machine's) and
 *   its SoC name, and none of the AI Core figures.
 *   Values are text: numbers in decimal. A buffer too small for the text and
 *   its NUL is ACL_ERROR_INVALID_PARAM.
 *   Instructions: the data types each takes, from the same file; the AI and
 *   vector cores of these SoCs list the same ones. The table holds the
 *   instructions that vector code asks about most; another name is
 *   ACL_ERROR_INVALID_PARAM, as an instruction the file lacks.
 *   aclGetDeviceCapability reads a device's figures as aclrtGetDeviceInfo
 *   does (its core counts follow the resource limits set on it).
 */
#ifndef ACLRT_IMPL_SYSTEM_PLATFORM_H
#define ACLRT_IMPL_SYSTEM_PLATFORM_H

#include "../core/base.h" /* first: it sets up the system headers' feature macros */
#include "../../acl/acl_platform.h"
#include "../core/error.h"
#include "../core/profile.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "device_info.h"
#include "sysinfo.h"

#include <inttypes.h>

/* The AI Core figures of a SoC's platform file. */
struct aclrt_platform_soc {
    const char *soc;
    uint32_t cube_freq_mhz;
};

static const struct aclrt_platform_soc aclrt_platform_socs[] = {
    {"Ascend910B1", 1850},    {"Ascend910B2", 1800},    {"Ascend910B3", 1800},
    {"Ascend910B4", 1500},    {"Ascend910_9391", 1850}, {"Ascend910_9392", 1800},
};
/* Shared by every SoC above (Atlas A2/A3, AIC-C-220). */
#define ACLRT_PLATFORM_UB_SIZE 196608
#define ACLRT_PLATFORM_L0_A_SIZE 65536
#define ACLRT_PLATFORM_L0_B_SIZE 65536
#define ACLRT_PLATFORM_L0_C_SIZE 131072
#define ACLRT_PLATFORM_L1_SIZE 524288
#define ACLRT_PLATFORM_BT_SIZE 1024
#define ACLRT_PLATFORM_AIC_VERSION "AIC-C-220"

static const struct {
    const char *name, *types;
} aclrt_platform_instructions[] = {
    {"Intrinsic_vrec", "float16,float32"},
    {"Intrinsic_vadd", "float16,float32,int32,int16"},
    {"Intrinsic_vadds", "float16,float32,int32,int16"},
    {"Intrinsic_vsub", "float16,float32,int32,int16"},
    {"Intrinsic_vdiv", "float16,float32"},
    {"Intrinsic_vrsqrt", "float16,float32"},
    {"Intrinsic_vmul", "float16,float32,int32,int16"},
    {"Intrinsic_vmax", "float16,float32,int32,int16"},
    {"Intrinsic_vmin", "float16,float32,int32,int16"},
    {"Intrinsic_vln", "float16,float32"},
    {"Intrinsic_vexp", "float16,float32"},
};

static const struct aclrt_platform_soc *aclrt_platform_soc_of(const struct aclrt_profile *p)
{
    for (size_t i = 0; i < ACLRT_ARRAY_SIZE(aclrt_platform_socs); i++)
        if (strcmp(aclrt_platform_socs[i].soc, p->name) == 0)
            return &aclrt_platform_socs[i];
    return NULL;
}

static aclError aclrt_platform_put(char *value, uint32_t maxLen, const char *text)
{
    size_t need = strlen(text) + 1;
    if (need > maxLen)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value holds %u bytes; \"%s\" needs %zu", maxLen, text, need);
    memcpy(value, text, need);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclplatformGetDeviceInfo(aclplatformDevInfo infoType, char *value, uint32_t maxLen)
{
    ACLRT_ENTER();
    if ((unsigned)infoType > ACL_PLATFORM_MEMORY_TYPE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "infoType %d is not an aclplatformDevInfo", (int)infoType);
    if (value == NULL || maxLen == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s", value == NULL ? "value is NULL" : "maxLen is 0");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_profile *p = aclrt_device_profile();
    const struct aclrt_platform_soc *soc = aclrt_platform_soc_of(p);
    uint64_t n = 0;
    switch (infoType) {
    case ACL_PLATFORM_AICORE_CNT: n = p->aicore != 0 ? p->aicore : aclrt_machine_cpus(); break;
    case ACL_PLATFORM_CUBE_CORE_CNT: n = p->cube != 0 ? p->cube : aclrt_machine_cpus(); break;
    case ACL_PLATFORM_VECTOR_CORE_CNT: n = p->vector != 0 ? p->vector : aclrt_machine_cpus(); break;
    case ACL_PLATFORM_L2_SIZE: n = p->l2 != 0 ? p->l2 : (uint64_t)aclrt_machine_l2(); break;
    case ACL_PLATFORM_MEMORY_SIZE: n = (uint64_t)aclrt_device_memory(); break;
    case ACL_PLATFORM_SOC_VERSION: return aclrt_platform_put(value, maxLen, aclrt_soc_name());
    case ACL_PLATFORM_VEC_FREQ:
    case ACL_PLATFORM_MEMORY_TYPE:
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the platform file of %s has no value for info type %d",
                          aclrt_soc_name(), (int)infoType);
    default:
        if (soc == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s has no AI Core: no value for info type %d",
                              aclrt_soc_name(), (int)infoType);
        switch (infoType) {
        case ACL_PLATFORM_AICORE_UB_SIZE: n = ACLRT_PLATFORM_UB_SIZE; break;
        case ACL_PLATFORM_CUBE_FREQ: n = soc->cube_freq_mhz; break;
        case ACL_PLATFORM_BT_SIZE: n = ACLRT_PLATFORM_BT_SIZE; break;
        case ACL_PLATFORM_L0_A_SIZE: n = ACLRT_PLATFORM_L0_A_SIZE; break;
        case ACL_PLATFORM_L0_B_SIZE: n = ACLRT_PLATFORM_L0_B_SIZE; break;
        case ACL_PLATFORM_L0_C_SIZE: n = ACLRT_PLATFORM_L0_C_SIZE; break;
        case ACL_PLATFORM_L1_SIZE: n = ACLRT_PLATFORM_L1_SIZE; break;
        case ACL_PLATFORM_AIC_VERSION: return aclrt_platform_put(value, maxLen, ACLRT_PLATFORM_AIC_VERSION);
        case ACL_PLATFORM_NPU_ARCH: n = DAV_2201; break;
        default: break;
        }
    }
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, n);
    return aclrt_platform_put(value, maxLen, text);
}

ACLRT_API aclError aclplatformGetInstructionInfo(aclplatformCoreType type, const char *instruction, char *value,
                                                 uint32_t maxLen)
{
    ACLRT_ENTER();
    if (type != ACL_PLATFORM_CORE_TYPE_AI_CORE && type != ACL_PLATFORM_CORE_TYPE_VECTOR_CORE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type %d is not an aclplatformCoreType", (int)type);
    if (instruction == NULL || value == NULL || maxLen == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s",
                          instruction == NULL ? "instruction is NULL" : value == NULL ? "value is NULL" : "maxLen is 0");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_platform_soc_of(aclrt_device_profile()) != NULL)
        for (size_t i = 0; i < ACLRT_ARRAY_SIZE(aclrt_platform_instructions); i++)
            if (strcmp(aclrt_platform_instructions[i].name, instruction) == 0)
                return aclrt_platform_put(value, maxLen, aclrt_platform_instructions[i].types);
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "instruction \"%.64s\" is not one %s lists for core type %d",
                      instruction, aclrt_soc_name(), (int)type);
}

ACLRT_API aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    if (deviceInfo != ACL_DEVICE_INFO_AI_CORE_NUM && deviceInfo != ACL_DEVICE_INFO_VECTOR_CORE_NUM &&
        deviceInfo != ACL_DEVICE_INFO_L2_SIZE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceInfo %d is not an aclDeviceInfo", (int)deviceInfo);
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (deviceId >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "device id %u is out of range [0, %u)", deviceId,
                          aclrt_rt.device_count);
    /* The figures aclrtGetDeviceInfo gives for the same device. */
    const struct aclrt_profile *p = aclrt_device_profile();
    if (deviceInfo == ACL_DEVICE_INFO_AI_CORE_NUM)
        *value = p->aicore != 0 ? p->aicore : aclrt_machine_cpus();
    else if (deviceInfo == ACL_DEVICE_INFO_VECTOR_CORE_NUM)
        *value = aclrt_res_cores(ACL_RT_DEV_RES_VECTOR_CORE);
    else
        *value = p->l2 != 0 ? (int64_t)p->l2 : aclrt_machine_l2();
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYSTEM_PLATFORM_H */
