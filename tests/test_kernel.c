/*
 * tests/test_kernel.c - pins "Kernels" (docs/SEMANTICS.md, Kernels): loading
 * binaries (a file, data in memory), their functions and queries, the three
 * ways of passing arguments (device memory read when the kernel runs, host
 * args and args handles copied at the launch), argument updates and
 * placeholders, stream order against events and waits, failing and
 * overrunning kernels, unloading with launches queued, and bad input.
 *
 * The kernels are tests/kernels/test_kernels.c, built by the Makefile as a
 * shared object in a directory whose absolute path is compiled in
 * (ACLRT_TEST_KERNEL_DIR), so the tests find it from any working directory.
 */
#define _GNU_SOURCE

#include "check.h"
#include "kernels/test_kernels.h"
#include "gate.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

struct out_args {
    int32_t *out;
};

static aclrtContext main_ctx;

static aclrtBinHandle load(void)
{
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    CHECK(bin != NULL);
    return bin;
}

static aclrtFuncHandle function(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, name, &f));
    CHECK(f != NULL);
    return f;
}

/* A launch with host args (copied at the launch), no placeholders. */
static aclError launch(aclrtFuncHandle f, uint32_t blocks, aclrtStream s, void *args, size_t size)
{
    return aclrtLaunchKernelWithHostArgs(f, blocks, s, NULL, args, size, NULL, 0);
}

/* The whole file in malloc'd memory. */
static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    CHECK_EQ(0, fseek(f, 0, SEEK_END));
    long n = ftell(f);
    CHECK(n > 0);
    rewind(f);
    unsigned char *p = (unsigned char *)malloc((size_t)n);
    CHECK(p != NULL);
    CHECK_EQ(n, (long)fread(p, 1, (size_t)n, f));
    fclose(f);
    *size = (size_t)n;
    return p;
}

/*
 * Is the test kernels' library mapped in the process right now? On a
 * backend with a driver of its own (cuda), a module whose last launch
 * ended on the driver's callback thread, which may not call the driver, is
 * unloaded by the next module operation: one is made first (a load from
 * data is a library of its own; on the host backend it changes nothing).
 */
static bool kernels_library_loaded(void)
{
    const char *backend = aclrtxGetBackendName(); /* NULL: the runtime stopped, every module is unloaded */
    if (backend != NULL && strcmp(backend, "host") != 0) {
        size_t size;
        unsigned char *bytes = read_file(KERNELS, &size);
        aclrtBinHandle other = NULL;
        CHECK_OK(aclrtBinaryLoadFromData(bytes, size, NULL, &other));
        CHECK_OK(aclrtBinaryUnLoad(other));
        free(bytes);
    }
    char *real = realpath(KERNELS, NULL);
    CHECK(real != NULL);
    void *h = dlopen(real, RTLD_NOW | RTLD_NOLOAD);
    free(real);
    if (h != NULL)
        dlclose(h);
    return h != NULL;
}

/*
 * The library closes once the launches queued before its unload are done:
 * at once on the host backend; on the cuda backend the thread that retires
 * the last launch's record (a holder, a waiter, a module operation) may
 * still be closing it when the waits return, so this looks again, within
 * a bound, until it is closed.
 */
static bool kernels_library_closes(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (kernels_library_loaded()) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 5)
            return false;
        sched_yield();
    }
    return true;
}

/* What an exception callback saw (it runs on a runtime thread before the task counts as done). */
static atomic_int ex_calls;
static _Atomic(aclrtFuncHandle) ex_func;
static _Atomic(void *) ex_args;
static atomic_uint ex_args_len, ex_code, ex_task, ex_stream;
static struct fail_args ex_args_seen;

static void on_exception(aclrtExceptionInfo *info)
{
    aclrtFuncHandle f = NULL;
    void *args = NULL;
    uint32_t len = 0;
    if (aclrtGetFuncHandleFromExceptionInfo(info, &f) == ACL_SUCCESS)
        atomic_store(&ex_func, f);
    if (aclrtGetArgsFromExceptionInfo(info, &args, &len) == ACL_SUCCESS) {
        atomic_store(&ex_args, args);
        atomic_store(&ex_args_len, len);
        if (args != NULL && len >= sizeof ex_args_seen)
            memcpy(&ex_args_seen, args, sizeof ex_args_seen); /* readable only during the call */
    }
    atomic_store(&ex_code, aclrtGetErrorCodeFromExceptionInfo(info));
    atomic_store(&ex_task, aclrtGetTaskIdFromExceptionInfo(info));
    atomic_store(&ex_stream, aclrtGetStreamIdFromExceptionInfo(info));
    atomic_fetch_add(&ex_calls, 1);
}

static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetExceptionInfoCallback(NULL);
    aclrtSetCurrentContext(main_ctx);
    aclrtSynchronizeDevice();
    aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    aclGetRecentErrMsg();
}

/* ------------------------------------------------------------------------
 * Loading, functions, queries
 * ------------------------------------------------------------------------ */

