/*
 * tests/test_kernel_ext.c - pins "Kernels: binary descriptors, lookups by
 * address, exception callbacks" (docs/SEMANTICS.md): aclrtCreateBinary /
 * aclrtBinaryLoad / aclrtDestroyBinary, aclrtGetFuncBySymbol,
 * aclrtBinaryGetFunctionByEntry, and a binary's own exception callback:
 * what each gives, that the kernels found run, and bad input.
 */
#define _GNU_SOURCE

#include "check.h"
#include "kernels/test_kernels.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static aclrtStream s;
static void *lib; /* the kernels' shared object, opened by the test: where host addresses come from */

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = (unsigned char *)malloc((size_t)n);
    if (p != NULL && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

static aclrtFuncHandle function(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, name, &f));
    return f;
}

/* fill on 4 blocks from base; the values it wrote. */
static void run_fill(aclrtFuncHandle fill, int32_t base, int32_t got[4])
{
    int32_t *out;
    CHECK_OK(aclrtMalloc((void **)&out, 4 * sizeof *out, ACL_MEM_MALLOC_HUGE_FIRST));
    struct fill_args a = {out, base};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 4, s, NULL, &a, sizeof a, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtMemcpy(got, 4 * sizeof *got, out, 4 * sizeof *out, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclrtFree(out));
}

TEST(a_binary_descriptor_loads_the_bytes_it_describes)
{
    size_t size = 0;
    unsigned char *bytes = read_file(KERNELS, &size);
    CHECK(bytes != NULL);
    aclrtBinary desc = aclrtCreateBinary(bytes, size);
    CHECK(desc != NULL);
    aclrtBinHandle bin = NULL, again = NULL;
    CHECK_OK(aclrtBinaryLoad(desc, &bin));
    CHECK_OK(aclrtBinaryLoad(desc, &again)); /* a descriptor loads as often as asked */
    CHECK(bin != again);
    CHECK_OK(aclrtDestroyBinary(desc));
    int32_t got[4] = {0};
    run_fill(function(bin, "fill"), 40, got); /* the loaded binary outlives its descriptor */
    CHECK_EQ(40, got[0]);
    CHECK_EQ(43, got[3]);
    void *addr = NULL;
    size_t bin_size = 0;
    CHECK_OK(aclrtBinaryGetDevAddress(bin, &addr, &bin_size));
    CHECK_EQ(size, bin_size);
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtBinaryUnLoad(again));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(desc, &bin)); /* destroyed */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtCreateBinary");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyBinary(desc));
    free(bytes);
}

TEST(binary_descriptors_refuse_bad_input)
{
    static const unsigned char junk[] = "\x7f" "ELF, but not a shared object";
    CHECK(aclrtCreateBinary(NULL, 10) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "data is NULL");
    CHECK(aclrtCreateBinary(junk, 0) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "dataLen is 0");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyBinary(NULL));
    int not_a_binary = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyBinary(&not_a_binary));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(&not_a_binary, NULL));
    aclrtBinHandle bin = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(NULL, &bin));
    aclrtBinary desc = aclrtCreateBinary(junk, sizeof junk);
    CHECK(desc != NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(desc, NULL));
    CHECK(aclrtBinaryLoad(desc, &bin) != ACL_SUCCESS); /* not a binary: the load's own code */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtBinaryLoad]"); /* the message names the call made */
    CHECK_OK(aclrtDestroyBinary(desc));
}

TEST(a_kernels_host_address_gives_its_function)
{
    aclrtBinHandle bin;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    aclrtFuncHandle by_symbol = NULL;
    CHECK_OK(aclrtGetFuncBySymbol(dlsym(lib, "fill"), &by_symbol));
    CHECK(by_symbol == function(bin, "fill")); /* the same name, the same handle */
    char name[32];
    CHECK_OK(aclrtGetFunctionName(by_symbol, sizeof name, name));
    CHECK(strcmp(name, "fill") == 0);
    int32_t got[4] = {0};
    run_fill(by_symbol, 5, got);
    CHECK_EQ(8, got[3]);
    aclrtBinHandle owner = NULL;
    CHECK_OK(aclrtFunctionGetBinary(by_symbol, &owner));
    CHECK(owner == bin);
    /* Not a function, not a loaded binary's, NULL. */
    int32_t local = 0;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFuncBySymbol(dlsym(lib, "test_global"), &by_symbol));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a function");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFuncBySymbol(&local, &by_symbol));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFuncBySymbol((const void *)(uintptr_t)read_file, &by_symbol));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetFuncBySymbol(NULL, &by_symbol));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetFuncBySymbol(dlsym(lib, "fill"), NULL));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFuncBySymbol(dlsym(lib, "fill"), &by_symbol));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "in no loaded binary");
}

