/*
 * impl/system/sysinfo.h - what the system says about itself: package versions,
 * CANN attributes, the SoC name and compatibility with it, half-precision
 * conversions and data type sizes.
 *
 *   - Versions: aclrt is the "runtime" package. aclsysGetVersionStr gives
 *     its version as "MAJOR.MINOR.PATCH" (ACLRT_VERSION_*) and
 *     aclsysGetVersionNum weighs it as the runtime does (major * 10000000 +
 *     minor * 100000 + patch * 1000). Every other package (driver, firmware,
 *     compiler, ...) is not installed: ACL_ERROR_INVALID_FILE, the code the
 *     runtime returns when a package's version file is missing.
 *   - CANN attributes: the list holds the attributes available, and each is
 *     0 or 1. Host kernels compute with IEEE 754 arithmetic, so Inf/NaN is
 *     available; aclrt has no operator compiler (JIT) and the host device no
 *     BF16 arithmetic of its own. Another value is ACL_ERROR_INVALID_PARAM.
 *   - The SoC of a device is the device profile's (profile.h): by default
 *     "Ascend910B1"; with the profile "host", "aclrt-" and the backend's
 *     name ("aclrt-host" for the CPU). It needs no aclInit and starts
 *     nothing: before the runtime starts it names the profile aclInit's
 *     file or the environment selects (and the backend the environment
 *     selects).
 *     aclrtCheckArchCompatibility says whether code built for a SoC runs on
 *     this one: only for this one's own name.
 *   - Half precision: the conversions of the runtime, which saturate: a
 *     float beyond the half range, Inf and NaN become +-65504 (0x7BFF /
 *     0xFBFF), rounding is to nearest even; a half with the all-ones
 *     exponent converts as if it were finite (+-Inf 65536, NaN 98304...).
 *     The formats are half.h's.
 *   - aclrtGetVersion: the ACL interface version (ACL_MAJOR_VERSION ...).
 *     aclsysGetCANNVersion: the runtime package's version in parts, as
 *     aclsysGetVersionStr gives it whole; other packages are not installed.
 *   - aclDataTypeSize: bytes per element; types smaller than a byte take
 *     one, ACL_STRING, ACL_DT_UNDEFINED and values outside the enumeration 0.
 */
#ifndef ACLRT_IMPL_SYSTEM_SYSINFO_H
#define ACLRT_IMPL_SYSTEM_SYSINFO_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/half.h"
#include "../core/profile.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"

#define ACLRT_STR_(x) #x
#define ACLRT_STR(x) ACLRT_STR_(x)
#define ACLRT_VERSION_STRING ACLRT_STR(ACLRT_VERSION_MAJOR) "." ACLRT_STR(ACLRT_VERSION_MINOR) "." ACLRT_STR(ACLRT_VERSION_PATCH)
#define ACLRT_RUNTIME_PACKAGE "runtime"
#define ACLRT_SOC_PREFIX "aclrt-"
#define ACLRT_HOST_SOC_NAME ACLRT_SOC_PREFIX "host"