TEST(a_binary_loaded_from_a_file_runs_its_kernel_on_every_block)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill"), count = function(bin, "count_blocks");
    int32_t out[8];
    uint32_t seen[8];
    memset(out, 0, sizeof out);
    memset(seen, 0, sizeof seen);
    struct fill_args fa = {out, 100};
    struct blocks_args ba = {seen};
    CHECK_OK(launch(fill, 8, NULL, &fa, sizeof fa));
    CHECK_OK(launch(count, 8, NULL, &ba, sizeof ba));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(100 + i, out[i]);
        CHECK_EQ(8, seen[i]); /* every block ran once and was told the count */
    }
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_binary_loaded_from_data_keeps_no_reference_to_the_callers_bytes)
{
    size_t size;
    unsigned char *bytes = read_file(KERNELS, &size);
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtBinaryLoadFromData(bytes, size, NULL, &bin));
    memset(bytes, 0xA5, size); /* the caller's bytes are gone... */
    free(bytes);
    aclrtFuncHandle fill = function(bin, "fill"); /* ...and the binary still works */
    int32_t out[3] = {0, 0, 0};
    struct fill_args fa = {out, -7};
    CHECK_OK(launch(fill, 3, NULL, &fa, sizeof fa));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(-7, out[0]);
    CHECK_EQ(-5, out[2]);
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(each_load_from_data_is_a_library_of_its_own_and_loads_of_one_file_share_one)
{
    size_t size;
    unsigned char *bytes = read_file(KERNELS, &size);
    aclrtBinHandle d1 = NULL, d2 = NULL;
    CHECK_OK(aclrtBinaryLoadFromData(bytes, size, NULL, &d1));
    CHECK_OK(aclrtBinaryLoadFromData(bytes, size, NULL, &d2));
    free(bytes);
    aclrtBinHandle f1 = load(), f2 = load();
    CHECK(d1 != d2 && f1 != f2); /* handles of their own in every case */
    int32_t r[4] = {0, 0, 0, 0};
    struct out_args a[4] = {{&r[0]}, {&r[1]}, {&r[2]}, {&r[3]}};
    aclrtBinHandle bins[4] = {d1, d2, f1, f2};
    for (int i = 0; i < 4; i++)
        CHECK_OK(launch(function(bins[i], "bump_counter"), 1, NULL, &a[i], sizeof a[i]));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, r[0]); /* a library's state is its own */
    CHECK_EQ(1, r[1]);
    CHECK_EQ(1, r[2]); /* the dynamic loader opens one file once: its state is shared */
    CHECK_EQ(2, r[3]);
    for (int i = 0; i < 4; i++)
        CHECK_OK(aclrtBinaryUnLoad(bins[i]));
}

