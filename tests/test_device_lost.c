/*
 * tests/test_device_lost.c - a device lost to a kernel fault.
 *
 * On the cuda backend a kernel fault loses the GPU's context (a sticky
 * error; the driver test double is strict here, as a GPU is): the task
 * fails, aclrtQueryDeviceStatus says ACL_RT_DEVICE_STATUS_ABNORMAL, later
 * work fails, and, as cuda.h says such an error leaves the process unable
 * to use CUDA until it is restarted, a reset does not bring the device
 * back: setting it again fails with the fault's code and says why. On the
 * host backend a failing kernel fails its task only: the device stays
 * NORMAL, and runs the next launch and after a reset.
 */
#include "check.h"
#include "kernels/test_kernels.h"

#include <string.h>

static aclrtFuncHandle function(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, name, &f));
    return f;
}

static aclrtDeviceStatus status(void)
{
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
    CHECK_OK(aclrtQueryDeviceStatus(0, &st));
    return st;
}

/* A fill kernel on a new stream of device 0: what its synchronize returns; *out holds what it wrote. */
static aclError run_fill(aclrtBinHandle bin, int32_t *out)
{
    aclrtStream s;
    aclError rc = aclrtCreateStream(&s); /* on a lost GPU: refused by the driver */
    if (rc != ACL_SUCCESS)
        return rc;
    struct fill_args fa = {out, 41};
    rc = aclrtLaunchKernelWithHostArgs(function(bin, "fill"), 1, s, NULL, &fa, sizeof fa, NULL, 0);
    if (rc == ACL_SUCCESS)
        rc = aclrtSynchronizeStream(s);
    (void)aclrtDestroyStream(s);
    return rc;
}

TEST(a_kernel_fault_loses_a_gpu_for_the_process_and_fails_a_host_task_only)
{
    CHECK_OK(aclrtSetDevice(0));
    const char *backend = aclrtxGetBackendName(); /* NULL until the runtime has started */
    CHECK(backend != NULL);
    bool gpu = strcmp(backend, "host") != 0;
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    CHECK_EQ(ACL_RT_DEVICE_STATUS_NORMAL, status());

    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct fail_args bad = {0, ACL_ERROR_RT_AICORE_EXCEPTION};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(function(bin, "fail_block"), 1, s, NULL, &bad, sizeof bad, NULL, 0));
    aclError rc = aclrtSynchronizeStream(s);
    CHECK(rc != ACL_SUCCESS);
    (void)aclrtDestroyStream(s);

    int32_t out = 0;
    if (gpu) {
        CHECK_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, status()); /* lost: every later task fails */
        CHECK(run_fill(bin, &out) != ACL_SUCCESS);
        CHECK_EQ(0, out);
        CHECK_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, status());
    } else {
        CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, rc);
        CHECK_EQ(ACL_RT_DEVICE_STATUS_NORMAL, status()); /* a failed task, not a lost device */
        CHECK_OK(run_fill(bin, &out));
        CHECK_EQ(41, out);
    }
    (void)aclrtBinaryUnLoad(bin); /* on a lost GPU the unload may fail too */

    CHECK_OK(aclrtResetDevice(0));
    if (gpu) {
        rc = aclrtSetDevice(0);
        CHECK(rc != ACL_SUCCESS);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "restarted");
        CHECK_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, status()); /* for the rest of the process */
        return;
    }
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(ACL_RT_DEVICE_STATUS_NORMAL, status());
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    out = 0;
    CHECK_OK(run_fill(bin, &out));
    CHECK_EQ(41, out);
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtResetDevice(0));
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: aclInit: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(a_kernel_fault_loses_a_gpu_for_the_process_and_fails_a_host_task_only);
    CHECK_OK(aclFinalize());
    return check_report("device_lost");
}
