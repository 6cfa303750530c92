/*
 * Negative check for the sanitizer setup: a data race planted in code
 * shaped like ours (a host function writes a plain variable that the
 * submitting thread reads without any synchronization) must be reported by
 * ThreadSanitizer. If this ever passes silently, the annotations or
 * suppressions have hidden real races.
 */
#include "acl/acl.h"

#include <stdio.h>

static int shared_value; /* deliberately unsynchronized */

static void writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++)
        shared_value = i;
}

int main(void)
{
    aclrtStream s;
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS)
        return 2;
    aclrtLaunchHostFunc(s, writer, NULL);
    int seen = 0;
    for (int i = 0; i < 100000; i++)
        seen += shared_value; /* races with writer(): no synchronize before reading */
    aclrtSynchronizeStream(s);
    printf("%d\n", seen);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    return 0;
}