TEST(a_relative_path_is_the_working_directorys_and_never_a_library_search)
{
    char *cwd = getcwd(NULL, 0);
    CHECK(cwd != NULL);
    aclrtBinHandle bin = NULL;
    aclError in_dir = ACL_SUCCESS, not_found = ACL_SUCCESS;
    if (chdir(ACLRT_TEST_KERNEL_DIR) == 0) {
        in_dir = aclrtBinaryLoadFromFile("libtest_kernels.so", NULL, &bin);
        not_found = aclrtBinaryLoadFromFile("libc.so.6", NULL, &bin); /* a system library, not in this directory */
        CHECK_EQ(0, chdir(cwd));
    }
    free(cwd);
    CHECK_OK(in_dir);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, not_found);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot be accessed");
    function(bin, "fill");
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_kernel_name_gives_one_function_handle_that_names_its_binary)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle f = function(bin, "fill");
    CHECK(function(bin, "fill") == f);
    CHECK(function(bin, "sum") != f);
    char name[16];
    CHECK_OK(aclrtGetFunctionName(f, sizeof name, name));
    CHECK(strcmp(name, "fill") == 0);
    CHECK_OK(aclrtGetFunctionName(f, 5, name)); /* exactly the name and its NUL */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionName(f, 4, name));
    aclrtBinHandle owner = NULL;
    CHECK_OK(aclrtFunctionGetBinary(f, &owner));
    CHECK(owner == bin);
    void *aic = NULL, *aiv = (void *)1;
    CHECK_OK(aclrtGetFunctionAddr(f, &aic, &aiv));
    void *dl = dlopen(KERNELS, RTLD_NOW | RTLD_NOLOAD);
    CHECK(dl != NULL);
    if (strcmp(aclrtxGetBackendName(), "host") == 0)
        CHECK(aic == dlsym(dl, "fill")); /* the kernel's entry point; no vector-core part */
    else
        CHECK(aic != NULL); /* the driver's function (CUfunction) */
    dlclose(dl);
    CHECK(aiv == NULL);
    size_t aic_size = 0, aiv_size = 1;
    CHECK_OK(aclrtGetFunctionSize(f, &aic_size, &aiv_size));
    if (strcmp(aclrtxGetBackendName(), "host") == 0) /* started: a binary is loaded */
        CHECK(aic_size > 0); /* the symbol's size; a GPU module's driver does not say (0) */
    else
        CHECK_EQ(0, aic_size);
    CHECK_EQ(0, aiv_size);
    void *base = NULL;
    size_t bin_size = 0;
    struct stat st;
    CHECK_EQ(0, stat(KERNELS, &st));
    CHECK_OK(aclrtBinaryGetDevAddress(bin, &base, &bin_size));
    CHECK(base != NULL);
    CHECK_EQ(st.st_size, bin_size);
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_binarys_global_is_memory_its_kernels_read)
{
    aclrtBinHandle bin = load();
    int32_t *global = NULL;
    size_t size = 0;
    CHECK_OK(aclrtBinaryGetGlobal(bin, "test_global", (void **)&global, &size));
    CHECK_EQ(4 * sizeof(int32_t), size);
    /* Device memory: read and written through copies. */
    int32_t g[4] = {0, 0, 0, 0};
    CHECK_OK(aclrtMemcpy(g, sizeof g, global, sizeof g, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(7, g[0]);
    CHECK_EQ(10, g[3]);
    int32_t v = 90;
    CHECK_OK(aclrtMemcpy(&global[2], sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
    int32_t out[4] = {0, 0, 0, 0};
    struct out_args a = {out};
    CHECK_OK(launch(function(bin, "read_global"), 4, NULL, &a, sizeof a));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(90, out[2]);
    CHECK_EQ(8, out[1]);
    v = 9;
    CHECK_OK(aclrtMemcpy(&global[2], sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
    /* aclrtMemset reaches it too: device memory the runtime did not allocate (cuPointerGetAttribute on cuda). */
    CHECK_OK(aclrtMemset(global, 16, 0x01, 16));
    CHECK_OK(aclrtMemcpy(g, sizeof g, global, sizeof g, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0x01010101, g[0]);
    CHECK_EQ(0x01010101, g[3]);
    const int32_t orig[4] = {7, 8, 9, 10};
    CHECK_OK(aclrtMemcpy(global, sizeof orig, orig, sizeof orig, ACL_MEMCPY_HOST_TO_DEVICE));
    size = 0;
    CHECK_OK(aclrtBinaryGetGlobal(bin, "test_global", NULL, &size)); /* one output is enough */
    CHECK_EQ(16, size);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetGlobal(bin, "fill", (void **)&global, &size)); /* a function */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetGlobal(bin, "no_such_global", (void **)&global, &size));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetGlobal(bin, "test_global", NULL, NULL));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

/* ------------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------------ */

TEST(a_launch_after_its_argument_memory_was_freed_is_refused)
{
    /* A thread remembers the allocation its last lookup found: a free must end that at once. */
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t *out = NULL;
    struct fill_args *dev = NULL;
    CHECK_OK(aclrtMalloc((void **)&out, 4 * sizeof *out, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&dev, sizeof *dev, ACL_MEM_MALLOC_HUGE_FIRST));
    struct fill_args args = {out, 7};
    CHECK_OK(aclrtMemcpy(dev, sizeof *dev, &args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtLaunchKernel(fill, 1, dev, sizeof *dev, s));
    CHECK_OK(aclrtLaunchKernel(fill, 1, dev, sizeof *dev, s)); /* the same arguments again */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtFree(dev));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 1, dev, sizeof *dev, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "device memory");
    /* Host memory that takes the address: still not device memory. */
    void *host = NULL;
    CHECK_OK(aclrtMallocHost(&host, sizeof *dev));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 1, host, sizeof *dev, s));
    CHECK_OK(aclrtFreeHost(host));
    int32_t got = 0;
    CHECK_OK(aclrtMemcpy(&got, sizeof got, out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(7, got);
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(launch_kernel_reads_its_device_memory_arguments_when_the_kernel_runs)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t *out = NULL;
    struct fill_args *dev = NULL;
    CHECK_OK(aclrtMalloc((void **)&out, 4 * sizeof *out, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&dev, sizeof *dev, ACL_MEM_MALLOC_HUGE_FIRST));
    struct fill_args first = {out, 1}, *later = NULL;
    CHECK_OK(aclrtMallocHost((void **)&later, sizeof *later)); /* pinned: the copy below does not wait */
    *later = (struct fill_args){out, 50};
    CHECK_OK(aclrtMemcpy(dev, sizeof *dev, &first, sizeof first, ACL_MEMCPY_HOST_TO_DEVICE));
    struct gate *g = launch_gate(s);
    /* In stream order, before the kernel: an asynchronous copy rewrites its arguments. */
    CHECK_OK(aclrtMemcpyAsync(dev, sizeof *dev, later, sizeof *later, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_OK(aclrtLaunchKernel(fill, 4, dev, sizeof *dev, s));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    int32_t got[4] = {0, 0, 0, 0};
    CHECK_OK(aclrtMemcpy(got, sizeof got, out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(50, got[0]);
    CHECK_EQ(53, got[3]);
    /* Host memory is not where a device reads arguments. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 4, &first, sizeof first, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "device memory");
    /* V2: the same, with a configuration. */
    aclrtLaunchKernelAttr attr = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, .value = {.schemMode = 1}};
    aclrtLaunchKernelCfg cfg = {&attr, 1};
    CHECK_OK(aclrtMemcpy(dev, sizeof *dev, &first, sizeof first, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtLaunchKernelV2(fill, 2, dev, sizeof *dev, &cfg, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtMemcpy(got, sizeof got, out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(2, got[1]);
    CHECK_OK(aclrtFreeHost(later));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(host_args_are_copied_at_the_launch_with_placeholders_pointing_into_the_copy)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle sum = function(bin, "sum");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int64_t result = 0;
    /* The args, then the placeholder's data behind them, in one host buffer. */
    struct {
        struct sum_args a;
        int32_t data[4];
    } host = {{&result, NULL, 4}, {1, 2, 3, 4}};
    aclrtPlaceHolderInfo ph = {(uint32_t)offsetof(struct sum_args, data), (uint32_t)offsetof(__typeof__(host), data)};
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchKernelWithHostArgs(sum, 1, s, NULL, &host, sizeof host, &ph, 1));
    host.data[0] = 1000; /* after the launch: not what the kernel sees */
    host.a.n = 1;
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(10, result);
    CHECK(host.a.data == NULL); /* the caller's buffer is not written */
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(an_args_handle_lays_parameters_out_at_their_natural_alignment)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle mixed = function(bin, "mixed");
    aclrtArgsHandle args = NULL;
    aclrtParamHandle p;
    uint64_t out[5] = {0, 0, 0, 0, 0};
    uint64_t *outp = out;
    uint8_t c = 0xAB, tail = 0x5C;
    uint16_t h = 0xBEEF;
    uint32_t i = 0xDEADBEEF;
    uint64_t l = 0x0123456789ABCDEFull;
    CHECK_OK(aclrtKernelArgsInit(mixed, &args));
    CHECK_OK(aclrtKernelArgsAppend(args, &outp, sizeof outp, &p));
    CHECK_OK(aclrtKernelArgsAppend(args, &c, sizeof c, &p));
    CHECK_OK(aclrtKernelArgsAppend(args, &h, sizeof h, &p));
    CHECK_OK(aclrtKernelArgsAppend(args, &i, sizeof i, &p));
    CHECK_OK(aclrtKernelArgsAppend(args, &l, sizeof l, &p));
    CHECK_OK(aclrtKernelArgsAppend(args, &tail, sizeof tail, &p));
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_OK(aclrtLaunchKernelWithConfig(mixed, 1, NULL, NULL, args, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(c, out[0]);
    CHECK_EQ(h, out[1]);
    CHECK_EQ(i, out[2]);
    CHECK_EQ((long long)l, (long long)out[3]);
    CHECK_EQ(tail, out[4]);
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_parameter_update_changes_the_launches_after_it_not_the_ones_queued)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t first[2] = {0, 0}, second[2] = {0, 0};
    int32_t *out = first;
    int32_t value = 1;
    aclrtArgsHandle args = NULL;
    aclrtParamHandle p_out, p_value;
    CHECK_OK(aclrtKernelArgsInit(fill, &args));
    CHECK_OK(aclrtKernelArgsAppend(args, &out, sizeof out, &p_out));
    CHECK_OK(aclrtKernelArgsAppend(args, &value, sizeof value, &p_value));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(fill, 2, s, NULL, args, NULL)); /* not finalized */
    CHECK_OK(aclrtKernelArgsFinalize(args));
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchKernelWithConfig(fill, 2, s, NULL, args, NULL));
    out = second;
    value = 20;
    CHECK_OK(aclrtKernelArgsParaUpdate(args, p_out, &out, sizeof out));
    CHECK_OK(aclrtKernelArgsParaUpdate(args, p_value, &value, sizeof value));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(fill, 2, s, NULL, args, NULL)); /* updated */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtKernelArgsFinalize");
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_OK(aclrtLaunchKernelWithConfig(fill, 2, s, NULL, args, NULL));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, first[0]); /* the launch queued before the update ran with its own copy */
    CHECK_EQ(2, first[1]);
    CHECK_EQ(20, second[0]);
    CHECK_EQ(21, second[1]);
    /* An update must keep the parameter's size; placeholders are updated through their buffer. */
    int64_t wide = 5;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsParaUpdate(args, p_value, &wide, sizeof wide));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_placeholder_points_to_its_data_in_each_launchs_copy)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle sum = function(bin, "sum");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int64_t r1 = 0, r2 = 0, r3 = 0;
    int64_t *out = &r1;
    uint32_t n = 3;
    aclrtArgsHandle args = NULL;
    aclrtParamHandle p_out, p_data, p_n;
    CHECK_OK(aclrtKernelArgsInit(sum, &args));
    CHECK_OK(aclrtKernelArgsAppend(args, &out, sizeof out, &p_out));
    CHECK_OK(aclrtKernelArgsAppendPlaceHolder(args, &p_data));
    CHECK_OK(aclrtKernelArgsAppend(args, &n, sizeof n, &p_n));
    /* A placeholder without a buffer: the kernel sees NULL. */
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_OK(aclrtLaunchKernelWithConfig(sum, 1, s, NULL, args, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(-1, r1);
    /* With one: the data taken last, after every parameter. */
    CHECK_OK(aclrtKernelArgsInit(sum, &args));
    CHECK_OK(aclrtKernelArgsAppend(args, &out, sizeof out, &p_out));
    CHECK_OK(aclrtKernelArgsAppendPlaceHolder(args, &p_data));
    CHECK_OK(aclrtKernelArgsAppend(args, &n, sizeof n, &p_n));
    int32_t *data = NULL;
    CHECK_OK(aclrtKernelArgsGetPlaceHolderBuffer(args, p_data, 3 * sizeof(int32_t), (void **)&data));
    CHECK(data != NULL);
    data[0] = 5, data[1] = 6, data[2] = 7;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtKernelArgsAppend(args, &n, sizeof n, &p_n));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsGetPlaceHolderBuffer(args, p_n, 4, (void **)&data));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsParaUpdate(args, p_data, &out, sizeof out));
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtKernelArgsAppendPlaceHolder(args, &p_data));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtKernelArgsGetPlaceHolderBuffer(args, p_data, 4, (void **)&data));
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchKernelWithConfig(sum, 1, s, NULL, args, NULL));
    /* Placeholder data changes between launches like any value: through its buffer, then a finalize. */
    data[2] = 70;
    out = &r2;
    CHECK_OK(aclrtKernelArgsParaUpdate(args, p_out, &out, sizeof out));
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_OK(aclrtLaunchKernelWithConfig(sum, 1, s, NULL, args, NULL));
    out = &r3;
    n = 2;
    CHECK_OK(aclrtKernelArgsParaUpdate(args, p_out, &out, sizeof out));
    CHECK_OK(aclrtKernelArgsParaUpdate(args, p_n, &n, sizeof n));
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_OK(aclrtLaunchKernelWithConfig(sum, 1, s, NULL, args, NULL));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(18, r1);
    CHECK_EQ(81, r2);
    CHECK_EQ(11, r3);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

/*
 * Every launch runs with the arguments it was given, over several laps of
 * the stream's task ring: small copies (which live beside the task's ring
 * slot) and large ones (a copy of their own) interleaved, the stream
 * draining as the launches come.
 */
TEST(each_launch_keeps_its_own_argument_copy_over_laps_of_the_ring)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill"), sum = function(bin, "sum");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    enum { LAUNCHES = 3000, BIG = 48 }; /* the ring holds 1024 tasks; BIG int32s make a copy of over 128 bytes */
    int32_t *small = calloc(LAUNCHES, sizeof *small);
    int64_t *big = calloc(LAUNCHES, sizeof *big);
    CHECK(small != NULL && big != NULL);
    struct {
        struct sum_args a;
        int32_t data[BIG];
    } sa;
    for (int i = 0; i < LAUNCHES; i++) {
        struct fill_args fa = {&small[i], i};
        CHECK_OK(launch(fill, 1, s, &fa, sizeof fa));
        if (i % 3 == 0) {
            sa.a.out = &big[i];
            sa.a.data = NULL; /* a placeholder: the copy's data */
            sa.a.n = BIG;
            for (int k = 0; k < BIG; k++)
                sa.data[k] = i + k;
            aclrtPlaceHolderInfo ph = {(uint32_t)offsetof(struct sum_args, data), (uint32_t)offsetof(__typeof__(sa), data)};
            CHECK_OK(aclrtLaunchKernelWithHostArgs(sum, 1, s, NULL, &sa, sizeof sa, &ph, 1));
        }
    }
    CHECK_OK(aclrtSynchronizeStream(s));
    for (int i = 0; i < LAUNCHES; i++) {
        CHECK_EQ(i, small[i]);
        if (i % 3 == 0)
            CHECK_EQ((int64_t)BIG * i + (int64_t)BIG * (BIG - 1) / 2, big[i]);
    }
    free(small);
    free(big);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

static aclrtFuncHandle other_thread_fill;
static aclrtArgsHandle other_thread_args;

static void *other_thread_init(void *arg)
{
    (void)arg;
    aclrtKernelArgsInit(other_thread_fill, &other_thread_args);
    return NULL;
}

TEST(a_threads_new_args_handle_for_a_function_ends_its_previous_one_only)
{
    aclrtBinHandle bin = load();
    /* Kernels without a declared layout: the cuda backend takes any parameters for them. */
    aclrtFuncHandle fill = function(bin, "no_layout"), sum = function(bin, "no_layout2");
    aclrtArgsHandle a1 = NULL, a2 = NULL, b1 = NULL;
    aclrtParamHandle p, p2;
    int32_t v = 1;
    CHECK_OK(aclrtKernelArgsInit(fill, &a1));
    CHECK_OK(aclrtKernelArgsAppend(a1, &v, sizeof v, &p));
    CHECK_OK(aclrtKernelArgsInit(sum, &b1)); /* another function: a1 lives on */
    CHECK_OK(aclrtKernelArgsAppend(a1, &v, sizeof v, &p2));
    other_thread_fill = fill;
    other_thread_args = NULL;
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, other_thread_init, NULL));
    pthread_join(t, NULL);
    CHECK(other_thread_args != NULL && other_thread_args != a1); /* another thread: a1 lives on */
    CHECK_OK(aclrtKernelArgsAppend(a1, &v, sizeof v, &p2));
    CHECK_OK(aclrtKernelArgsInit(fill, &a2)); /* the same thread and function: a1 ends */
    CHECK(a2 != a1);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsAppend(a1, &v, sizeof v, &p2));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "argsHandle");
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(a1));
    CHECK_OK(aclrtKernelArgsAppend(b1, &v, sizeof v, &p2));
    CHECK_OK(aclrtKernelArgsAppend(other_thread_args, &v, sizeof v, &p2)); /* any thread may use any live one */
    /* A parameter handle of another args handle (or of a1's old life) is not one of a2's. */
    CHECK_OK(aclrtKernelArgsAppend(a2, &v, sizeof v, &p2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsParaUpdate(a2, p, &v, sizeof v));
    CHECK_OK(aclrtKernelArgsParaUpdate(a2, p2, &v, sizeof v));
    CHECK_OK(aclrtBinaryUnLoad(bin)); /* the binary's args handles end with it */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(a2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(b1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(other_thread_args));
}

TEST(an_args_handle_launches_only_its_own_function_and_holds_at_most_128_parameters)
{
    aclrtBinHandle bin = load();
    /* Kernels without a declared layout: the cuda backend takes any parameters for them. */
    aclrtFuncHandle fill = function(bin, "no_layout"), sum = function(bin, "no_layout2");
    aclrtArgsHandle args = NULL;
    aclrtParamHandle p;
    uint8_t byte = 1;
    CHECK_OK(aclrtKernelArgsInit(fill, &args));
    for (int i = 0; i < 128; i++)
        CHECK_OK(aclrtKernelArgsAppend(args, &byte, 1, &p));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(args, &byte, 1, &p));
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(sum, 1, NULL, NULL, args, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "initialised for function");
    /* More than the 64 KiB of an args handle. */
    static unsigned char big[40000];
    CHECK_OK(aclrtKernelArgsInit(fill, &args));
    CHECK_OK(aclrtKernelArgsAppend(args, big, sizeof big, &p));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(args, big, sizeof big, &p));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

