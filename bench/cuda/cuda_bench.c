/*
 * bench/cuda/cuda_bench.c - the cuda backend next to the raw driver, in one
 * run (make bench BACKEND=cuda):
 *
 *   aclrt (cuda backend)                     the driver, called directly
 *   aclrtRecordEvent                          cuEventRecord
 *   aclrtQueryEventStatus (complete event)    cuEventQuery
 *   aclrtStreamWaitEvent (complete event)     cuStreamWaitEvent
 *   record + aclrtSynchronizeEvent            cuEventRecord + cuEventSynchronize
 *   aclrtLaunchHostFunc                       cuLaunchHostFunc
 *   host function + aclrtSynchronizeStream    cuLaunchHostFunc + cuStreamSynchronize
 *   kernel launch + aclrtSynchronizeStream    cuLaunchKernel + cuStreamSynchronize
 *
 * then HcclAllReduce (one rank, the cuda backend: NCCL on the stream's
 * CUstream) next to ncclAllReduce on a CUstream of its own, the same NCCL,
 * at a few sizes (the time of the call + the stream's synchronize), when
 * NCCL can be opened (libnccl.so.2, or ACLRT_NCCL_LIBRARY); and, on the
 * cuda backend alone, a model of 100 tasks (memsets and, with
 * a kernel, kernel launches in turn) replayed with aclmdlRIExecuteAsync
 * (one CUDA graph launch) next to the same 100 tasks launched one by one:
 * what the submitting thread spends, and submit + aclrtSynchronizeStream.
 *
 * Each figure is the median over rounds of the mean time per call in a
 * round (ns). Launch figures time the calls only; the work they queue is
 * waited for between rounds, untimed. The driver is the one the backend
 * opens (libcuda.so.1, or ACLRT_CUDA_LIBRARY: the test double of
 * tests/cuda_fake/, whose figures say only that the program works). The
 * kernel is a no-op from --kernel PATH (a fatbin on a GPU, the test
 * double's stand-in otherwise); without one that loads, its row is skipped.
 *
 *   aclrt-cuda-bench [--quick] [--kernel PATH] [--out FILE]
 */
#define _GNU_SOURCE
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"
#include "hccl/hccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int rounds = 31, per_round = 256;

