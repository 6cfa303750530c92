/*
 * acl/acl_platform.h - the platform queries of CANN's acl_platform.h: what
 * the SoC of the device profile says of itself (core counts, memory and
 * buffer sizes, frequencies, versions) and which data types an instruction
 * takes. Kept out of aclrt.h, as CANN keeps it out of acl/acl.h: its short
 * enumerators (L1, UB, HBM, DAV_2201 ...) would otherwise be in every
 * program. What each call does on aclrt: docs/SEMANTICS.md, "Platform
 * information".
 */
#ifndef ACLRT_ACL_PLATFORM_H
#define ACLRT_ACL_PLATFORM_H

#include "../aclrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclplatformDevInfo {
    ACL_PLATFORM_AICORE_CNT = 0,
    ACL_PLATFORM_AICORE_UB_SIZE = 1,
    ACL_PLATFORM_CUBE_CORE_CNT = 2,
    ACL_PLATFORM_VECTOR_CORE_CNT = 3,
    ACL_PLATFORM_L2_SIZE = 4,
    ACL_PLATFORM_MEMORY_SIZE = 5,
    ACL_PLATFORM_CUBE_FREQ = 6,
    ACL_PLATFORM_VEC_FREQ = 7,
    ACL_PLATFORM_BT_SIZE = 8,
    ACL_PLATFORM_L0_A_SIZE = 9,
    ACL_PLATFORM_L0_B_SIZE = 10,
    ACL_PLATFORM_L0_C_SIZE = 11,
    ACL_PLATFORM_L1_SIZE = 12,
    ACL_PLATFORM_SOC_VERSION = 13,
    ACL_PLATFORM_AIC_VERSION = 14,
    ACL_PLATFORM_NPU_ARCH = 15,
    ACL_PLATFORM_MEMORY_TYPE = 16,
} aclplatformDevInfo;

typedef enum aclplatformCoreType {
    ACL_PLATFORM_CORE_TYPE_AI_CORE = 0,
    ACL_PLATFORM_CORE_TYPE_VECTOR_CORE = 1,
} aclplatformCoreType;

typedef enum aclplatformNpuArch {
    DAV_1001 = 1001,
    DAV_2002 = 2002,
    DAV_2102 = 2102,
    DAV_2201 = 2201,
    DAV_3002 = 3002,
    DAV_3003 = 3003,
    DAV_3004 = 3004,
    DAV_3102 = 3102,
    DAV_3113 = 3113,
    DAV_3505 = 3505,
    DAV_3510 = 3510,
    DAV_5102 = 5102,
    DAV_5162 = 5162,
    DAV_RESV = 0xFFFF
} aclplatformNpuArch;

/* The local memories, each the size of one aclplatformDevInfo (L2: ACL_PLATFORM_L2_SIZE, ...). */
typedef enum aclplatformLocalMemType {
    L0_A = 0,
    L0_B = 1,
    L0_C = 2,
    L1 = 3,
    L2 = 4,
    UB = 5,
    HBM = 6
} aclplatformLocalMemType;

/* One figure of the platform, as text (a number in decimal, or a name), into value[maxLen]. */
ACLRT_API aclError aclplatformGetDeviceInfo(aclplatformDevInfo infoType, char *value, uint32_t maxLen);
/* The data types an instruction ("Intrinsic_vadd", ...) of a core type takes, ","-separated. */
ACLRT_API aclError aclplatformGetInstructionInfo(aclplatformCoreType type, const char *instruction, char *value,
                                                 uint32_t maxLen);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_ACL_PLATFORM_H */