/* ------------------------------------------------------------------------
 * Stream order, failures, timeouts
 * ------------------------------------------------------------------------ */

TEST(kernels_keep_stream_order_across_events_and_stream_waits)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill"), sum = function(bin, "sum");
    aclrtStream a, b;
    aclrtEvent produced, consumed;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtCreateEventExWithFlag(&produced, ACL_EVENT_SYNC));
    CHECK_OK(aclrtCreateEventExWithFlag(&consumed, ACL_EVENT_SYNC));
    int32_t *data = NULL;
    CHECK_OK(aclrtMalloc((void **)&data, 16 * sizeof *data, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(data, 16 * sizeof *data, 0, 16 * sizeof *data));
    int64_t result = -100;
    struct gate *g = launch_gate(a);
    struct fill_args fa = {data, 1};
    CHECK_OK(launch(fill, 16, a, &fa, sizeof fa)); /* data = 1..16 once a runs */
    CHECK_OK(aclrtRecordEvent(produced, a));
    CHECK_OK(aclrtStreamWaitEvent(b, produced));
    struct sum_args sa = {&result, data, 16};
    CHECK_OK(launch(sum, 1, b, &sa, sizeof sa));
    CHECK_OK(aclrtRecordEvent(consumed, b));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(consumed, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st); /* b waits for a, which waits at its gate */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(consumed));
    CHECK_EQ(136, result); /* the sum saw every value the fill wrote */
    CHECK_OK(aclrtFree(data));
    CHECK_OK(aclrtDestroyEvent(produced));
    CHECK_OK(aclrtDestroyEvent(consumed));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_failing_block_fails_the_task_with_its_function_and_args_in_the_exception)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fail = function(bin, "fail_block"), fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&ex_calls, 0);
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    struct fail_args fa = {3, ACL_ERROR_RT_AICORE_EXCEPTION};
    CHECK_OK(launch(fail, 8, s, &fa, sizeof fa));
    uint32_t task = 0;
    CHECK_OK(aclrtGetThreadLastTaskId(&task));
    int32_t out[1] = {0};
    struct fill_args after = {out, 9};
    CHECK_OK(launch(fill, 1, s, &after, sizeof after));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_EQ(9, out[0]); /* continue mode: the next task ran */
    CHECK_EQ(1, atomic_load(&ex_calls));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, atomic_load(&ex_code));
    CHECK_EQ(task, atomic_load(&ex_task));
    int32_t id;
    CHECK_OK(aclrtStreamGetId(s, &id));
    CHECK_EQ(id, atomic_load(&ex_stream));
    CHECK(atomic_load(&ex_func) == fail); /* the function handle it was launched with */
    CHECK_EQ(sizeof fa, atomic_load(&ex_args_len));
    CHECK(atomic_load(&ex_args) != NULL && atomic_load(&ex_args) != (void *)&fa); /* the launch's copy */
    CHECK_EQ(3, ex_args_seen.fail_at);
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, ex_args_seen.code);
    char name[32];
    CHECK_OK(aclrtGetFunctionName(atomic_load(&ex_func), sizeof name, name));
    CHECK(strcmp(name, "fail_block") == 0);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_kernel_that_outruns_its_launch_timeout_fails_its_task)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle busy = function(bin, "busy");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct busy_args ba = {30};
    aclrtLaunchKernelAttr us = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, .value = {.timeoutUs = {1000, 0}}};
    aclrtLaunchKernelCfg cfg = {&us, 1};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(busy, 1, s, &cfg, &ba, sizeof ba, NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_AICORE_TIMEOUT, aclrtSynchronizeStream(s));
    aclrtLaunchKernelAttr sec = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, .value = {.timeout = 600}};
    cfg.attrs = &sec;
    CHECK_OK(aclrtLaunchKernelWithHostArgs(busy, 1, s, &cfg, &ba, sizeof ba, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    aclrtLaunchKernelAttr both[2] = {us, sec};
    cfg = (aclrtLaunchKernelCfg){both, 2};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(busy, 1, s, &cfg, &ba, sizeof ba, NULL, 0));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

/* ------------------------------------------------------------------------
 * Unloading
 * ------------------------------------------------------------------------ */

TEST(an_unloaded_binary_stays_loaded_until_its_queued_launches_have_run)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle wait = function(bin, "wait_gate"), fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int open, ran;
    atomic_store(&open, 0);
    atomic_store(&ran, 0);
    struct gate_args ga = {&open, &ran};
    int32_t out[4] = {0, 0, 0, 0};
    struct fill_args fa = {out, 40};
    CHECK_OK(launch(wait, 2, s, &ga, sizeof ga)); /* the binary's own code runs while it is unloaded */
    CHECK_OK(launch(fill, 4, s, &fa, sizeof fa));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    /* The handles end at once... */
    aclrtFuncHandle f;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(bin, "fill", &f));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, launch(fill, 4, s, &fa, sizeof fa));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryUnLoad(bin));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "unloaded");
    char name[16];
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetFunctionName(fill, sizeof name, name));
    /* ...the library stays for the launches queued before. */
    CHECK(kernels_library_loaded());
    atomic_store(&open, 1);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&ran));
    CHECK_EQ(40, out[0]);
    CHECK_EQ(43, out[3]);
    CHECK(kernels_library_closes()); /* closed once they ran */
    CHECK_OK(aclrtDestroyStream(s));
}

