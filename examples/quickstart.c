/*
 * quickstart.c - the README's ten-line example: a stream, a host function,
 * an event, and a synchronize.
 *
 *   make build/examples/quickstart && ./build/examples/quickstart
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
