/*
 * tests/cuda_fake/no_gpu.c - the cuda backend selected where it cannot run:
 * the runtime does not start, and the call that starts it (aclrtSetDevice,
 * and every later one; aclInit, which leaves the start to them) returns
 * ACL_ERROR_RT_NO_DEVICE with a message naming the cause; nothing crashes.
 * The environment says which case (the Makefile runs each in a process of
 * its own): ACLRT_CUDA_LIBRARY naming no file, the driver test double with
 * no GPU (ACLRT_FAKE_CUDA_DEVICES=0), or cuInit failing
 * (ACLRT_FAKE_CUDA_INIT_RESULT=100). argv[1] is the text the message must
 * contain.
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(const char *what, aclError rc, const char *text)
{
    const char *msg = aclGetRecentErrMsg();
    if (rc != ACL_ERROR_RT_NO_DEVICE || msg == NULL || strstr(msg, text) == NULL) {
        printf("FAIL %s: %d (want %d, ACL_ERROR_RT_NO_DEVICE), message \"%s\" (want it to contain \"%s\")\n", what,
               rc, ACL_ERROR_RT_NO_DEVICE, msg != NULL ? msg : "(none)", text);
        failures++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setenv("ACLRT_BACKEND", "cuda", 1);
    aclError init = aclInit(NULL); /* the runtime starts at its first use: aclInit may leave it to aclrtSetDevice */
    if (init != ACL_SUCCESS)
        expect("aclInit", init, argv[1]);
    expect("aclrtSetDevice", aclrtSetDevice(0), argv[1]);
    uint32_t n = 7;
    expect("aclrtGetDeviceCount", aclrtGetDeviceCount(&n), argv[1]);
    aclrtStream s;
    aclError rc = aclrtCreateStream(&s);
    if (rc == ACL_SUCCESS) {
        printf("FAIL aclrtCreateStream succeeded without a GPU\n");
        failures++;
    }
    aclFinalize();
    if (failures == 0)
        printf("cuda backend without a GPU (%s): ACL_ERROR_RT_NO_DEVICE, \"%s\" (ok)\n", argv[1], argv[1]);
    return failures != 0;
}