/* Launchers racing an unload: every launch either is queued (and runs) or is refused. */
#define RACE_LAUNCHERS 2
#define RACE_MAX_LAUNCHES 20000
static aclrtFuncHandle race_count;
static aclrtStream race_streams[RACE_LAUNCHERS];
static atomic_int race_ran, race_accepted, race_refused_badly;

static void *race_launcher(void *arg)
{
    intptr_t i = (intptr_t)arg;
    aclrtSetCurrentContext(main_ctx);
    struct {
        atomic_int *n;
    } ca = {&race_ran};
    for (int k = 0; k < RACE_MAX_LAUNCHES; k++) {
        aclError rc = launch(race_count, 1, race_streams[i], &ca, sizeof ca);
        if (rc == ACL_ERROR_RT_INVALID_HANDLE)
            break; /* unloaded */
        if (rc != ACL_SUCCESS) {
            atomic_fetch_add(&race_refused_badly, 1);
            break;
        }
        atomic_fetch_add(&race_accepted, 1);
    }
    aclGetRecentErrMsg();
    return NULL;
}

TEST(launches_racing_an_unload_are_queued_and_run_or_refused)
{
    aclrtBinHandle bin = load();
    race_count = function(bin, "count_runs");
    atomic_store(&race_ran, 0);
    atomic_store(&race_accepted, 0);
    atomic_store(&race_refused_badly, 0);
    pthread_t t[RACE_LAUNCHERS];
    for (intptr_t i = 0; i < RACE_LAUNCHERS; i++) {
        CHECK_OK(aclrtCreateStream(&race_streams[i]));
        CHECK_EQ(0, pthread_create(&t[i], NULL, race_launcher, (void *)i));
    }
    while (atomic_load(&race_accepted) < 100) /* the launchers are under way */
        sched_yield();
    CHECK_OK(aclrtBinaryUnLoad(bin));
    for (int i = 0; i < RACE_LAUNCHERS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < RACE_LAUNCHERS; i++) {
        CHECK_OK(aclrtSynchronizeStream(race_streams[i]));
        CHECK_OK(aclrtDestroyStream(race_streams[i]));
    }
    CHECK_EQ(0, atomic_load(&race_refused_badly));
    CHECK_EQ(atomic_load(&race_accepted), atomic_load(&race_ran)); /* every queued launch ran, once */
    CHECK(kernels_library_closes());                               /* and the library closed after them */
}