/* The version of a package aclrt provides, or ACL_ERROR_INVALID_FILE. */
static aclError aclrt_package_version(const char *pkgName, const char **version, int32_t *number)
{
    if (strcmp(pkgName, ACLRT_RUNTIME_PACKAGE) != 0)
        return aclrt_fail(ACL_ERROR_INVALID_FILE,
                          "package \"%s\" is not installed: aclrt provides the \"" ACLRT_RUNTIME_PACKAGE "\" package only",
                          pkgName);
    *version = ACLRT_VERSION_STRING;
    *number = ACLRT_VERSION_MAJOR * 10000000 + ACLRT_VERSION_MINOR * 100000 + ACLRT_VERSION_PATCH * 1000;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    ACLRT_ENTER();
    if (pkgName == NULL || versionStr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", pkgName == NULL ? "pkgName" : "versionStr");
    const char *version;
    int32_t number;
    aclError rc = aclrt_package_version(pkgName, &version, &number);
    if (rc != ACL_SUCCESS)
        return rc;
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", version);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    ACLRT_ENTER();
    if (pkgName == NULL || versionNum == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", pkgName == NULL ? "pkgName" : "versionNum");
    const char *version;
    return aclrt_package_version(pkgName, &version, versionNum);
}

/* The attributes available, in the order of the enumeration; each one's value. */
static const aclCannAttr aclrt_cann_attrs[] = {ACL_CANN_ATTR_INF_NAN};

ACLRT_API aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    ACLRT_ENTER();
    if (cannAttrList == NULL || num == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", cannAttrList == NULL ? "cannAttrList" : "num");
    *cannAttrList = aclrt_cann_attrs;
    *num = ACLRT_ARRAY_SIZE(aclrt_cann_attrs);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    switch (cannAttr) {
    case ACL_CANN_ATTR_INF_NAN: *value = 1; return ACL_SUCCESS;
    case ACL_CANN_ATTR_BF16:
    case ACL_CANN_ATTR_JIT_COMPILE: *value = 0; return ACL_SUCCESS;
    default: break;
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%d is not a CANN attribute (aclCannAttr)", (int)cannAttr);
}

/* "aclrt-<backend>" for another backend than the host one; rewritten only when the backend changes. */
static char aclrt_soc_name_buf[sizeof ACLRT_SOC_PREFIX + ACLRTX_BACKEND_NAME_MAX];

/* The profile of the devices: the configuration's, or the one the environment selects (lifecycle_lock held). */
static uint32_t aclrt_soc_profile_locked(void)
{
    if (aclrt_runtime_started() || aclrt_rt.config_loaded)
        return aclrt_rt.config.profile;
    const char *f = getenv("ACLRT_PROFILE");
    int found = f != NULL ? aclrt_profile_find(f, strlen(f)) : -1;
    return found >= 0 ? (uint32_t)found : ACLRT_PROFILE_DEFAULT;
}

/* The SoC name of the devices: the profile's, or of the backend running (or the one the environment selects). */
ACLRT_INTERNAL const char *aclrt_soc_name(void)
{
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock); /* the backend and the profile change only under it */
    uint32_t profile = aclrt_soc_profile_locked();
    if (!aclrt_profile_is_host(profile)) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_profiles[profile].name;
    }
    const char *backend;
    if (aclrt_runtime_started()) {
        backend = aclrt_rt.embedder != NULL ? aclrt_rt.embedder->name : aclrt_rt.backend->name;
    } else {
        backend = getenv("ACLRT_BACKEND");
        if (backend == NULL || backend[0] == '\0')
            backend = "host";
    }
    const char *name = ACLRT_HOST_SOC_NAME;
    if (strcmp(backend, "host") != 0) {
        char fresh[sizeof aclrt_soc_name_buf];
        snprintf(fresh, sizeof fresh, ACLRT_SOC_PREFIX "%s", backend);
        if (strcmp(fresh, aclrt_soc_name_buf) != 0) /* a name handed out before is rewritten only if it changed */
            memcpy(aclrt_soc_name_buf, fresh, sizeof fresh);
        name = aclrt_soc_name_buf;
    }
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return name;
}

ACLRT_API const char *aclrtGetSocName(void)
{
    ACLRT_ENTER();
    return aclrt_soc_name();
}

ACLRT_API aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    ACLRT_ENTER();
    if (socVersion == NULL || canCompatible == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s is NULL", socVersion == NULL ? "socVersion" : "canCompatible");
    if (socVersion[0] == '\0')
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "socVersion is empty");
    *canCompatible = strcmp(socVersion, aclrt_soc_name()) == 0 ? 1 : 0;
    return ACL_SUCCESS;
}

ACLRT_API float aclFloat16ToFloat(aclFloat16 value)
{
    return (float)aclrt_f16_decode(value, false); /* exact: every half is a float */
}

ACLRT_API aclFloat16 aclFloatToFloat16(float value)
{
    return aclrt_f16_from_float_saturating(value);
}

ACLRT_API size_t aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_DT_UNDEFINED:
    case ACL_STRING: return 0;
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2: return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The ACL interface version and the deprecated package query
 * ------------------------------------------------------------------------ */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
ACLRT_API aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    ACLRT_ENTER();
    if (majorVersion == NULL || minorVersion == NULL || patchVersion == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL",
                          majorVersion == NULL ? "majorVersion" : minorVersion == NULL ? "minorVersion" : "patchVersion");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

/*
 * The version of a package by its enumerated name: the runtime's is
 * aclrt's, split into its parts (release and reserved empty); every other
 * package is not installed (ACL_ERROR_INVALID_FILE, as the runtime says
 * when a package's version file is missing).
 */
ACLRT_API aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    ACLRT_ENTER();
    if (version == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "version (output) is NULL");
    if ((int)name < ACL_PKG_NAME_CANN || (int)name > ACL_PKG_NAME_DRIVER)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name %d is not an aclCANNPackageName", (int)name);
    if (name != ACL_PKG_NAME_RUNTIME)
        return aclrt_fail(ACL_ERROR_INVALID_FILE,
                          "package %d is not installed: aclrt provides the runtime package (ACL_PKG_NAME_RUNTIME) only",
                          (int)name);
    memset(version, 0, sizeof *version);
    snprintf(version->version, sizeof version->version, "%s", ACLRT_VERSION_STRING);
    snprintf(version->majorVersion, sizeof version->majorVersion, "%d", ACLRT_VERSION_MAJOR);
    snprintf(version->minorVersion, sizeof version->minorVersion, "%d", ACLRT_VERSION_MINOR);
    snprintf(version->patchVersion, sizeof version->patchVersion, "%d", ACLRT_VERSION_PATCH);
    return ACL_SUCCESS;
}
#pragma GCC diagnostic pop

#endif /* ACLRT_IMPL_SYSTEM_SYSINFO_H */
