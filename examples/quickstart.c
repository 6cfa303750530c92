/*
 * quickstart.c - the README's ten-line example: a stream, a host function,
 * an event, and a synchronize.
 *
 * Build and run, from the root of the repository (nothing to install first; the
 * -DACLRT_IMPLEMENTATION puts the implementation in this file):
 *
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/quickstart.c -o quickstart -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./quickstart
 *
 * `make run-examples` builds and runs every example under build/examples/.
 */
#include "acl/acl.h"

#include <stdio.h>

static void hello(void *arg)
{
    printf("hello from stream task %d\n", *(int *)arg);
}

int main(void)
{
    int id = 1;
    aclrtStream stream;
    aclrtEvent done;
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);
    aclrtCreateEventExWithFlag(&done, ACL_EVENT_SYNC);
    aclrtLaunchHostFunc(stream, hello, &id);   /* runs on a runtime thread, in stream order */
    aclrtRecordEvent(done, stream);            /* captures the work submitted so far */
    aclError ret = aclrtSynchronizeEvent(done);
    printf("synchronized: %d\n", ret);

    aclrtDestroyEvent(done);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return ret == ACL_SUCCESS ? 0 : 1;
}
