/*
 * tests/test_symbol.c - pins "Device variables" (docs/SEMANTICS.md): a
 * loaded binary's global variables named by their host symbol (the
 * address its shared object exports), their device address and size, and
 * copies into and out of them, synchronous and in stream order, read and
 * written by the binary's kernels; bad symbols, sizes and kinds.
 */
#define _GNU_SOURCE

#include "check.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#ifndef ACLRT_TEST_KERNEL_DIR
#error "ACLRT_TEST_KERNEL_DIR: the directory of the test kernels (the Makefile passes it)"
#endif
#define KERNELS ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so"

static aclrtStream s;
static aclrtBinHandle bin;
static void *lib;                /* the same shared object, opened by the test: where the symbols come from */
static int32_t *scale_sym;       /* &symbol_scale */
static double *table_sym;        /* symbol_table[6] */
static aclrtFuncHandle scale_fn; /* data[blockIdx] *= symbol_scale */
static int32_t *data;            /* device memory, 4 values */

static int32_t scale_now(void)
{
    int32_t v = -1;
    CHECK_OK(aclrtMemcpyFromSymbol(&v, sizeof v, scale_sym, sizeof v, 0, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

static void set_data(int32_t v)
{
    int32_t h[4] = {v, v, v, v};
    CHECK_OK(aclrtMemcpy(data, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void launch_scale(void)
{
    struct {
        int32_t *data;
    } a = {data};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(scale_fn, 4, s, NULL, &a, sizeof a, NULL, 0));
}

static int32_t data_at(int i)
{
    int32_t h[4];
    CHECK_OK(aclrtMemcpy(h, sizeof h, data, sizeof h, ACL_MEMCPY_DEVICE_TO_HOST));
    return h[i];
}

TEST(a_symbol_gives_its_variables_device_address_and_size)
{
    void *dev = NULL, *global = NULL;
    size_t size = 0, global_size = 0;
    CHECK_OK(aclrtGetSymbolAddress(table_sym, &dev));
    CHECK_OK(aclrtBinaryGetGlobal(bin, "symbol_table", &global, &global_size));
    CHECK(dev == global);
    if (strcmp(aclrtxGetBackendName(), "host") == 0)
        CHECK(dev == (void *)table_sym); /* the host device's memory is the host's */
    CHECK_OK(aclrtGetSymbolSize(table_sym, &size));
    CHECK_EQ(6 * sizeof(double), size);
    CHECK_OK(aclrtGetSymbolSize(scale_sym, &size));
    CHECK_EQ(sizeof(int32_t), size);
}

TEST(a_copy_to_a_symbol_is_what_the_kernels_read)
{
    int32_t v = 5;
    CHECK_OK(aclrtMemcpyToSymbol(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(5, scale_now());
    set_data(2);
    launch_scale();
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(10, data_at(0));
    CHECK_EQ(10, data_at(3));
    v = 3;
    CHECK_OK(aclrtMemcpyToSymbol(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_DEFAULT));
    CHECK_EQ(3, scale_now());
}

TEST(copies_at_an_offset_touch_only_their_bytes)
{
    double two[2] = {-1.0, -2.0};
    CHECK_OK(aclrtMemcpyToSymbol(table_sym, two, sizeof two, 2 * sizeof(double), ACL_MEMCPY_HOST_TO_DEVICE));
    double all[6] = {0};
    CHECK_OK(aclrtMemcpyFromSymbol(all, sizeof all, table_sym, sizeof all, 0, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(all[0] == 1.5 && all[1] == 2.5 && all[2] == -1.0 && all[3] == -2.0 && all[4] == 5.5 && all[5] == 6.5);
    double last = 0;
    CHECK_OK(aclrtMemcpyFromSymbol(&last, sizeof last, table_sym, sizeof last, 5 * sizeof(double), ACL_MEMCPY_DEFAULT));
    CHECK(last == 6.5);
    /* The whole variable, up to its last byte; a zero-byte copy at its end. */
    CHECK_OK(aclrtMemcpyFromSymbol(all, sizeof all, table_sym, 0, sizeof all, ACL_MEMCPY_DEVICE_TO_HOST));
    double restore[2] = {3.5, 4.5};
    CHECK_OK(aclrtMemcpyToSymbol(table_sym, restore, sizeof restore, 2 * sizeof(double), ACL_MEMCPY_HOST_TO_DEVICE));
}

TEST(async_copies_to_and_from_a_symbol_run_in_stream_order)
{
    int32_t *pinned;
    CHECK_OK(aclrtMallocHost((void **)&pinned, 4 * sizeof(int32_t)));
    pinned[0] = 7;
    pinned[1] = 11;
    pinned[2] = -1;
    pinned[3] = -1;
    set_data(1);
    CHECK_OK(aclrtMemcpyToSymbolAsync(scale_sym, &pinned[0], sizeof(int32_t), 0, ACL_MEMCPY_HOST_TO_DEVICE, s));
    launch_scale();
    CHECK_OK(aclrtMemcpyFromSymbolAsync(&pinned[2], sizeof(int32_t), scale_sym, sizeof(int32_t), 0,
                                        ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK_OK(aclrtMemcpyToSymbolAsync(scale_sym, &pinned[1], sizeof(int32_t), 0, ACL_MEMCPY_DEFAULT, s));
    launch_scale();
    CHECK_OK(aclrtMemcpyFromSymbolAsync(&pinned[3], sizeof(int32_t), scale_sym, sizeof(int32_t), 0,
                                        ACL_MEMCPY_DEFAULT, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(77, data_at(1)); /* 1 * 7 * 11: each kernel saw the copy before it */
    CHECK_EQ(7, pinned[2]);
    CHECK_EQ(11, pinned[3]);
    int32_t v = 3;
    CHECK_OK(aclrtMemcpyToSymbolAsync(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_HOST_TO_DEVICE, NULL)); /* default stream */
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(3, scale_now());
    CHECK_OK(aclrtFreeHost(pinned));
}

TEST(what_is_not_a_variable_of_a_loaded_binary_is_refused)
{
    void *dev = NULL;
    size_t size = 0;
    int32_t local = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetSymbolAddress(NULL, &dev));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetSymbolSize(NULL, &size));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetSymbolAddress(table_sym, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetSymbolSize(table_sym, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetSymbolAddress(&local, &dev)); /* the stack */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetSymbolAddress(table_sym + 1, &dev)); /* inside a variable */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not the address of a variable");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetSymbolSize(dlsym(lib, "fill"), &size)); /* a kernel */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a variable");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetSymbolAddress((void *)&s, &dev)); /* the test's own */
    /* A variable of a shared object that no binary loaded. */
    void *libc_var = dlsym(RTLD_DEFAULT, "environ");
    if (libc_var != NULL)
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetSymbolAddress(libc_var, &dev));
    /* Once its binary is unloaded, the library the test holds open is no binary. */
    aclrtBinHandle other;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &other));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtGetSymbolSize(table_sym, &size)); /* the other binary of the same file */
    CHECK_OK(aclrtBinaryUnLoad(other));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetSymbolSize(table_sym, &size));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "in no loaded binary");
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    CHECK_OK(aclrtBinaryGetFunction(bin, "scale_by_symbol", &scale_fn));
}

TEST(copies_refuse_bad_sizes_kinds_and_pointers_and_write_nothing)
{
    int32_t v = 99, out = -5;
    double big[7] = {0};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(scale_sym, NULL, sizeof v, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(NULL, &v, sizeof v, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(scale_sym, &v, sizeof v, 1, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(scale_sym, &v, 8, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(scale_sym, &v, 1, SIZE_MAX, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "beyond the variable");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyToSymbol(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyToSymbolAsync(table_sym, big, sizeof big, 0, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyToSymbolAsync(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyFromSymbol(&out, sizeof out, scale_sym, sizeof out, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyFromSymbol(NULL, 4, scale_sym, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyFromSymbol(&out, 2, scale_sym, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyFromSymbolAsync(big, sizeof big, table_sym, sizeof big, 0, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyFromSymbolAsync(&out, sizeof out, scale_sym, 4, 2, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclrtStream dead;
    CHECK_OK(aclrtCreateStream(&dead));
    CHECK_OK(aclrtDestroyStream(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtMemcpyToSymbolAsync(scale_sym, &v, sizeof v, 0, ACL_MEMCPY_HOST_TO_DEVICE, dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtMemcpyFromSymbolAsync(&out, sizeof out, scale_sym, sizeof out, 0, ACL_MEMCPY_DEVICE_TO_HOST, dead));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(-5, out);
    CHECK_EQ(3, scale_now()); /* nothing was written */
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS ||
        aclrtBinaryLoadFromFile(KERNELS, NULL, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "scale_by_symbol", &scale_fn) != ACL_SUCCESS ||
        aclrtMalloc((void **)&data, 4 * sizeof(int32_t), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    lib = dlopen(KERNELS, RTLD_NOW | RTLD_LOCAL);
    scale_sym = lib != NULL ? (int32_t *)dlsym(lib, "symbol_scale") : NULL;
    table_sym = lib != NULL ? (double *)dlsym(lib, "symbol_table") : NULL;
    if (scale_sym == NULL || table_sym == NULL) {
        fprintf(stderr, "FAIL: cannot open %s: %s\n", KERNELS, dlerror());
        return 1;
    }
    RUN(a_symbol_gives_its_variables_device_address_and_size);
    RUN(a_copy_to_a_symbol_is_what_the_kernels_read);
    RUN(copies_at_an_offset_touch_only_their_bytes);
    RUN(async_copies_to_and_from_a_symbol_run_in_stream_order);
    RUN(what_is_not_a_variable_of_a_loaded_binary_is_refused);
    RUN(copies_refuse_bad_sizes_kinds_and_pointers_and_write_nothing);
    aclrtFree(data);
    aclrtBinaryUnLoad(bin);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    dlclose(lib);
    return check_report("symbol");
}
