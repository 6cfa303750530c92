/*
 * examples/callbacks.c - a callback thread and an exception callback.
 *
 *   - A user thread subscribes to a stream and serves it with
 *     aclrtProcessReport; callbacks launched on the stream run there, in
 *     stream order. ACL_CALLBACK_BLOCK holds the stream until the callback
 *     has returned.
 *   - A host kernel that fails fires the exception callback (task id,
 *     stream id, the submitting thread, device, error code); the stream's
 *     next synchronize returns the code.
 *
 * Build and run, from the root of the repository (nothing to install first; the
 * -DACLRT_IMPLEMENTATION puts the implementation in this file):
 *
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/callbacks.c -o callbacks -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./callbacks
 *
 * `make run-examples` builds and runs every example under build/examples/.
 */
#define _GNU_SOURCE
#include "acl/acl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static aclrtContext ctx;
static atomic_int stop;

static void *callback_thread(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(ctx);
    while (!atomic_load(&stop))
        aclrtProcessReport(100); /* runs what was handed over; 507012 after 100 ms with nothing */
    return NULL;
}

static void progress(void *arg)
{
    printf("callback: step %d done (in the callback thread)\n", *(int *)arg);
}

static aclError faulty_kernel(uint32_t block, uint32_t blocks, void *args)
{
    (void)blocks;
    (void)args;
    return block == 3 ? ACL_ERROR_RT_AICORE_EXCEPTION : ACL_SUCCESS; /* block 3 "faults" */
}

static void on_exception(aclrtExceptionInfo *info)
{
    printf("exception: task %u on stream %u (device %u) failed with %u\n", aclrtGetTaskIdFromExceptionInfo(info),
           aclrtGetStreamIdFromExceptionInfo(info), aclrtGetDeviceIdFromExceptionInfo(info),
           aclrtGetErrorCodeFromExceptionInfo(info));
}

int main(void)
{
    aclrtStream s;
    pthread_t t;
    static int steps[3] = {1, 2, 3};
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return 1;
    aclrtGetCurrentContext(&ctx);
    aclrtCreateStream(&s);
    pthread_create(&t, NULL, callback_thread, NULL);
    aclrtSubscribeReport((uint64_t)t, s);
    aclrtExceptionInfoCallbackRegister(on_exception);

    for (int i = 0; i < 3; i++)
        aclrtLaunchCallback(progress, &steps[i], ACL_CALLBACK_BLOCK, s);
    aclrtxLaunchHostKernel(s, 8, faulty_kernel, NULL);
    uint32_t task;
    aclrtGetThreadLastTaskId(&task);
    printf("launched the kernel as task %u\n", task);
    aclError rc = aclrtSynchronizeStream(s); /* the callbacks have run (BLOCK), the kernel failed */
    printf("synchronize: %d\n", rc);

    aclrtUnSubscribeReport((uint64_t)t, s);
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    aclrtExceptionInfoCallbackUnregister(on_exception);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    return rc == ACL_ERROR_RT_AICORE_EXCEPTION ? 0 : 1;
}