TEST(a_discarded_launch_gives_its_binary_back)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t out[1] = {0};
    struct fill_args fa = {out, 1};
    struct gate *g = launch_gate(s);
    CHECK(gate_wait_entered(g));
    CHECK_OK(launch(fill, 1, s, &fa, sizeof fa));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    CHECK_OK(aclrtStreamAbort(s)); /* the launch is discarded, never run */
    pthread_join(opener, NULL);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, out[0]);
    CHECK(kernels_library_closes());
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Bad input
 * ------------------------------------------------------------------------ */

TEST(stale_garbage_and_wrong_kind_handles_get_error_codes)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    aclrtArgsHandle args = NULL;
    CHECK_OK(aclrtKernelArgsInit(fill, &args));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t out[1];
    struct fill_args fa = {out, 0};
    aclrtFuncHandle f;
    aclrtParamHandle p;
    char name[8];
    void *garbage[] = {(void *)1, (void *)(uintptr_t)0xdeadbeef, &fa, s, (void *)(uintptr_t)UINT64_MAX};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        void *h = garbage[i];
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(h, "fill", &f));
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryUnLoad(h));
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, launch(h, 1, s, &fa, sizeof fa));
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetFunctionName(h, sizeof name, name));
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsInit(h, &args));
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(h));
        CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsParaUpdate(args, h, &fa, 4));
    }
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(fill, "fill", &f)); /* a function is not a binary */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsFinalize(fill));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, launch(bin, 1, s, &fa, sizeof fa)); /* a binary is not a function */
    /* NULL handles: the ACL layer's code. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunction(NULL, "fill", &f));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryUnLoad(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, launch(NULL, 1, s, &fa, sizeof fa));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInit(NULL, &args));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsAppend(NULL, &fa, 4, &p));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(fill, 1, s, NULL, NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFunctionName(NULL, sizeof name, name));
    /* Unloaded: every handle of the binary is stale, the second unload too. */
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryUnLoad(bin));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(bin, "fill", &f));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, launch(fill, 1, s, &fa, sizeof fa));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchKernelWithConfig(fill, 1, s, NULL, args, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsAppend(args, &fa, 4, &p));
    aclrtBinHandle owner;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtFunctionGetBinary(fill, &owner));
    /* A new binary in the old one's slot does not revive the old handles. */
    aclrtBinHandle again = load();
    CHECK(again != bin);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(bin, "fill", &f));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, launch(fill, 1, s, &fa, sizeof fa));
    CHECK_OK(aclrtBinaryUnLoad(again));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_missing_file_bytes_that_are_not_a_binary_and_unknown_kernels_get_the_runtimes_code)
{
    aclrtBinHandle bin = (void *)1;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile("/nonexistent/kernels.so", NULL, &bin));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot be accessed");
    CHECK(bin == (void *)1); /* untouched */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(ACLRT_TEST_KERNEL_DIR, NULL, &bin)); /* a directory */
    char path[] = "/tmp/aclrt-test-not-a-binary-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(26, write(fd, "this is not a binary file\n", 26));
    close(fd);
    aclError rc = aclrtBinaryLoadFromFile(path, NULL, &bin);
    unlink(path);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, rc);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not a binary");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromData("\x7f" "ELF garbage", 11, NULL, &bin));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not a binary");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromData("x", 0, NULL, &bin));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromData(NULL, 10, NULL, &bin));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromFile(NULL, NULL, &bin));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryLoadFromFile(KERNELS, NULL, NULL));
    /* Options, checked as the runtime checks them. */
    aclrtBinaryLoadOption opt = {ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, {.isLazyLoad = 1}};
    aclrtBinaryLoadOptions opts = {&opt, 1};
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, &opts, &bin));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    opt.value.isLazyLoad = 2;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(KERNELS, &opts, &bin));
    opt = (aclrtBinaryLoadOption){ACL_RT_BINARY_LOAD_OPT_MAGIC, {.magic = ACL_RT_BINARY_MAGIC_ELF_AICORE}};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(KERNELS, &opts, &bin)); /* for data only */
    opt.type = (aclrtBinaryLoadOptionType)9;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(KERNELS, &opts, &bin));
    opts.options = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryLoadFromFile(KERNELS, &opts, &bin));
    /* Names that are not kernels of the binary. */
    bin = load();
    aclrtFuncHandle f = (void *)1;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunction(bin, "no_such_kernel", &f));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no kernel named \"no_such_kernel\"");
    CHECK(f == (void *)1);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunction(bin, "test_global", &f)); /* a variable */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtBinaryGetFunction(bin, "printf", &f));     /* another library's */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunction(bin, NULL, &f));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(launch_arguments_are_checked_before_anything_is_queued)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t out[1] = {0};
    struct fill_args fa = {out, 5};
    struct fill_args *dev = NULL;
    CHECK_OK(aclrtMalloc((void **)&dev, sizeof *dev, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dev, sizeof *dev, &fa, sizeof fa, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 0, dev, sizeof *dev, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 1, dev, 0, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernel(fill, 1, NULL, sizeof *dev, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 1, dev, sizeof *dev + 4096, s)); /* past its end */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, launch(fill, 0, s, &fa, sizeof fa));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, launch(fill, 1, s, &fa, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, launch(fill, 1, s, NULL, sizeof fa));
    aclrtPlaceHolderInfo ph = {(uint32_t)sizeof fa - 4, 0}; /* an address would not fit */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(fill, 1, s, NULL, &fa, sizeof fa, &ph, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(fill, 1, s, NULL, &fa, sizeof fa, NULL, 1));
    aclrtLaunchKernelCfg cfg = {NULL, 0};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(fill, 1, s, &cfg, &fa, sizeof fa, NULL, 0));
    aclrtLaunchKernelAttr attr = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, .value = {.schemMode = 2}};
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(fill, 1, s, &cfg, &fa, sizeof fa, NULL, 0));
    attr = (aclrtLaunchKernelAttr){.id = ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, .value = {.engineType = ACL_RT_ENGINE_TYPE_AIV}};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 1, s, &cfg, &fa, sizeof fa, NULL, 0)); /* accepted, no effect */
    aclrtArgsHandle args = NULL;
    CHECK_OK(aclrtKernelArgsInit(fill, &args));
    CHECK_OK(aclrtKernelArgsFinalize(args));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(fill, 0, s, NULL, args, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchKernelWithConfig(fill, 1, s, NULL, args, (void *)1));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(5, out[0]); /* only the accepted launch ran */
    uint32_t task = 0;
    CHECK_OK(aclrtGetThreadLastTaskId(&task));
    CHECK_EQ(1, task); /* nothing else was queued */
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