#define OK(call)                                                                                      \
    do {                                                                                              \
        long rc_ = (long)(call);                                                                      \
        if (rc_ != 0) {                                                                               \
            fprintf(stderr, "cuda-bench: %s failed with %ld: %s\n", #call, rc_, aclGetRecentErrMsg()); \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A line of the results, on stdout and in the --out file (if any), as it is measured. */
static void emit(FILE *out, const char *line)
{
    fputs(line, stdout);
    if (out != NULL) {
        fputs(line, out);
        fflush(out);
    }
}

/* One measurement: `op(i)` per call, `settle()` (untimed) after each round. */
struct bench_op {
    void (*op)(int i);
    void (*settle)(void);
    int per_round; /* 0: the default */
};

static double measure(struct bench_op b)
{
    int n = b.per_round != 0 ? b.per_round : per_round;
    double *v = (double *)malloc(sizeof(double) * (size_t)rounds);
    for (int r = -2; r < rounds; r++) { /* two rounds of warm-up */
        uint64_t t0 = now_ns();
        for (int i = 0; i < n; i++)
            b.op(i);
        uint64_t t1 = now_ns();
        if (b.settle != NULL)
            b.settle();
        if (r >= 0)
            v[r] = (double)(t1 - t0) / n;
    }
    qsort(v, (size_t)rounds, sizeof *v, cmp_double);
    double m = v[rounds / 2];
    free(v);
    return m;
}

/* ------------------------------------------------------------------------
 * aclrt
 * ------------------------------------------------------------------------ */

static aclrtStream a_s1, a_s2;
static aclrtEvent a_ev, a_done;
static aclrtFuncHandle a_kernel;

static void nop_fn(void *arg) { (void)arg; }

static void a_record(int i) { (void)i; OK(aclrtRecordEvent(a_ev, a_s1)); }
static void a_sync_s1(void) { OK(aclrtSynchronizeStream(a_s1)); }
static void a_query(int i)
{
    (void)i;
    aclrtEventRecordedStatus st;
    OK(aclrtQueryEventStatus(a_done, &st));
    if (st != ACL_EVENT_RECORDED_STATUS_COMPLETE)
        exit(2);
}
static void a_wait(int i) { (void)i; OK(aclrtStreamWaitEvent(a_s2, a_done)); }
static void a_sync_s2(void) { OK(aclrtSynchronizeStream(a_s2)); }
static void a_record_sync(int i)
{
    (void)i;
    OK(aclrtRecordEvent(a_ev, a_s1));
    OK(aclrtSynchronizeEvent(a_ev));
}
static void a_host_func(int i) { (void)i; OK(aclrtLaunchHostFunc(a_s1, nop_fn, NULL)); }
static void a_host_func_sync(int i)
{
    (void)i;
    OK(aclrtLaunchHostFunc(a_s1, nop_fn, NULL));
    OK(aclrtSynchronizeStream(a_s1));
}
static void a_kernel_sync(int i)
{
    (void)i;
    uint64_t arg = 0;
    OK(aclrtLaunchKernelWithHostArgs(a_kernel, 1, a_s1, NULL, &arg, sizeof arg, NULL, 0));
    OK(aclrtSynchronizeStream(a_s1));
}

/* A model of MODEL_TASKS tasks, and the same tasks launched one by one. */
#define MODEL_TASKS 100
static aclmdlRI a_model;
static void *a_buf;
static bool a_model_kernel;

static void a_model_tasks(void)
{
    for (int i = 0; i < MODEL_TASKS; i++) {
        uint64_t arg = 0;
        if (a_model_kernel && i % 2 == 1)
            OK(aclrtLaunchKernelWithHostArgs(a_kernel, 1, a_s1, NULL, &arg, sizeof arg, NULL, 0));
        else
            OK(aclrtMemsetAsync(a_buf, 64, i & 0xff, 64, a_s1));
    }
}
static void a_replay(int i) { (void)i; OK(aclmdlRIExecuteAsync(a_model, a_s1)); }
static void a_launch_all(int i) { (void)i; a_model_tasks(); }
static void a_replay_sync(int i) { a_replay(i); OK(aclrtSynchronizeStream(a_s1)); }
static void a_launch_all_sync(int i) { a_launch_all(i); OK(aclrtSynchronizeStream(a_s1)); }

/* ------------------------------------------------------------------------
 * The driver, directly
 * ------------------------------------------------------------------------ */

static struct aclrt_cuda_driver drv;
static aclrt_CUstream d_s1, d_s2;
static aclrt_CUevent d_ev, d_done;
static aclrt_CUmodule d_mod;
static aclrt_CUfunction d_kernel;

static void d_record(int i) { (void)i; OK(drv.cuEventRecord(d_ev, d_s1)); }
static void d_sync_s1(void) { OK(drv.cuStreamSynchronize(d_s1)); }
static void d_query(int i) { (void)i; OK(drv.cuEventQuery(d_done)); }
static void d_wait(int i) { (void)i; OK(drv.cuStreamWaitEvent(d_s2, d_done, 0)); }
static void d_sync_s2(void) { OK(drv.cuStreamSynchronize(d_s2)); }
static void d_record_sync(int i)
{
    (void)i;
    OK(drv.cuEventRecord(d_ev, d_s1));
    OK(drv.cuEventSynchronize(d_ev));
}
static void d_host_func(int i) { (void)i; OK(drv.cuLaunchHostFunc(d_s1, nop_fn, NULL)); }
static void d_host_func_sync(int i)
{
    (void)i;
    OK(drv.cuLaunchHostFunc(d_s1, nop_fn, NULL));
    OK(drv.cuStreamSynchronize(d_s1));
}
static void d_kernel_sync(int i)
{
    (void)i;
    uint64_t arg = 0;
    size_t size = sizeof arg;
    void *extra[] = {(void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, &arg,
                     (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, &size,
                     (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_END_AS_INT};
    OK(drv.cuLaunchKernel(d_kernel, 1, 1, 1, 32, 1, 1, 0, d_s1, NULL, extra));
    OK(drv.cuStreamSynchronize(d_s1));
}

/* HcclAllReduce (one rank) vs ncclAllReduce: `hccl_bytes` of float, sum, out of place. */
static HcclComm h_comm;
static void *h_send, *h_recv;
static size_t hccl_bytes;
static aclrt_ncclComm_t n_comm;

static void h_allreduce_sync(int i)
{
    (void)i;
    OK(HcclAllReduce(h_send, h_recv, hccl_bytes / 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, h_comm, a_s1));
    OK(aclrtSynchronizeStream(a_s1));
}

static void n_allreduce_sync(int i)
{
    (void)i;
    OK(aclrt_nccl.ncclAllReduce(h_send, h_recv, hccl_bytes / 4, ACLRT_NCCL_FLOAT32, ACLRT_NCCL_SUM, n_comm, d_s1));
    OK(drv.cuStreamSynchronize(d_s1));
}

/* The allreduce rows; skipped (said) when NCCL cannot be opened. */
static void hccl_rows(FILE *out, bool quick)
{
    char why[ACLRT_BACKEND_COLL_WHY] = "", line[640];
    int32_t device = 0;
    int gpu = 0;
    bool ok = HcclCommInitAll(1, &device, &h_comm) == HCCL_SUCCESS && aclrt_nccl_open(why) == HCCL_SUCCESS &&
              aclrt_nccl.ncclCommInitAll(&n_comm, 1, &gpu) == ACLRT_NCCL_SUCCESS;
    snprintf(line, sizeof line, "HcclAllReduce vs ncclAllReduce (1 rank, fp32 sum, out of place), us per call + synchronize%s%s\n",
             ok ? "" : ": skipped, ", ok ? "" : (why[0] != '\0' ? why : aclGetRecentErrMsg()));
    emit(out, line);
    if (!ok)
        return;
    static const size_t sizes[] = {4, 65536, 1 << 20, 64 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] - (quick ? 1 : 0); k++) {
        hccl_bytes = sizes[k];
        OK(aclrtMalloc(&h_send, hccl_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtMalloc(&h_recv, hccl_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtMemset(h_send, hccl_bytes, 0, hccl_bytes));
        fprintf(stderr, "cuda-bench: allreduce %zu bytes ...\n", hccl_bytes);
        struct bench_op h = {h_allreduce_sync, NULL, 8}, n = {n_allreduce_sync, NULL, 8};
        double a = measure(h), d = measure(n);
        snprintf(line, sizeof line, "allreduce %-10zu HcclAllReduce %10.1f us   ncclAllReduce %10.1f us   x%.2f\n",
                 hccl_bytes, a / 1000, d / 1000, a > 0 ? d / a : 0.0);
        emit(out, line);
        OK(aclrtFree(h_send));
        OK(aclrtFree(h_recv));
    }
    aclrt_nccl.ncclCommDestroy(n_comm);
    OK(HcclCommDestroy(h_comm));
}

int main(int argc, char **argv)
{
    const char *kernel_path = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            rounds = 7;
            per_round = 64;
        } else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc) {
            kernel_path = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--quick] [--kernel PATH] [--out FILE]\n", argv[0]);
            return 2;
        }
    }
    setenv("ACLRT_BACKEND", "cuda", 1);
    setvbuf(stdout, NULL, _IOLBF, 0); /* each row as it is measured: a hang names its row */
    const char *lib = getenv("ACLRT_CUDA_LIBRARY");

    /* aclrt on the cuda backend. */
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtCreateStream(&a_s1));
    OK(aclrtCreateStream(&a_s2));
    OK(aclrtCreateEventWithFlag(&a_ev, ACL_EVENT_SYNC));
    OK(aclrtCreateEventWithFlag(&a_done, ACL_EVENT_SYNC));
    OK(aclrtRecordEvent(a_done, a_s1));
    OK(aclrtSynchronizeEvent(a_done));
    aclrtBinHandle bin = NULL;
    bool kernel = kernel_path != NULL && aclrtBinaryLoadFromFile(kernel_path, NULL, &bin) == ACL_SUCCESS &&
                  aclrtBinaryGetFunction(bin, "nop", &a_kernel) == ACL_SUCCESS;

    /* The same driver, directly, on the same GPU's primary context. */
    char why[320];
    if (aclrt_cuda_driver_load(&drv, lib, why, sizeof why) != 0) {
        fprintf(stderr, "cuda-bench: %s\n", why);
        return 1;
    }
    aclrt_CUdevice dev;
    aclrt_CUcontext ctx;
    OK(drv.cuInit(0));
    OK(drv.cuDeviceGet(&dev, 0));
    OK(drv.cuDevicePrimaryCtxRetain(&ctx, dev));
    OK(drv.cuCtxSetCurrent(ctx));
    OK(drv.cuStreamCreateWithPriority(&d_s1, ACLRT_CU_STREAM_NON_BLOCKING, 0));
    OK(drv.cuStreamCreateWithPriority(&d_s2, ACLRT_CU_STREAM_NON_BLOCKING, 0));
    OK(drv.cuEventCreate(&d_ev, ACLRT_CU_EVENT_DISABLE_TIMING));
    OK(drv.cuEventCreate(&d_done, ACLRT_CU_EVENT_DISABLE_TIMING));
    OK(drv.cuEventRecord(d_done, d_s1));
    OK(drv.cuEventSynchronize(d_done));
    bool d_kernel_ok = kernel && drv.cuModuleLoad(&d_mod, kernel_path) == ACLRT_CUDA_SUCCESS &&
                       drv.cuModuleGetFunction(&d_kernel, d_mod, "nop") == ACLRT_CUDA_SUCCESS;

    struct {
        const char *what, *raw;
        struct bench_op a, d;
        bool run;
    } rows[] = {
        {"record", "cuEventRecord", {a_record, a_sync_s1, 0}, {d_record, d_sync_s1, 0}, true},
        {"query (complete)", "cuEventQuery", {a_query, NULL, 0}, {d_query, NULL, 0}, true},
        {"stream wait", "cuStreamWaitEvent", {a_wait, a_sync_s2, 0}, {d_wait, d_sync_s2, 0}, true},
        {"record + synchronize", "cuEventRecord + cuEventSynchronize", {a_record_sync, NULL, 16},
         {d_record_sync, NULL, 16}, true},
        {"host function", "cuLaunchHostFunc", {a_host_func, a_sync_s1, 0}, {d_host_func, d_sync_s1, 0}, true},
        {"host function + synchronize", "cuLaunchHostFunc + cuStreamSynchronize", {a_host_func_sync, NULL, 16},
         {d_host_func_sync, NULL, 16}, true},
        {"kernel + synchronize", "cuLaunchKernel + cuStreamSynchronize", {a_kernel_sync, NULL, 16},
         {d_kernel_sync, NULL, 16}, kernel && d_kernel_ok},
    };
    FILE *out = out_path != NULL ? fopen(out_path, "w") : NULL;
    char head[256];
    snprintf(head, sizeof head, "cuda backend vs the driver (%s), ns per call, median of %d rounds\n",
             lib != NULL ? lib : "libcuda.so.1", rounds);
    emit(out, head);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char line[256];
        if (!rows[i].run) {
            snprintf(line, sizeof line, "%-30s %12s   %-40s %12s\n", rows[i].what, "skipped", rows[i].raw,
                     "(no kernel: --kernel PATH)");
        } else {
            fprintf(stderr, "cuda-bench: %s ...\n", rows[i].what);
            double a = measure(rows[i].a), d = measure(rows[i].d);
            snprintf(line, sizeof line, "%-30s %10.1f ns   %-40s %10.1f ns   x%.2f\n", rows[i].what, a, rows[i].raw, d,
                     a > 0 ? d / a : 0.0);
        }
        emit(out, line);
    }

    hccl_rows(out, rounds < 31);

    /* A model of 100 tasks vs the same tasks, on the cuda backend. */
    a_model_kernel = kernel;
    OK(aclrtMalloc(&a_buf, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclmdlRICaptureBegin(a_s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    a_model_tasks();
    OK(aclmdlRICaptureEnd(a_s1, &a_model));
    OK(aclmdlRIExecuteAsync(a_model, a_s1)); /* its first replay builds its graph */
    OK(aclrtSynchronizeStream(a_s1));
    struct {
        const char *what;
        struct bench_op replay, launch;
    } mrows[] = {
        {"submit (the calling thread)", {a_replay, a_sync_s1, 16}, {a_launch_all, a_sync_s1, 16}},
        {"submit + synchronize", {a_replay_sync, NULL, 8}, {a_launch_all_sync, NULL, 8}},
    };
    snprintf(head, sizeof head, "a %d-task model (%s): one aclmdlRIExecuteAsync vs %d launches, us per %d tasks\n",
             MODEL_TASKS, kernel ? "memsets and kernels in turn" : "memsets; no kernel", MODEL_TASKS, MODEL_TASKS);
    emit(out, head);
    for (size_t i = 0; i < sizeof mrows / sizeof mrows[0]; i++) {
        fprintf(stderr, "cuda-bench: model, %s ...\n", mrows[i].what);
        double r = measure(mrows[i].replay), l = measure(mrows[i].launch);
        char line[256];
        snprintf(line, sizeof line, "%-30s replay %10.1f us   launches %10.1f us   x%.2f\n", mrows[i].what, r / 1000,
                 l / 1000, r > 0 ? l / r : 0.0);
        emit(out, line);
    }
    OK(aclmdlRIDestroy(a_model));
    OK(aclrtFree(a_buf));
    if (out != NULL)
        fclose(out);

    if (d_kernel_ok)
        drv.cuModuleUnload(d_mod);
    drv.cuEventDestroy(d_ev);
    drv.cuEventDestroy(d_done);
    drv.cuStreamDestroy(d_s1);
    drv.cuStreamDestroy(d_s2);
    drv.cuDevicePrimaryCtxRelease(dev);
    if (bin != NULL)
        OK(aclrtBinaryUnLoad(bin));
    OK(aclrtDestroyEvent(a_ev));
    OK(aclrtDestroyEvent(a_done));
    OK(aclrtDestroyStream(a_s1));
    OK(aclrtDestroyStream(a_s2));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return 0;
}
