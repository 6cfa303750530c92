/*
 * tests/test_runtime_options.c - data buffers, application logs, device
 * capabilities and platform figures, init and finalize callbacks, versions,
 * system parameter options and operator execution timeouts.
 *
 * Each case starts and ends with the runtime finalized, so that the init
 * callbacks' cases own aclInit and aclFinalize.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp, pread */
#include "check.h"

#include "acl/acl_platform.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define KERNELS ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so"

static void start(void)
{
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
}

static void stop(void)
{
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
}

/* ------------------------------------------------------------------------
 * Data buffers
 * ------------------------------------------------------------------------ */

TEST(a_data_buffer_describes_memory_it_does_not_own)
{
    char a[16], b[40];
    aclDataBuffer *buf = aclCreateDataBuffer(a, sizeof a); /* no aclInit needed */
    CHECK(buf != NULL);
    CHECK(aclGetDataBufferAddr(buf) == a);
    CHECK_EQ(sizeof a, aclGetDataBufferSizeV2(buf));
    CHECK_OK(aclUpdateDataBuffer(buf, b, sizeof b));
    CHECK(aclGetDataBufferAddr(buf) == b);
    CHECK_EQ(sizeof b, aclGetDataBufferSizeV2(buf));
    CHECK_OK(aclDestroyDataBuffer(buf));
    a[0] = 'x'; /* the memory is still the caller's */
    CHECK_EQ('x', a[0]);

    aclDataBuffer *empty = aclCreateDataBuffer(NULL, 0); /* an empty output */
    CHECK(empty != NULL);
    CHECK(aclGetDataBufferAddr(empty) == NULL);
    CHECK_EQ(0, aclGetDataBufferSizeV2(empty));
    CHECK_OK(aclDestroyDataBuffer(empty));
}

TEST(the_deprecated_size_is_cut_to_32_bits)
{
    char c;
    aclDataBuffer *buf = aclCreateDataBuffer(&c, ((size_t)1 << 32) + 7);
    CHECK(buf != NULL);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CHECK_EQ(7, aclGetDataBufferSize(buf));
#pragma GCC diagnostic pop
    CHECK_EQ(((size_t)1 << 32) + 7, aclGetDataBufferSizeV2(buf));
    CHECK_OK(aclDestroyDataBuffer(buf));
}

TEST(a_null_data_buffer_is_refused_with_a_message)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclUpdateDataBuffer(NULL, NULL, 0));
    (void)aclGetRecentErrMsg();
    CHECK(aclGetDataBufferAddr(NULL) == NULL);
    CHECK(strstr(aclGetRecentErrMsg(), "dataBuffer is NULL") != NULL);
    CHECK_EQ(0, aclGetDataBufferSizeV2(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}

/* ------------------------------------------------------------------------
 * Application logs
 * ------------------------------------------------------------------------ */

/* What fn wrote to stderr, into out (NUL-terminated). */
static size_t captured_stderr(void (*fn)(void), char *out, size_t size)
{
    char path[] = "/tmp/aclrt_app_log_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    CHECK(dup2(fd, STDERR_FILENO) >= 0);
    fn();
    fflush(stderr);
    CHECK(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    ssize_t n = pread(fd, out, size - 1, 0);
    close(fd);
    CHECK(n >= 0);
    out[n] = '\0';
    return (size_t)n;
}

static void log_each_level(void)
{
    aclAppLog(ACL_DEBUG, "fn_debug", "/a/b/file.c", 11, "debug %d", 1);
    aclAppLog(ACL_INFO, "fn_info", "/a/b/file.c", 12, "info %s", "two");
    aclAppLog(ACL_WARNING, "fn_warning", "/a/b/file.c", 13, "warning");
    ACL_APP_LOG(ACL_ERROR, "error %u", 4u);
}

TEST(app_logs_at_or_above_the_environments_level_reach_stderr)
{
    char out[4096];
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "1", 1);
    captured_stderr(log_each_level, out, sizeof out);
    CHECK(strstr(out, "debug 1") == NULL);
    CHECK(strstr(out, "[INFO] APP(") != NULL);
    CHECK(strstr(out, "[file.c:12]fn_info: info two\n") != NULL);
    CHECK(strstr(out, "[WARNING]") != NULL && strstr(out, "fn_warning: warning\n") != NULL);
    CHECK(strstr(out, "[ERROR]") != NULL && strstr(out, "error 4\n") != NULL);
    CHECK(strstr(out, "log_each_level: error 4") != NULL); /* ACL_APP_LOG names the function */
    CHECK(strstr(out, "info two") < strstr(out, "error 4")); /* in the order of the calls */

    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 1); /* none */
    CHECK_EQ(0, captured_stderr(log_each_level, out, sizeof out));
    unsetenv("ASCEND_GLOBAL_LOG_LEVEL"); /* the default: errors only */
    captured_stderr(log_each_level, out, sizeof out);
    CHECK(strstr(out, "info two") == NULL && strstr(out, "warning") == NULL);
    CHECK(strstr(out, "error 4") != NULL);
}