/* Last: it ends the runtime. */
TEST(aclfinalize_unloads_every_binary)
{
    aclrtBinHandle bin = load();
    aclrtFuncHandle fill = function(bin, "fill");
    CHECK(kernels_library_loaded());
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    CHECK(!kernels_library_loaded());
    aclrtFuncHandle f;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(bin, "fill", &f));
    char name[8];
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetFunctionName(fill, sizeof name, name));
}

int main(void)
{
    /*
     * The cases of failing blocks go on in the same context afterwards: on the
     * driver test double, a kernel fault is not sticky here (on a GPU it loses
     * the context; this program runs on the double only).
     */
    setenv("ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS", "1", 0);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)
    RUN_CASE(a_binary_loaded_from_a_file_runs_its_kernel_on_every_block);
    RUN_CASE(a_binary_loaded_from_data_keeps_no_reference_to_the_callers_bytes);
    RUN_CASE(each_load_from_data_is_a_library_of_its_own_and_loads_of_one_file_share_one);
    RUN_CASE(a_relative_path_is_the_working_directorys_and_never_a_library_search);
    RUN_CASE(a_kernel_name_gives_one_function_handle_that_names_its_binary);
    RUN_CASE(a_binarys_global_is_memory_its_kernels_read);
    RUN_CASE(a_launch_after_its_argument_memory_was_freed_is_refused);
    RUN_CASE(launch_kernel_reads_its_device_memory_arguments_when_the_kernel_runs);
    RUN_CASE(host_args_are_copied_at_the_launch_with_placeholders_pointing_into_the_copy);
    RUN_CASE(an_args_handle_lays_parameters_out_at_their_natural_alignment);
    RUN_CASE(a_parameter_update_changes_the_launches_after_it_not_the_ones_queued);
    RUN_CASE(a_placeholder_points_to_its_data_in_each_launchs_copy);
    RUN_CASE(each_launch_keeps_its_own_argument_copy_over_laps_of_the_ring);
    RUN_CASE(a_threads_new_args_handle_for_a_function_ends_its_previous_one_only);
    RUN_CASE(an_args_handle_launches_only_its_own_function_and_holds_at_most_128_parameters);
    RUN_CASE(kernels_keep_stream_order_across_events_and_stream_waits);
    RUN_CASE(a_failing_block_fails_the_task_with_its_function_and_args_in_the_exception);
    RUN_CASE(a_kernel_that_outruns_its_launch_timeout_fails_its_task);
    RUN_CASE(an_unloaded_binary_stays_loaded_until_its_queued_launches_have_run);
    RUN_CASE(launches_racing_an_unload_are_queued_and_run_or_refused);
    RUN_CASE(a_discarded_launch_gives_its_binary_back);
    RUN_CASE(stale_garbage_and_wrong_kind_handles_get_error_codes);
    RUN_CASE(a_missing_file_bytes_that_are_not_a_binary_and_unknown_kernels_get_the_runtimes_code);
    RUN_CASE(launch_arguments_are_checked_before_anything_is_queued);
    RUN(aclfinalize_unloads_every_binary);
    return check_report("kernel");
}
