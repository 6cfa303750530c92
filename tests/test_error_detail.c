/*
 * tests/test_error_detail.c - pins "Error details" (docs/SEMANTICS.md):
 * aclrtGetErrorVerbose on host devices, and the kernel behind an exception
 * (aclrtGetArgsFromExceptionInfo, aclrtGetFuncHandleFromExceptionInfo):
 * the flows of the error-handling and exception-callback samples.
 */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

TEST(error_verbose_reports_no_hardware_fault)
{
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    for (uint32_t d = 0; d < count; d++) {
        aclrtErrorInfo info;
        memset(&info, 0xFF, sizeof info);
        CHECK_OK(aclrtGetErrorVerbose((int32_t)d, &info));
        CHECK_EQ(ACL_RT_NO_ERROR, info.errorType);
        CHECK_EQ(0, info.tryRepair);
        CHECK_EQ(0, info.hasDetail);
        CHECK_EQ(0, info.detail.uceInfo.arraySize);
    }
}

TEST(error_verbose_rejects_a_bad_device_and_null)
{
    aclrtErrorInfo info;
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetErrorVerbose(-1, &info));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetErrorVerbose(64, &info));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetErrorVerbose(0, NULL));
}

TEST(diagnostics_of_a_failed_call_are_read_once_around_error_verbose)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtGetRunMode");
    aclrtErrorInfo info;
    CHECK_OK(aclrtGetErrorVerbose(0, &info));
    CHECK_EQ(ACL_RT_NO_ERROR, info.errorType);
    CHECK_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK(aclGetRecentErrMsg() == NULL);
}

/* What the exception callback read from the info it got (it runs on the thread that ran the task). */
static struct {
    atomic_int calls;
    aclError args_rc, func_rc, null_args_rc, null_len_rc, null_func_rc;
    void *args;
    uint32_t len;
    aclrtFuncHandle func;
    uint32_t code;
} seen;

static void on_exception(aclrtExceptionInfo *info)
{
    void *p = (void *)&seen;
    uint32_t len = 12345;
    seen.args_rc = aclrtGetArgsFromExceptionInfo(info, &p, &len);
    seen.args = p;
    seen.len = len;
    aclrtFuncHandle f = (aclrtFuncHandle)&seen;
    seen.func_rc = aclrtGetFuncHandleFromExceptionInfo(info, &f);
    seen.func = f;
    seen.null_args_rc = aclrtGetArgsFromExceptionInfo(info, NULL, &len);
    seen.null_len_rc = aclrtGetArgsFromExceptionInfo(info, &p, NULL);
    seen.null_func_rc = aclrtGetFuncHandleFromExceptionInfo(info, NULL);
    seen.code = aclrtGetErrorCodeFromExceptionInfo(info);
    atomic_fetch_add(&seen.calls, 1); /* last: the fields above are written when the count shows */
}

static void seen_reset(void)
{
    memset(&seen, 0, sizeof seen);
    atomic_store(&seen.calls, 0);
}

static aclError failing_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)arg;
    return block == blocks - 1 ? ACL_ERROR_RT_AICORE_EXCEPTION : ACL_SUCCESS;
}

static aclrtFuncHandle handle_of(aclrtxHostKernel fn)
{
    aclrtFuncHandle h;
    memcpy(&h, &fn, sizeof h);
    return h;
}

static int kernel_args; /* what the kernels get as args: its address is what the info must give back */

static void check_failing_kernel_info(uint32_t blocks)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    seen_reset();
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    CHECK_OK(aclrtxLaunchHostKernel(s, blocks, failing_kernel, &kernel_args));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_EQ(1, atomic_load(&seen.calls));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, seen.code);
    CHECK_OK(seen.args_rc);
    CHECK(seen.args == (void *)&kernel_args);
    CHECK_EQ(0, seen.len);
    CHECK_OK(seen.func_rc);
    CHECK(seen.func == handle_of(failing_kernel));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(exception_info_of_a_failing_host_kernel_gives_its_args_and_function)
{
    check_failing_kernel_info(1);
}

TEST(exception_info_of_a_failing_multi_block_kernel_gives_its_args_and_function)
{
    check_failing_kernel_info(8);
}

TEST(exception_getters_reject_null_outputs_of_a_live_info)
{
    check_failing_kernel_info(1);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, seen.null_args_rc);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, seen.null_len_rc);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, seen.null_func_rc);
}

static void fail_at_start(aclrtxExternalToken token, void *user)
{
    (void)user;
    aclrtxCompleteExternalTask(token, ACL_ERROR_RT_AICPU_EXCEPTION);
}

TEST(exception_info_of_a_task_that_is_not_a_kernel_has_no_args_or_function)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    seen_reset();
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    CHECK_OK(aclrtxLaunchExternalTask(s, fail_at_start, NULL));
    CHECK_EQ(ACL_ERROR_RT_AICPU_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_EQ(1, atomic_load(&seen.calls));
    CHECK_EQ(ACL_ERROR_RT_AICPU_EXCEPTION, seen.code);
    CHECK_EQ(ACL_ERROR_INVALID_EXCEPTION_INFO, seen.args_rc);
    CHECK(seen.args == (void *)&seen); /* untouched */
    CHECK_EQ(12345, seen.len);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, seen.func_rc);
    CHECK(seen.func == NULL);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(exception_getters_of_a_null_info_return_invalid_exception_info)
{
    void *p = NULL;
    uint32_t len = 0;
    aclrtFuncHandle f = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_EXCEPTION_INFO, aclrtGetArgsFromExceptionInfo(NULL, &p, &len));
    CHECK_EQ(ACL_ERROR_INVALID_EXCEPTION_INFO, aclrtGetFuncHandleFromExceptionInfo(NULL, &f));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "info is NULL");
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(error_verbose_reports_no_hardware_fault);
    RUN(error_verbose_rejects_a_bad_device_and_null);
    RUN(diagnostics_of_a_failed_call_are_read_once_around_error_verbose);
    RUN(exception_info_of_a_failing_host_kernel_gives_its_args_and_function);
    RUN(exception_info_of_a_failing_multi_block_kernel_gives_its_args_and_function);
    RUN(exception_getters_reject_null_outputs_of_a_live_info);
    RUN(exception_info_of_a_task_that_is_not_a_kernel_has_no_args_or_function);
    RUN(exception_getters_of_a_null_info_return_invalid_exception_info);
    aclrtSetExceptionInfoCallback(NULL);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("error_detail");
}
