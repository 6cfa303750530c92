/*
 * tests/test_cuda_async_error.c - pins how the cuda backend reports a
 * failure of asynchronous GPU work (docs/SEMANTICS.md, The cuda backend:
 * "When a failure is seen", "Sticky faults"; Failure mode), on the driver
 * test double, whose fakecuda_fail_next makes the next copy or set fail
 * when the GPU runs it:
 *
 *   - not sticky (the driver returns it from the stream's next query or
 *     synchronize, and the stream goes on): the task fails with the ACL
 *     code of the driver's error, once, through the stream's synchronize
 *     and the exception callback (with the task's id); the stream's later
 *     tasks run; the device stays usable;
 *   - sticky (the context is lost; every later call of the context
 *     returns the error): the task fails with ACL_ERROR_RT_DEVICE_MEM_ERROR
 *     (CUDA_ERROR_ILLEGAL_ADDRESS), the device is lost, and later tasks of
 *     any stream of the device fail with that code (the GPU stays lost for
 *     the process: tests/test_device_lost.c).
 *
 * Elsewhere (the host backend, a GPU) there is no way to plant such a
 * failure: the cases say so and pass.
 */
#define _GNU_SOURCE

#include "check.h"
#include "fake_cuda_hooks.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void (*fake_fail_next)(int sticky);

static void fake_lookup(void)
{
    *(void **)&fake_fail_next = fake_cuda_symbol("fakecuda_fail_next");
}

static atomic_int calls;
static atomic_uint seen_task, seen_code;

static void on_exception(aclrtExceptionInfo *info)
{
    atomic_fetch_add(&calls, 1);
    atomic_store(&seen_task, aclrtGetTaskIdFromExceptionInfo(info));
    atomic_store(&seen_code, aclrtGetErrorCodeFromExceptionInfo(info));
}

/* n bytes of device memory, all v. */
static void *device_fill(size_t n, unsigned char v)
{
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(d, n, v, n));
    return d;
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

TEST(a_failure_that_is_not_sticky_fails_its_task_once_and_the_stream_goes_on)
{
    if (fake_fail_next == NULL) {
        printf("  (no driver test double: nothing to plant)\n");
        return;
    }
    unsigned char back[128];
    void *d = device_fill(128, 0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&calls, 0);
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    fake_fail_next(0);
    CHECK_OK(aclrtMemsetAsync(d, 64, 0x33, 64, s)); /* fails when the GPU runs it */
    uint32_t failed = 0;
    CHECK_OK(aclrtGetThreadLastTaskId(&failed));
    CHECK_OK(aclrtMemsetAsync((char *)d + 64, 64, 0x44, 64, s));
    CHECK_EQ(ACL_ERROR_RT_DRV_INTERNAL_ERROR, aclrtSynchronizeStream(s)); /* CUDA_ERROR_UNKNOWN */
    CHECK_EQ(1, atomic_load(&calls));
    CHECK_EQ(failed, atomic_load(&seen_task));
    CHECK_EQ(ACL_ERROR_RT_DRV_INTERNAL_ERROR, atomic_load(&seen_code));
    CHECK_OK(aclrtSynchronizeStream(s)); /* returned once */
    CHECK_OK(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(1, all_bytes(back, 64, 0));         /* the failed set did nothing */
    CHECK_EQ(1, all_bytes(back + 64, 64, 0x44)); /* the task after it ran */
    /* The device goes on: new work on the stream and on another. */
    aclrtStream other;
    CHECK_OK(aclrtCreateStream(&other));
    CHECK_OK(aclrtMemsetAsync(d, 64, 0x55, 64, s));
    CHECK_OK(aclrtMemsetAsync((char *)d + 64, 64, 0x66, 64, other));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_OK(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(1, all_bytes(back, 64, 0x55) && all_bytes(back + 64, 64, 0x66));
    CHECK_EQ(1, atomic_load(&calls));
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(other));
    CHECK_OK(aclrtFree(d));
}

TEST(a_sticky_failure_loses_the_device_and_later_tasks_fail_with_its_code)
{
    if (fake_fail_next == NULL) {
        printf("  (no driver test double: nothing to plant)\n");
        return;
    }
    void *d = device_fill(128, 0);
    aclrtStream s, other;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&other));
    atomic_store(&calls, 0);
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    fake_fail_next(1);
    CHECK_OK(aclrtMemsetAsync(d, 64, 0x33, 64, s));
    uint32_t failed = 0;
    CHECK_OK(aclrtGetThreadLastTaskId(&failed));
    CHECK_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s)); /* CUDA_ERROR_ILLEGAL_ADDRESS */
    CHECK(atomic_load(&calls) >= 1);
    CHECK_EQ(failed, atomic_load(&seen_task));
    CHECK_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, atomic_load(&seen_code));
    /* Another stream of the device: its later work fails with the fault's code. */
    CHECK_OK(aclrtMemsetAsync((char *)d + 64, 64, 0x44, 64, other));
    CHECK_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(other));
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    aclrtDestroyStream(s);
    aclrtDestroyStream(other);
    aclrtFree(d);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "cuda_async_error: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    fake_lookup();
    RUN(a_failure_that_is_not_sticky_fails_its_task_once_and_the_stream_goes_on);
    RUN(a_sticky_failure_loses_the_device_and_later_tasks_fail_with_its_code); /* last: the GPU stays lost */
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("cuda_async_error");
}
