/*
 * impl/core/profile.h - device profiles: the SoC a device reports, its core counts, memory and caches.
 *
 *   A program written for an NPU sizes its work by what the device says it
 *   has: aclrtGetSocName, aclrtGetDeviceInfo's core counts and memory, the
 *   resource limits it may set (at most the cores). The profile chosen by
 *   the configuration (aclrt.profile, ACLRT_PROFILE) is what every device
 *   reports; the work still runs on the machine's CPUs, with as many
 *   executor threads as the configuration says.
 *
 *   The profiles are named after the SoC they describe, with its figures:
 *   AI Core, cube and vector core counts, AI CPUs, global memory (HBM), L2
 *   cache and the unified buffer of a vector core. The default is
 *   Ascend910B1 (an Atlas A2 training device: 24 cube and 48 vector cores,
 *   64 GiB). The profile "host" reports the machine instead: as many cores
 *   of every kind as the CPUs the process may run on, the machine's RAM and
 *   the CPU's L2, and the SoC name "aclrt-<backend>" (a 0 below means "the
 *   machine's").
 */
#ifndef ACLRT_IMPL_CORE_PROFILE_H
#define ACLRT_IMPL_CORE_PROFILE_H

#include "base.h"

struct aclrt_profile {
    const char *name; /* the configuration's value, and the SoC name (but "host") */
    uint32_t aicore;  /* AI Cores (a cube core and its vector cores) */
    uint32_t cube;    /* cube cores: the limit of ACL_RT_DEV_RES_CUBE_CORE */
    uint32_t vector;  /* vector cores: the limit of ACL_RT_DEV_RES_VECTOR_CORE */
    uint32_t aicpu;   /* AI CPUs */
    uint64_t memory;  /* global memory (HBM) in bytes */
    uint64_t l2;      /* L2 cache in bytes */
    uint64_t ubuf;    /* unified buffer of a vector core in bytes */
};

#define ACLRT_GIB (UINT64_C(1) << 30)
#define ACLRT_MIB (UINT64_C(1) << 20)

static const struct aclrt_profile aclrt_profiles[] = {
    {"Ascend910B1", 24, 24, 48, 6, 64 * ACLRT_GIB, 192 * ACLRT_MIB, 192 * 1024}, /* the default: first */
    {"Ascend910B2", 24, 24, 48, 6, 64 * ACLRT_GIB, 192 * ACLRT_MIB, 192 * 1024},
    {"Ascend910B3", 20, 20, 40, 6, 64 * ACLRT_GIB, 192 * ACLRT_MIB, 192 * 1024},
    {"Ascend910B4", 20, 20, 40, 6, 32 * ACLRT_GIB, 96 * ACLRT_MIB, 192 * 1024},
    {"Ascend910_9391", 24, 24, 48, 6, 64 * ACLRT_GIB, 192 * ACLRT_MIB, 192 * 1024},
    {"Ascend910_9392", 24, 24, 48, 6, 64 * ACLRT_GIB, 192 * ACLRT_MIB, 192 * 1024},
    {"host", 0, 0, 0, 0, 0, 0, 0},
};

#define ACLRT_PROFILE_COUNT ((uint32_t)ACLRT_ARRAY_SIZE(aclrt_profiles))
#define ACLRT_PROFILE_DEFAULT 0u

/* The index of the profile named s (n bytes), or -1. */
ACLRT_INTERNAL int aclrt_profile_find(const char *s, size_t n)
{
    for (uint32_t i = 0; i < ACLRT_PROFILE_COUNT; i++)
        if (strlen(aclrt_profiles[i].name) == n && memcmp(aclrt_profiles[i].name, s, n) == 0)
            return (int)i;
    return -1;
}

/* Whether profile i reports the machine rather than a SoC's figures. */
ACLRT_INLINE bool aclrt_profile_is_host(uint32_t i)
{
    return aclrt_profiles[i].aicore == 0;
}

/* The profiles' names, ", "-separated, into buf (for messages). */
ACLRT_INTERNAL const char *aclrt_profile_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < ACLRT_PROFILE_COUNT && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", aclrt_profiles[i].name);
    return buf;
}

#endif /* ACLRT_IMPL_CORE_PROFILE_H */