static void log_a_long_message(void)
{
    char big[3000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    aclAppLog(ACL_ERROR, "fn", "f.c", 1, "%s", big);
    aclAppLog(ACL_ERROR, "fn", "f.c", 2, NULL); /* nothing to format: nothing logged */
}

TEST(a_long_app_log_message_is_cut_and_marked)
{
    char out[8192];
    captured_stderr(log_a_long_message, out, sizeof out);
    const char *msg = strstr(out, "fn: y");
    CHECK(msg != NULL);
    msg += strlen("fn: ");
    const char *mark = strstr(msg, "...[truncated]\n");
    CHECK(mark != NULL);
    CHECK_EQ(1023, mark + strlen("...[truncated]") - msg); /* the message, mark included, fills 1023 bytes */
    CHECK(strcmp(mark, "...[truncated]\n") == 0);            /* the last line: the NULL format logged nothing */
}

/* ------------------------------------------------------------------------
 * Device capabilities and platform figures
 * ------------------------------------------------------------------------ */

TEST(device_capabilities_are_the_device_infos)
{
    start();
    int64_t cap, info;
    CHECK_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cap));
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &info));
    CHECK(cap > 0);
    CHECK_EQ(info, cap);
    CHECK_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &cap));
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &info));
    CHECK_EQ(info, cap);
    CHECK_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &cap));
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &info));
    CHECK_EQ(info, cap);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &cap));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclGetDeviceCapability(999, ACL_DEVICE_INFO_AI_CORE_NUM, &cap));
    stop();
}

TEST(platform_figures_are_the_profiles_socs)
{
    start();
    char v[64];
    int64_t n;
    CHECK_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_SOC_VERSION, v, sizeof v));
    CHECK(strcmp(v, aclrtGetSocName()) == 0);
    CHECK_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_AICORE_CNT, v, sizeof v));
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &n));
    CHECK_EQ(n, atoll(v));
    CHECK_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_MEMORY_SIZE, v, sizeof v));
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &n));
    CHECK_EQ(n, atoll(v));
    if (strncmp(aclrtGetSocName(), "Ascend910", 9) == 0) { /* the default profile: an Atlas A2 SoC */
        CHECK_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_NPU_ARCH, v, sizeof v));
        CHECK_EQ(DAV_2201, atoi(v));
        CHECK_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_L0_C_SIZE, v, sizeof v));
        CHECK(strcmp(v, "131072") == 0);
        CHECK_OK(aclplatformGetDeviceInfo(ACL_PLATFORM_AIC_VERSION, v, sizeof v));
        CHECK(strcmp(v, "AIC-C-220") == 0);
        CHECK_OK(aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_VECTOR_CORE, "Intrinsic_vadd", v, sizeof v));
        CHECK(strcmp(v, "float16,float32,int32,int16") == 0);
        CHECK_OK(aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE, "Intrinsic_vexp", v, sizeof v));
        CHECK(strcmp(v, "float16,float32") == 0);
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE,
                                                                       "Intrinsic_vadd", v, 5)); /* too small */
    }
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetDeviceInfo(ACL_PLATFORM_MEMORY_TYPE, v, sizeof v)); /* empty */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetDeviceInfo(ACL_PLATFORM_SOC_VERSION, v, 3));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetDeviceInfo((aclplatformDevInfo)17, v, sizeof v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetDeviceInfo(ACL_PLATFORM_AICORE_CNT, NULL, 8));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetDeviceInfo(ACL_PLATFORM_AICORE_CNT, v, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE, "Intrinsic_nope", v, sizeof v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclplatformGetInstructionInfo((aclplatformCoreType)2, "Intrinsic_vadd", v, sizeof v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclplatformGetInstructionInfo(ACL_PLATFORM_CORE_TYPE_AI_CORE, NULL, v, 8));
    stop();
}

