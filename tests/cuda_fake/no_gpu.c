/*
 * tests/cuda_fake/no_gpu.c - the cuda backend selected where it cannot run:
 * aclInit returns ACL_ERROR_RT_NO_DEVICE with a message naming the cause
 * (the backend's probe, docs/CUDA.md), the runtime does not start, and a
 * call that would start it (aclrtSetDevice, and every later one) returns
 * the same; nothing crashes.
 * The environment says which case (the Makefile runs each in a process of
 * its own): ACLRT_CUDA_LIBRARY naming no file, the driver test double with
 * no GPU (ACLRT_FAKE_CUDA_DEVICES=0), or cuInit failing
 * (ACLRT_FAKE_CUDA_INIT_RESULT=100). argv[1] is the text the message must
 * contain.
 *
 * Where cuInit fails (ACLRT_FAKE_CUDA_INIT_RESULT set), the program then
 * makes it fail with other results in turn, in this process (aclInit and
 * aclrtSetDevice again): each is named as cuda.h names it, whether
 * or not the driver's cuGetErrorName knows it (CUDA's stub library
 * answers every call with CUDA_ERROR_STUB_LIBRARY), with what to check
 * where that is known.
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

#include <stdio.h>
#include <stdlib.h>
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

/* cuInit failing with `result`: the messages aclInit and aclrtSetDevice leave must contain `text`. */
static void init_fails_with(const char *result, const char *text)
{
    setenv("ACLRT_FAKE_CUDA_INIT_RESULT", result, 1);
    (void)aclGetRecentErrMsg();
    char what[64];
    snprintf(what, sizeof what, "aclInit, cuInit returning %s", result);
    expect(what, aclInit(NULL), text);
    snprintf(what, sizeof what, "aclrtSetDevice, cuInit returning %s", result);
    expect(what, aclrtSetDevice(0), text);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setenv("ACLRT_BACKEND", "cuda", 1);
    expect("aclInit", aclInit(NULL), argv[1]);
    expect("aclrtSetDevice", aclrtSetDevice(0), argv[1]);
    uint32_t n = 7;
    expect("aclrtGetDeviceCount", aclrtGetDeviceCount(&n), argv[1]);
    aclrtStream s;
    aclError rc = aclrtCreateStream(&s);
    if (rc == ACL_SUCCESS) {
        printf("FAIL aclrtCreateStream succeeded without a GPU\n");
        failures++;
    }
    if (getenv("ACLRT_FAKE_CUDA_INIT_RESULT") != NULL) {
        init_fails_with("34", "the cuda backend found no usable GPU: cuInit failed with "
                              "CUDA_ERROR_STUB_LIBRARY (34): the library is CUDA's stub, which stands in for the "
                              "driver when linking; install the NVIDIA driver, or set ACLRT_CUDA_LIBRARY to its "
                              "libcuda.so.1 (error 207004)");
        init_fails_with("100", "the cuda backend found no usable GPU: cuInit failed with "
                               "CUDA_ERROR_NO_DEVICE (100): the driver sees no GPU (check nvidia-smi, "
                               "CUDA_VISIBLE_DEVICES, a container's access to the GPUs) (error 207004)");
        init_fails_with("803", "cuInit failed with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803): the driver library and "
                               "the loaded kernel module are of different versions");
        init_fails_with("46", "cuInit failed with CUDA_ERROR_DEVICE_UNAVAILABLE (46) (error 207004)");
        init_fails_with("999", "cuInit failed with CUDA_ERROR_UNKNOWN (999) (error 207004)");
        init_fails_with("12345", "cuInit failed with CUDA error (12345) (error 207004)"); /* a code of no name */
    }
    aclFinalize();
    if (failures == 0)
        printf("cuda backend without a GPU (%s): ACL_ERROR_RT_NO_DEVICE, \"%s\"%s (ok)\n", argv[1], argv[1],
               getenv("ACLRT_FAKE_CUDA_INIT_RESULT") != NULL ? ", and cuInit's other results named" : "");
    return failures != 0;
}
