/*
 * tests/fake_cuda_hooks.h - the driver test double's own functions
 * (fakecuda_*, tests/cuda_fake/fake_cuda.c) for tests that look behind the
 * cuda backend: found in the library the runtime opened when the cuda
 * backend runs on the double (ACLRT_CUDA_LIBRARY); NULL elsewhere (the
 * host backend, a GPU's driver). Call it once the runtime has started.
 */
#ifndef ACLRT_TESTS_FAKE_CUDA_HOOKS_H
#define ACLRT_TESTS_FAKE_CUDA_HOOKS_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before the first include (RTLD_NOLOAD)"
#endif

#include "acl/acl.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void *fake_cuda_symbol(const char *name)
{
    const char *lib = getenv("ACLRT_CUDA_LIBRARY");
    const char *backend = aclrtxGetBackendName();
    if (lib == NULL || backend == NULL || strcmp(backend, "cuda") != 0)
        return NULL;
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD); /* the runtime opened it */
    return h != NULL ? dlsym(h, name) : NULL;
}

#endif /* ACLRT_TESTS_FAKE_CUDA_HOOKS_H */