/* ------------------------------------------------------------------------
 * Init and finalize callbacks
 * ------------------------------------------------------------------------ */

static char order[32];
static size_t order_len;
static char seen_config[256];
static size_t seen_len;
static aclError init_result = ACL_SUCCESS;
static aclError final_result = ACL_SUCCESS;

static void note(char c)
{
    if (order_len < sizeof order - 1)
        order[order_len++] = c;
    order[order_len] = '\0';
}

static aclError init_cb(const char *configStr, size_t len, void *user)
{
    note(*(const char *)user);
    seen_len = len;
    snprintf(seen_config, sizeof seen_config, "%s", configStr);
    return *(const char *)user == 'F' ? init_result : ACL_SUCCESS;
}

static aclError init_cb2(const char *configStr, size_t len, void *user)
{
    return init_cb(configStr, len, user);
}

static aclError final_cb(void *user)
{
    note(*(const char *)user);
    return *(const char *)user == 'F' ? final_result : ACL_SUCCESS;
}

static aclError final_cb2(void *user)
{
    return final_cb(user);
}

static void reset_order(void)
{
    order_len = 0;
    order[0] = '\0';
}

static const char *write_config(void)
{
    static char path[] = "/tmp/aclrt_options_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = "{\"aclrt\": {\"devices\": 1}}";
    CHECK_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
    close(fd);
    return path;
}

TEST(init_callbacks_run_in_the_runtimes_order_with_the_configuration_text)
{
    static const char M = 'M', E = 'E', D = 'D', O1 = '1', O2 = '2', C = 'C';
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb, (void *)&O1));
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_cb, (void *)&D));
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, init_cb, (void *)&E));
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, (void *)&M));
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, init_cb2, (void *)&O2));
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_CBLAS, init_cb, (void *)&C)); /* never called at init */
    const char *path = write_config();

    reset_order();
    CHECK_OK(aclInit(path));
    CHECK(strcmp(order, "MED12") == 0);
    CHECK(strcmp(seen_config, "{\"aclrt\": {\"devices\": 1}}") == 0);
    CHECK_EQ(strlen(seen_config), seen_len);
    reset_order();
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(path)); /* a repeat calls nothing */
    CHECK_EQ(0, order_len);
    CHECK_OK(aclFinalize());

    reset_order();
    CHECK_OK(aclInit(NULL)); /* without a file: no operator executor, an empty text */
    CHECK(strcmp(order, "MD12") == 0);
    CHECK_EQ(0, seen_len);
    CHECK_OK(aclFinalize());
    unlink(path);

    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_cb));
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_cb2));
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb));
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, init_cb));
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_cb));
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_OP_CBLAS, init_cb));
    reset_order();
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(0, order_len);
    CHECK_OK(aclFinalize());
}

TEST(a_failing_init_callback_fails_aclinit_and_leaves_the_runtime_uninitialised)
{
    static const char F = 'F';
    init_result = ACL_ERROR_INVALID_FILE;
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, (void *)&F));
    CHECK_EQ(ACL_ERROR_INVALID_FILE, aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize()); /* nothing to finalize */
    init_result = ACL_SUCCESS;
    CHECK_OK(aclInit(NULL)); /* the same callback now succeeds */
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb));
}

TEST(an_init_callback_registered_while_initialised_runs_at_once)
{
    static const char L = 'L';
    CHECK_OK(aclInit(NULL));
    reset_order();
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_cb, (void *)&L));
    CHECK(strcmp(order, "L") == 0);
    CHECK_OK(aclFinalize());
    reset_order();
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_cb));
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, init_cb, (void *)&L)); /* finalized: waits */
    CHECK_EQ(0, order_len);
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_cb));
}

