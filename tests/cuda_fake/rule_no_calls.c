/*
 * tests/cuda_fake/rule_no_calls.c - rule 3 of the test double: no driver
 * call from a host function ("CUDA functions may not be called from a host
 * function"; the driver may return CUDA_ERROR_NOT_PERMITTED). Planted: a host
 * function calls every entry point the double exports (argv: their names,
 * from its dynamic symbol table, so a new one is covered), each with zero
 * arguments; every one must return CUDA_ERROR_NOT_PERMITTED before it looks
 * at them. No knob: the double always refuses.
 *
 * The calls go through a pointer of a type with more parameters than any
 * entry point has, all zero (harmless in the x86-64 and AArch64 calling
 * conventions: the callee reads those it has).
 */
#define _GNU_SOURCE
#include "rules.h"

#include <dlfcn.h>

typedef CUresult (*any_entry)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                              uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

struct plan {
    int n;
    char **names;
    CUresult *got;
    int missing;
};

static void call_everything(void *user)
{
    struct plan *p = (struct plan *)user;
    for (int i = 0; i < p->n; i++) {
        void *sym = dlsym(RTLD_DEFAULT, p->names[i]);
        if (sym == NULL) {
            p->missing++;
            continue;
        }
        any_entry f;
        memcpy(&f, &sym, sizeof f);
        p->got[i] = f(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s cuXxx...\n", argv[0]);
        return 2;
    }
    rules_start();
    CUstream s = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    struct plan p = {argc - 1, argv + 1, (CUresult *)calloc((size_t)argc, sizeof(CUresult)), 0};
    EXPECT("cuLaunchHostFunc", cuLaunchHostFunc(s, call_everything, &p), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT("entry points not found", p.missing, 0);
    for (int i = 0; i < p.n; i++)
        if (p.got[i] != CUDA_ERROR_NOT_PERMITTED) {
            printf("FAIL %s from a host function: %u, want CUDA_ERROR_NOT_PERMITTED (800)\n", p.names[i], p.got[i]);
            rules_failures++;
        }
    /* Outside a host function the same calls are the driver's again. */
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    free(p.got);
    if (rules_failures == 0)
        printf("fake cuda rule 3, no driver call from a host function: %d entry points refused: ok\n", p.n);
    return rules_failures != 0;
}
