/*
 * examples/vector_add/main.c - c = a + b on a device, with a kernel loaded
 * from a binary through ACL's kernel API (aclrtBinaryLoadFromFile,
 * aclrtBinaryGetFunction, aclrtKernelArgs*, aclrtLaunchKernelWithConfig).
 *
 * The binary is the one for the backend in use (aclrtxGetBackendName): the
 * host backend runs host kernels from a shared object (vector_add_host.c ->
 * libvector_add.so); a cuda backend runs the kernel nvcc compiled from
 * vector_add.cu (vector_add.fatbin). The rest of the program is the same for
 * both. A path given as the first argument is loaded instead of the default,
 * build/examples/vector_add/<binary>, where `make examples` builds them
 * (./build/examples/vector_add/vector_add [binary]).
 *
 * Build and run on the host backend, from the root of the repository (nothing
 * to install first; the -DACLRT_IMPLEMENTATION puts the implementation in this file):
 *
 *   cc -std=c11 -I. -shared -fPIC examples/vector_add/vector_add_host.c -o libvector_add.so
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/vector_add/main.c -o vector_add -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./vector_add ./libvector_add.so
 */
#include "acl/acl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VECTOR_ADD_DIR
#define VECTOR_ADD_DIR "build/examples/vector_add"
#endif

#define N (1u << 20)
#define BLOCKS 8

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        aclError rc_ = (call);                                                                          \
        if (rc_ != ACL_SUCCESS) {                                                                       \
            fprintf(stderr, "vector_add: %s failed with %d: %s\n", #call, rc_, aclGetRecentErrMsg());   \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));

    /* The binary of this backend's kind. */
    const char *backend = aclrtxGetBackendName();
    const char *path = argc > 1 ? argv[1]
                       : strcmp(backend, "cuda") == 0 ? VECTOR_ADD_DIR "/vector_add.fatbin"
                                                      : VECTOR_ADD_DIR "/libvector_add.so";
    aclrtBinHandle bin;
    aclrtFuncHandle vector_add;
    CHECK(aclrtBinaryLoadFromFile(path, NULL, &bin));
    CHECK(aclrtBinaryGetFunction(bin, "vector_add", &vector_add));

    /* Inputs on the host, copied to device memory. */
    size_t bytes = N * sizeof(float);
    float *a, *b, *c, *da, *db, *dc;
    CHECK(aclrtMallocHost((void **)&a, bytes));
    CHECK(aclrtMallocHost((void **)&b, bytes));
    CHECK(aclrtMallocHost((void **)&c, bytes));
    for (uint32_t i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    CHECK(aclrtMalloc((void **)&da, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc((void **)&db, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc((void **)&dc, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpyAsync(da, bytes, a, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    CHECK(aclrtMemcpyAsync(db, bytes, b, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));

    /* The kernel's parameters, in order: a, b, c, n. */
    aclrtArgsHandle args;
    aclrtParamHandle param;
    uint32_t n = N;
    CHECK(aclrtKernelArgsInit(vector_add, &args));
    CHECK(aclrtKernelArgsAppend(args, &da, sizeof da, &param));
    CHECK(aclrtKernelArgsAppend(args, &db, sizeof db, &param));
    CHECK(aclrtKernelArgsAppend(args, &dc, sizeof dc, &param));
    CHECK(aclrtKernelArgsAppend(args, &n, sizeof n, &param));
    CHECK(aclrtKernelArgsFinalize(args));
    CHECK(aclrtLaunchKernelWithConfig(vector_add, BLOCKS, stream, NULL, args, NULL));

    CHECK(aclrtMemcpyAsync(c, bytes, dc, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK(aclrtSynchronizeStream(stream));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < N; i++)
        wrong += c[i] != a[i] + b[i];
    printf("vector_add: %u elements on the %s backend, %d blocks, from %s: %s\n", N, backend, BLOCKS, path,
           wrong == 0 ? "ok" : "WRONG");

    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtFree(da));
    CHECK(aclrtFree(db));
    CHECK(aclrtFree(dc));
    CHECK(aclrtFreeHost(a));
    CHECK(aclrtFreeHost(b));
    CHECK(aclrtFreeHost(c));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return wrong == 0 ? 0 : 1;
}