TEST(finalize_callbacks_run_before_the_teardown_in_the_runtimes_order)
{
    static const char M = 'M', P = 'P', D = 'D', O = 'O', F = 'F';
    CHECK_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, final_cb, (void *)&O));
    CHECK_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, final_cb, (void *)&D));
    CHECK_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, final_cb, (void *)&M));
    CHECK_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, final_cb, (void *)&P));
    start();
    uint64_t refs = 0;
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL)); /* two references */
    reset_order();
    CHECK_OK(aclFinalizeReference(&refs)); /* not the last: nothing runs */
    CHECK_EQ(1, refs);
    CHECK_EQ(0, order_len);
    CHECK_OK(aclFinalize());
    CHECK(strcmp(order, "PMDO") == 0);

    /* One that fails keeps the runtime initialised. */
    CHECK_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, final_cb2, (void *)&F));
    final_result = ACL_ERROR_INTERNAL_ERROR;
    start();
    CHECK_EQ(ACL_ERROR_INTERNAL_ERROR, aclFinalize());
    int32_t dev = -1;
    CHECK_OK(aclrtGetDevice(&dev)); /* still running */
    CHECK_EQ(0, dev);
    final_result = ACL_SUCCESS;
    stop();
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
    CHECK_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, final_cb2));
    CHECK_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, final_cb));
    CHECK_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, final_cb));
    CHECK_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, final_cb));
    CHECK_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_OP_COMPILER, final_cb));
}

TEST(callback_registration_rejects_duplicates_unknowns_and_nulls)
{
    static const char X = 'X';
    CHECK_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb, (void *)&X));
    CHECK_EQ(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_cb2, (void *)&X));
    CHECK_EQ(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb2));
    CHECK_EQ(ACL_ERROR_INTERNAL_ERROR, aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_cb));
    CHECK_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_cb));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclInitCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclInitCallbackRegister((aclRegisterCallbackType)100, init_cb, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL));
    CHECK_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, final_cb, (void *)&X));
    CHECK_EQ(ACL_ERROR_INTERNAL_ERROR, aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, final_cb2, (void *)&X));
    CHECK_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, final_cb));
    CHECK_EQ(ACL_ERROR_INTERNAL_ERROR, aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, final_cb));
}

/* ------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------ */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(versions_name_the_acl_interface_and_the_runtime_package)
{
    int32_t major = -1, minor = -1, patch = -1;
    CHECK_OK(aclrtGetVersion(&major, &minor, &patch));
    CHECK_EQ(ACL_MAJOR_VERSION, major);
    CHECK_EQ(ACL_MINOR_VERSION, minor);
    CHECK_EQ(ACL_PATCH_VERSION, patch);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&major, NULL, &patch));

    aclCANNPackageVersion v;
    memset(&v, 0x7f, sizeof v);
    CHECK_OK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
    char whole[ACL_PKG_VERSION_MAX_SIZE], parts[3 * ACL_PKG_VERSION_PARTS_MAX_SIZE + 3];
    CHECK_OK(aclsysGetVersionStr((char *)"runtime", whole));
    CHECK(strcmp(v.version, whole) == 0);
    snprintf(parts, sizeof parts, "%s.%s.%s", v.majorVersion, v.minorVersion, v.patchVersion);
    CHECK(strcmp(parts, whole) == 0);
    CHECK_EQ(0, v.releaseVersion[0]);
    CHECK_EQ(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_DRIVER, &v));
    CHECK_EQ(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion((aclCANNPackageName)42, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, NULL));
}
#pragma GCC diagnostic pop

/* ------------------------------------------------------------------------
 * System parameter options
 * ------------------------------------------------------------------------ */

TEST(process_options_are_kept_and_unset_ones_say_so)
{
    int64_t v = -1;
    CHECK_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3));
    CHECK_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_EQ(3, v);
    CHECK_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1));
    CHECK_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v));
    CHECK_EQ(1, v);
    CHECK_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
    CHECK_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_EQ(0, v);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, -1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetSysParamOpt((aclSysParamOpt)4, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetSysParamOpt((aclSysParamOpt)-1, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL));
}