TEST(a_functions_entry_gives_it_back)
{
    aclrtBinHandle bin;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    aclrtFuncHandle sum = function(bin, "sum"), got = NULL;
    void *aic = NULL, *aiv = NULL;
    CHECK_OK(aclrtGetFunctionAddr(sum, &aic, &aiv));
    CHECK_OK(aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)aic, &got));
    CHECK(got == sum);
    /* A kernel not looked up yet, by its host address. */
    CHECK_OK(aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)dlsym(lib, "fill"), &got));
    CHECK(got == function(bin, "fill"));
    int32_t vals[4] = {0};
    run_fill(got, 100, vals);
    CHECK_EQ(101, vals[1]);
    /* Bad entries: 0, a variable, an address of no binary, a function of another binary. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunctionByEntry(bin, 0, &got));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)dlsym(lib, "test_global"), &got));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)&got, &got));
    size_t size = 0;
    unsigned char *bytes = read_file(KERNELS, &size);
    aclrtBinHandle other;
    CHECK_OK(aclrtBinaryLoadFromData(bytes, size, NULL, &other)); /* a library of its own */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtBinaryGetFunctionByEntry(other, (uint64_t)(uintptr_t)dlsym(lib, "fill"), &got));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "another binary");
    CHECK_OK(aclrtBinaryUnLoad(other));
    free(bytes);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)aic, NULL));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)aic, &got));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunctionByEntry(NULL, (uint64_t)(uintptr_t)aic, &got));
}

/* What the binary's exception callback saw. */
static atomic_int cb_calls;
static _Atomic(void *) cb_data;
static _Atomic(aclrtFuncHandle) cb_func;
static atomic_uint cb_code;
static atomic_int global_calls;
static atomic_int cb_before_global; /* the binary's callback ran before the process-wide one */

static void on_binary_exception(aclrtExceptionInfo *info, void *userData)
{
    aclrtFuncHandle f = NULL;
    if (aclrtGetFuncHandleFromExceptionInfo(info, &f) == ACL_SUCCESS)
        atomic_store(&cb_func, f);
    atomic_store(&cb_code, aclrtGetErrorCodeFromExceptionInfo(info));
    atomic_store(&cb_data, userData);
    if (atomic_load(&global_calls) == atomic_load(&cb_calls))
        atomic_fetch_add(&cb_before_global, 1);
    atomic_fetch_add(&cb_calls, 1);
}

static void on_any_exception(aclrtExceptionInfo *info)
{
    (void)info;
    atomic_fetch_add(&global_calls, 1);
}

/* fail_block of `f` on a stream of its own: block 1 fails with ACL_ERROR_RT_AICORE_EXCEPTION. */
static void fail_once(aclrtFuncHandle f)
{
    aclrtStream t;
    CHECK_OK(aclrtCreateStream(&t));
    struct fail_args a = {1, ACL_ERROR_RT_AICORE_EXCEPTION};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 2, t, NULL, &a, sizeof a, NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(t));
    CHECK_OK(aclrtDestroyStream(t));
}

TEST(a_binarys_exception_callback_runs_for_its_failing_kernels_only)
{
    aclrtBinHandle bin, other;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    size_t size = 0;
    unsigned char *bytes = read_file(KERNELS, &size);
    CHECK_OK(aclrtBinaryLoadFromData(bytes, size, NULL, &other));
    aclrtFuncHandle fail = function(bin, "fail_block"), other_fail = function(other, "fail_block");
    int token = 0;
    CHECK_OK(aclrtSetExceptionInfoCallback(on_any_exception));
    CHECK_OK(aclrtBinarySetExceptionCallback(bin, on_binary_exception, NULL));
    CHECK_OK(aclrtBinarySetExceptionCallback(bin, on_binary_exception, &token)); /* the last one set wins */
    fail_once(fail);
    CHECK_EQ(1, atomic_load(&cb_calls));
    CHECK_EQ(1, atomic_load(&global_calls));
    CHECK_EQ(1, atomic_load(&cb_before_global));
    CHECK(atomic_load(&cb_data) == &token);
    CHECK(atomic_load(&cb_func) == fail);
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, atomic_load(&cb_code));
    fail_once(other_fail); /* another binary's kernel: not this callback */
    CHECK_EQ(1, atomic_load(&cb_calls));
    CHECK_EQ(2, atomic_load(&global_calls));
    CHECK_OK(aclrtBinarySetExceptionCallback(bin, NULL, NULL)); /* cleared */
    fail_once(fail);
    CHECK_EQ(1, atomic_load(&cb_calls));
    CHECK_EQ(3, atomic_load(&global_calls));
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtBinaryUnLoad(other));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinarySetExceptionCallback(bin, on_binary_exception, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinarySetExceptionCallback(NULL, on_binary_exception, NULL));
    free(bytes);
}

int main(void)
{
    /*
     * The failing kernels' case goes on in the same context: on the driver
     * test double a kernel fault is not sticky here (on a GPU it loses the
     * context; this program runs on the double only).
     */
    setenv("ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS", "1", 0);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    lib = dlopen(KERNELS, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "FAIL: cannot open %s: %s\n", KERNELS, dlerror());
        return 1;
    }
    RUN(a_binary_descriptor_loads_the_bytes_it_describes);
    RUN(binary_descriptors_refuse_bad_input);
    RUN(a_kernels_host_address_gives_its_function);
    RUN(a_functions_entry_gives_it_back);
    RUN(a_binarys_exception_callback_runs_for_its_failing_kernels_only);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    dlclose(lib);
    return check_report("kernel_ext");
}