TEST(context_options_belong_to_their_context)
{
    start();
    aclrtContext a, b;
    CHECK_OK(aclrtGetCurrentContext(&a));
    CHECK_OK(aclrtCreateContext(&b, 0)); /* now current */
    int64_t v = -1;
    CHECK_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2));
    CHECK_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_EQ(2, v);
    CHECK_OK(aclrtSetCurrentContext(a));
    CHECK_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_OK(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
    CHECK_OK(aclrtSetCurrentContext(b));
    CHECK_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK_OK(aclrtDestroyContext(b));
    aclrtContext c;
    CHECK_OK(aclrtCreateContext(&c, 0)); /* a new context starts with none set */
    CHECK_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 7));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL));
    CHECK_OK(aclrtDestroyContext(c));
    CHECK_OK(aclrtSetCurrentContext(a));
    stop();
}

/* ------------------------------------------------------------------------
 * Operator execution timeouts
 * ------------------------------------------------------------------------ */

TEST(op_execute_timeouts_are_kept_in_whole_steps)
{
    start();
    uint64_t interval = 0, actual = 0;
    uint32_t ms = 0;
    CHECK_OK(aclrtGetOpTimeOutInterval(&interval));
    CHECK_EQ(1000, interval);
    CHECK_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK_EQ(1091000, ms); /* the default, never set */
    CHECK_OK(aclrtSetOpExecuteTimeOutV2(1500, &actual));
    CHECK_EQ(2000, actual); /* rounded up to the step */
    CHECK_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK_EQ(2, ms);
    CHECK_OK(aclrtSetOpExecuteTimeOutWithMs(7));
    CHECK_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK_EQ(7, ms);
    CHECK_OK(aclrtSetOpExecuteTimeOut(3));
    CHECK_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK_EQ(3000, ms);
    CHECK_OK(aclrtSetOpExecuteTimeOutV2(0, &actual)); /* the longest: none */
    CHECK_EQ(UINT64_MAX, actual);
    CHECK_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK_EQ(UINT32_MAX, ms);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetOpExecuteTimeOutV2(5, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetOpExecuteTimeout(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetOpTimeOutInterval(NULL));
    stop();
    start();
    CHECK_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK_EQ(1091000, ms); /* aclFinalize went back to the default */
    stop();
}

struct busy_args {
    uint32_t ms;
};

TEST(a_kernel_that_outruns_the_op_execute_timeout_fails_and_a_launch_timeout_wins)
{
    start();
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    aclrtFuncHandle busy = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, "busy", &busy));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct busy_args slow = {40};
    CHECK_OK(aclrtSetOpExecuteTimeOutWithMs(2));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(busy, 1, s, NULL, &slow, sizeof slow, NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_AICORE_TIMEOUT, aclrtSynchronizeStream(s));
    /* The launch's own timeout (600 s) wins over the process's 2 ms. */
    aclrtLaunchKernelAttr sec = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, .value = {.timeout = 600}};
    aclrtLaunchKernelCfg cfg = {&sec, 1};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(busy, 1, s, &cfg, &slow, sizeof slow, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    uint64_t actual;
    CHECK_OK(aclrtSetOpExecuteTimeOutV2(0, &actual)); /* none */
    CHECK_OK(aclrtLaunchKernelWithHostArgs(busy, 1, s, NULL, &slow, sizeof slow, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    stop();
}

int main(void)
{
    RUN(a_data_buffer_describes_memory_it_does_not_own);
    RUN(the_deprecated_size_is_cut_to_32_bits);
    RUN(a_null_data_buffer_is_refused_with_a_message);
    RUN(app_logs_at_or_above_the_environments_level_reach_stderr);
    RUN(a_long_app_log_message_is_cut_and_marked);
    RUN(device_capabilities_are_the_device_infos);
    RUN(platform_figures_are_the_profiles_socs);
    RUN(init_callbacks_run_in_the_runtimes_order_with_the_configuration_text);
    RUN(a_failing_init_callback_fails_aclinit_and_leaves_the_runtime_uninitialised);
    RUN(an_init_callback_registered_while_initialised_runs_at_once);
    RUN(finalize_callbacks_run_before_the_teardown_in_the_runtimes_order);
    RUN(callback_registration_rejects_duplicates_unknowns_and_nulls);
    RUN(versions_name_the_acl_interface_and_the_runtime_package);
    RUN(process_options_are_kept_and_unset_ones_say_so);
    RUN(context_options_belong_to_their_context);
    RUN(op_execute_timeouts_are_kept_in_whole_steps);
    RUN(a_kernel_that_outruns_the_op_execute_timeout_fails_and_a_launch_timeout_wins);
    return check_report("runtime options");
}
