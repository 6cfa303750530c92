/*
 * bench/hccl/hccl_bench.c - HCCL across processes next to the raw MPI
 * operation, in one run under mpirun (make bench-hccl):
 *
 *   HCCL (on an aclrtStream)                    MPI, called directly (blocking)
 *   HcclAllReduce fp32 sum + sync               MPI_Allreduce MPI_FLOAT MPI_SUM
 *   HcclAllGather uint8 + sync                  MPI_Allgather MPI_UINT8_T
 *   HcclBroadcast uint8, root 0 + sync          MPI_Bcast MPI_UINT8_T, root 0
 *   HcclSend (rank 0) / HcclRecv (rank 1)       MPI_Send / MPI_Recv
 *     + sync                                      (one way, rank 0 -> rank 1)
 *
 * "+ sync" is aclrtSynchronizeStream: an HCCL figure is the latency of one
 * operation from the call to the moment the stream has finished it. Both
 * sides run on the same buffers (aclrtMalloc'd; on the host backend, host
 * memory), out of place where the operation allows it. The runtime's MPI
 * engine is the plugin that ACLRT_HCCL_MPI_PLUGIN names; this program
 * starts MPI itself (MPI_THREAD_MULTIPLE), so both sides share one MPI.
 *
 * How an iteration is timed: every rank calls MPI_Barrier, then times the
 * operation alone (CLOCK_MONOTONIC), and an iteration's time is the
 * largest over the ranks (nccl-tests' -a 3; its default averages the
 * ranks). Ranks that take no part in a send/recv time nothing (0). The
 * HCCL and the MPI iterations of a size alternate (HCCL first on even
 * iterations, MPI first on odd ones), after a warm-up of each, so that a
 * change of the machine's load hits both alike. Figures are the p50 (and
 * p90) of the per-iteration times; the number of iterations is fitted to a
 * time budget per size from the warm-up (the same on every rank).
 *
 * Bandwidths are nccl-tests': algbw = bytes / time, busbw = algbw x
 * factor, with factor 2(n-1)/n for allreduce, (n-1)/n for allgather (bytes
 * = what each rank receives in all), 1 for broadcast and send/recv.
 *
 * Each operation's data is checked once per size, on both sides, against
 * a reference computed here. The exit status is non-zero only when a
 * result is wrong (or a call fails); a missed target prints a MISS line.
 *
 * "Task round trip" is, in the same run and timed the same way, an empty
 * external task (aclrtxLaunchExternalTask whose start completes it at
 * once, the kind of task an HCCL operation is) + aclrtSynchronizeStream,
 * and the same with an empty aclrtLaunchHostFunc. The targets:
 *
 *   small messages (<= 4 KiB):  HCCL p50 <= 1.3 x MPI p50 + task round trip p50
 *   large messages (>= 16 MiB): HCCL busbw >= 0.9 x MPI busbw
 *
 *   mpirun -np N aclrt-hccl-bench [--quick] [--max-bytes N] [--out FILE.json]
 *
 * --max-bytes stops the sizes at N (a look at the small messages alone).
 */
#define _GNU_SOURCE
#include "aclrt.h"
#include "hccl/hccl.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define SMALL_MAX (4u << 10)  /* the latency target's sizes */
#define LARGE_MIN (16u << 20) /* the bandwidth target's sizes */
#define SMALL_SLACK 1.3
#define LARGE_FLOOR 0.9

static int rank, nranks;
static bool quick;
static aclrtStream stream;
static HcclComm comm;
static int wrong; /* results that differ from the reference (this rank) */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define OK(call)                                                                                          \
    do {                                                                                                  \
        long rc_ = (long)(call);                                                                          \
        if (rc_ != 0) {                                                                                   \
            fprintf(stderr, "hccl-bench: rank %d: %s failed with %ld: %s\n", rank, #call, rc_,             \
                    aclGetRecentErrMsg());                                                                \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                                 \
        }                                                                                                 \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of n values (sorted here). */
static double percentile(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)(p * n + 0.999999) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/* ---- the operations ---------------------------------------------------- */

enum op_kind { OP_ALLREDUCE, OP_ALLGATHER, OP_BROADCAST, OP_SENDRECV, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"allreduce", "allgather", "broadcast", "sendrecv"};

static void *sendbuf, *recvbuf; /* max_bytes each */
static size_t max_bytes;

/* The bytes a size moves as nccl-tests counts them: allgather's is what each rank receives in all. */
static size_t op_bytes(enum op_kind k, size_t size)
{
    switch (k) {
    case OP_ALLREDUCE: return size / 4 * 4;
    case OP_ALLGATHER: return size / (size_t)nranks * (size_t)nranks;
    default: return size;
    }
}

static double bus_factor(enum op_kind k)
{
    switch (k) {
    case OP_ALLREDUCE: return 2.0 * (nranks - 1) / nranks;
    case OP_ALLGATHER: return (double)(nranks - 1) / nranks;
    default: return 1.0;
    }
}

/* One operation, by HCCL (stream + synchronize) or by MPI (blocking); size in bytes as op_bytes counts. */
static void run_op(enum op_kind k, bool hccl, size_t size)
{
    switch (k) {
    case OP_ALLREDUCE:
        if (hccl) {
            OK(HcclAllReduce(sendbuf, recvbuf, size / 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
            OK(aclrtSynchronizeStream(stream));
        } else {
            OK(MPI_Allreduce(sendbuf, recvbuf, (int)(size / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
        }
        break;
    case OP_ALLGATHER: {
        size_t part = size / (size_t)nranks;
        if (hccl) {
            OK(HcclAllGather(sendbuf, recvbuf, part, HCCL_DATA_TYPE_UINT8, comm, stream));
            OK(aclrtSynchronizeStream(stream));
        } else {
            OK(MPI_Allgather(sendbuf, (int)part, MPI_UINT8_T, recvbuf, (int)part, MPI_UINT8_T, MPI_COMM_WORLD));
        }
        break;
    }
    case OP_BROADCAST:
        if (hccl) {
            OK(HcclBroadcast(recvbuf, size, HCCL_DATA_TYPE_UINT8, 0, comm, stream));
            OK(aclrtSynchronizeStream(stream));
        } else {
            OK(MPI_Bcast(recvbuf, (int)size, MPI_UINT8_T, 0, MPI_COMM_WORLD));
        }
        break;
    case OP_SENDRECV:
        if (rank > 1)
            break;
        if (hccl) {
            if (rank == 0)
                OK(HcclSend(sendbuf, size, HCCL_DATA_TYPE_UINT8, 1, comm, stream));
            else
                OK(HcclRecv(recvbuf, size, HCCL_DATA_TYPE_UINT8, 0, comm, stream));
            OK(aclrtSynchronizeStream(stream));
        } else if (rank == 0) {
            OK(MPI_Send(sendbuf, (int)size, MPI_UINT8_T, 1, 7, MPI_COMM_WORLD));
        } else {
            OK(MPI_Recv(recvbuf, (int)size, MPI_UINT8_T, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        break;
    default: break;
    }
}

static uint8_t pattern(int r, size_t j) { return (uint8_t)(r * 31 + (int)(j * 7 % 251) + 1); }

/* Fills the inputs of op k at `size` and poisons its outputs. */
static void prepare(enum op_kind k, size_t size)
{
    uint8_t *s = (uint8_t *)sendbuf, *d = (uint8_t *)recvbuf;
    switch (k) {
    case OP_ALLREDUCE: {
        float *f = (float *)sendbuf;
        for (size_t i = 0; i < size / 4; i++)
            f[i] = (float)((rank + 1) * (int)(i % 7 + 1));
        memset(d, 0xFF, size); /* NaN */
        break;
    }
    case OP_ALLGATHER: {
        size_t part = size / (size_t)nranks;
        for (size_t j = 0; j < part; j++)
            s[j] = pattern(rank, j);
        memset(d, 0xEE, size);
        break;
    }
    case OP_BROADCAST:
        for (size_t j = 0; j < size; j++)
            d[j] = rank == 0 ? pattern(0, j) : 0xEE;
        break;
    case OP_SENDRECV:
        for (size_t j = 0; j < size; j++)
            s[j] = pattern(rank, j);
        memset(d, 0xEE, size);
        break;
    default: break;
    }
}

/* True when the outputs of op k at `size` are what they should be on this rank. */
static bool verify(enum op_kind k, size_t size)
{
    const uint8_t *d = (const uint8_t *)recvbuf;
    switch (k) {
    case OP_ALLREDUCE: {
        const float *f = (const float *)recvbuf;
        float ranks_sum = (float)(nranks * (nranks + 1) / 2);
        for (size_t i = 0; i < size / 4; i++)
            if (f[i] != ranks_sum * (float)(int)(i % 7 + 1))
                return false;
        return true;
    }
    case OP_ALLGATHER: {
        size_t part = size / (size_t)nranks;
        for (int r = 0; r < nranks; r++)
            for (size_t j = 0; j < part; j++)
                if (d[(size_t)r * part + j] != pattern(r, j))
                    return false;
        return true;
    }
    case OP_BROADCAST:
        for (size_t j = 0; j < size; j++)
            if (d[j] != pattern(0, j))
                return false;
        return true;
    case OP_SENDRECV:
        if (rank != 1)
            return true;
        for (size_t j = 0; j < size; j++)
            if (d[j] != pattern(0, j))
                return false;
        return true;
    default: return true;
    }
}

/* Runs op k once on each side with fresh inputs and checks the outputs. */
static void check(enum op_kind k, size_t size)
{
    for (int side = 0; side < 2; side++) {
        prepare(k, size);
        MPI_Barrier(MPI_COMM_WORLD);
        run_op(k, side == 0, size);
        if (!verify(k, size)) {
            fprintf(stderr, "WRONG: rank %d: %s of %zu bytes by %s: the result differs from the reference\n", rank,
                    op_names[k], size, side == 0 ? "HCCL" : "MPI");
            wrong++;
        }
    }
    /* Leave inputs in place for the timed runs (the broadcast's root buffer, the sends). */
    prepare(k, size);
}

/* ---- timing ------------------------------------------------------------ */

struct figure {
    double p50, p90; /* us */
};

struct result {
    enum op_kind k;
    size_t bytes;
    int iters;
    struct figure hccl, mpi;
};

static double budget_s(void) { return quick ? 0.02 : 0.45; }
static int min_iters(void) { return quick ? 3 : 7; }
static int max_iters(void) { return quick ? 20 : 400; }

/* Iterations that fit `budget` when one costs `each_ns` (the largest over the ranks). */
static int fit_iters(double each_ns)
{
    double n = budget_s() * 1e9 / (each_ns > 1 ? each_ns : 1);
    int iters = n < min_iters() ? min_iters() : n > max_iters() ? max_iters() : (int)n;
    return iters;
}

/* The per-iteration maximum over the ranks, then p50 and p90 (us). */
static struct figure reduce_times(double *t, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, t, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    struct figure f;
    f.p90 = percentile(t, n, 0.90) / 1e3;
    f.p50 = percentile(t, n, 0.50) / 1e3;
    return f;
}

static double timed(enum op_kind k, bool hccl, size_t size)
{
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = now_ns();
    run_op(k, hccl, size);
    uint64_t t1 = now_ns();
    return k == OP_SENDRECV && rank > 1 ? 0.0 : (double)(t1 - t0);
}

static struct result measure(enum op_kind k, size_t size)
{
    struct result r = {.k = k, .bytes = size};
    check(k, size);
    /* Warm-up: two of each; their cost sets the number of iterations. */
    double warm = 0;
    for (int i = 0; i < 2; i++)
        warm = timed(k, true, size) + timed(k, false, size);
    MPI_Allreduce(MPI_IN_PLACE, &warm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r.iters = fit_iters(warm + 10000.0 /* the barriers */);
    double *th = (double *)malloc(sizeof(double) * (size_t)r.iters);
    double *tm = (double *)malloc(sizeof(double) * (size_t)r.iters);
    for (int i = 0; i < r.iters; i++) {
        if (i % 2 == 0) {
            th[i] = timed(k, true, size);
            tm[i] = timed(k, false, size);
        } else {
            tm[i] = timed(k, false, size);
            th[i] = timed(k, true, size);
        }
    }
    r.hccl = reduce_times(th, r.iters);
    r.mpi = reduce_times(tm, r.iters);
    free(th);
    free(tm);
    return r;
}

static void complete_now(aclrtxExternalToken token, void *user)
{
    (void)user;
    aclrtxCompleteExternalTask(token, ACL_SUCCESS);
}

static void empty_host_func(void *user) { (void)user; }

/* An empty task + aclrtSynchronizeStream, timed as the operations are: external task (0) or host function (1). */
static struct figure round_trip(int which)
{
    int n = quick ? 50 : 1000;
    double *t = (double *)malloc(sizeof(double) * (size_t)n);
    for (int i = -n / 10; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t t0 = now_ns();
        if (which == 0)
            OK(aclrtxLaunchExternalTask(stream, complete_now, NULL));
        else
            OK(aclrtLaunchHostFunc(stream, empty_host_func, NULL));
        OK(aclrtSynchronizeStream(stream));
        uint64_t t1 = now_ns();
        if (i >= 0)
            t[i] = (double)(t1 - t0);
    }
    struct figure f = reduce_times(t, n);
    free(t);
    return f;
}

/* An empty MPI_Barrier, timed the same way (what separates the iterations). */
static struct figure barrier_time(void)
{
    int n = quick ? 50 : 1000;
    double *t = (double *)malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t t0 = now_ns();
        MPI_Barrier(MPI_COMM_WORLD);
        t[i] = (double)(now_ns() - t0);
    }
    struct figure f = reduce_times(t, n);
    free(t);
    return f;
}

/* ---- report ------------------------------------------------------------ */

static double gbps(size_t bytes, double us) { return us > 0 ? (double)bytes / (us * 1e3) : 0.0; }

static const char *size_text(size_t b, char *buf, size_t cap)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, cap, "%zuM", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, cap, "%zuK", b >> 10);
    else
        snprintf(buf, cap, "%zu", b);
    return buf;
}

static void cpu_model(char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c != NULL) {
                c += 2;
                c[strcspn(c, "\n")] = '\0';
                snprintf(out, cap, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

/* JSON string: the characters this program writes need no escapes but quotes and backslashes. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    size_t limit = 0;
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc && atoll(argv[i + 1]) >= 8) {
            limit = (size_t)atoll(argv[++i]);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np N %s [--quick] [--max-bytes N] [--out FILE.json]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "hccl-bench: needs at least 2 ranks (mpirun -np 2)\n");
        MPI_Finalize();
        return 2;
    }
    if (provided < MPI_THREAD_MULTIPLE && rank == 0)
        fprintf(stderr, "hccl-bench: MPI gives thread level %d, not MPI_THREAD_MULTIPLE\n", provided);

    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtCreateStream(&stream));
    HcclRootInfo root;
    if (rank == 0)
        OK(HcclGetRootInfo(&root));
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD);
    OK(HcclCommInitRootInfo((uint32_t)nranks, &root, (uint32_t)rank, &comm));

    /* Sizes: 8 B x 4^k up to 32 MiB, and 64 MiB (quick: up to 2 KiB). */
    size_t sizes[32];
    int nsizes = 0;
    size_t top = quick ? (2u << 10) : (32u << 20);
    for (size_t s = 8; s <= top && (limit == 0 || s <= limit); s *= 4)
        sizes[nsizes++] = s;
    if (!quick && (limit == 0 || limit >= (64u << 20)))
        sizes[nsizes++] = 64u << 20;
    max_bytes = sizes[nsizes - 1];
    OK(aclrtMalloc(&sendbuf, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&recvbuf, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(sendbuf, 0, max_bytes);
    memset(recvbuf, 0, max_bytes);

    uint64_t t_start = now_ns();
    /* The fixed costs first, then again at the end: the target uses the better (lower) of the two. */
    struct figure rt_ext = round_trip(0), rt_host = round_trip(1), barrier = barrier_time();

    struct result *res = (struct result *)calloc((size_t)(OP_COUNT * nsizes), sizeof *res);
    int nres = 0;
    for (int k = 0; k < OP_COUNT; k++) {
        for (int i = 0; i < nsizes; i++) {
            size_t size = op_bytes((enum op_kind)k, sizes[i]);
            if (size == 0)
                continue;
            res[nres] = measure((enum op_kind)k, size);
            if (rank == 0) {
                char sb[32];
                fprintf(stderr, "  %-9s %6s  hccl %10.1f us  mpi %10.1f us  (%d iterations)\n", op_names[k],
                        size_text(size, sb, sizeof sb), res[nres].hccl.p50, res[nres].mpi.p50, res[nres].iters);
            }
            nres++;
        }
    }
    struct figure rt_ext2 = round_trip(0), rt_host2 = round_trip(1);
    if (rt_ext2.p50 < rt_ext.p50)
        rt_ext = rt_ext2;
    if (rt_host2.p50 < rt_host.p50)
        rt_host = rt_host2;
    double elapsed = (double)(now_ns() - t_start) / 1e9;

    int wrong_all = 0;
    MPI_Allreduce(&wrong, &wrong_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    if (rank == 0) {
        double tr = rt_ext.p50;
        printf("\nHCCL vs MPI, %d ranks (p50 of per-iteration max over ranks; %s)\n", nranks,
               quick ? "QUICK: not for figures" : "full run");
        printf("task round trip p50: external task + sync %.1f us, host func + sync %.1f us; "
               "MPI_Barrier p50 %.1f us\n",
               rt_ext.p50, rt_host.p50, barrier.p50);
        printf("%-9s %8s %6s | %10s %10s | %10s %10s | %9s %9s | %6s %6s\n", "op", "bytes", "iters", "hccl us",
               "mpi us", "hccl bus", "mpi bus", "lat x", "bus x", "", "");
        printf("%-9s %8s %6s | %10s %10s | %10s %10s | %9s %9s |\n", "", "", "", "p50", "p50", "GB/s", "GB/s",
               "hccl/mpi", "hccl/mpi");
        int misses = 0;
        for (int i = 0; i < nres; i++) {
            struct result *r = &res[i];
            char sb[32];
            double f = bus_factor(r->k);
            double hb = gbps(r->bytes, r->hccl.p50) * f, mb = gbps(r->bytes, r->mpi.p50) * f;
            printf("%-9s %8s %6d | %10.1f %10.1f | %10.3f %10.3f | %9.2f %9.2f |\n", op_names[r->k],
                   size_text(r->bytes, sb, sizeof sb), r->iters, r->hccl.p50, r->mpi.p50, hb, mb,
                   r->hccl.p50 / r->mpi.p50, mb > 0 ? hb / mb : 0.0);
        }
        printf("\ntargets: <= %u B: hccl p50 <= %.1f x mpi p50 + %.1f us (task round trip); "
               ">= %u MiB: hccl busbw >= %.1f x mpi busbw\n",
               SMALL_MAX, SMALL_SLACK, tr, LARGE_MIN >> 20, LARGE_FLOOR);
        for (int i = 0; i < nres; i++) {
            struct result *r = &res[i];
            char sb[32];
            double f = bus_factor(r->k);
            double hb = gbps(r->bytes, r->hccl.p50) * f, mb = gbps(r->bytes, r->mpi.p50) * f;
            if (r->bytes <= SMALL_MAX && r->hccl.p50 > SMALL_SLACK * r->mpi.p50 + tr) {
                printf("MISS: %s %s: hccl p50 %.1f us > %.1f x %.1f + %.1f = %.1f us\n", op_names[r->k],
                       size_text(r->bytes, sb, sizeof sb), r->hccl.p50, SMALL_SLACK, r->mpi.p50, tr,
                       SMALL_SLACK * r->mpi.p50 + tr);
                misses++;
            }
            if (r->bytes >= LARGE_MIN && hb < LARGE_FLOOR * mb) {
                printf("MISS: %s %s: hccl busbw %.3f GB/s < %.1f x %.3f GB/s\n", op_names[r->k],
                       size_text(r->bytes, sb, sizeof sb), hb, LARGE_FLOOR, mb);
                misses++;
            }
        }
        printf("%d target%s missed; %s; %.1f s\n", misses, misses == 1 ? "" : "s",
               wrong_all ? "WRONG RESULTS" : "every result checked against its reference", elapsed);

        FILE *out = out_path != NULL ? fopen(out_path, "w") : NULL;
        if (out_path != NULL && out == NULL)
            fprintf(stderr, "hccl-bench: cannot write %s\n", out_path);
        if (out != NULL) {
            char cpu[256], host[256] = "";
            struct utsname u;
            cpu_model(cpu, sizeof cpu);
            uname(&u);
            gethostname(host, sizeof host - 1);
            double load[3] = {0, 0, 0};
            getloadavg(load, 3);
            const char *git = getenv("BENCH_GIT");
            fprintf(out, "{\"machine\": {\"cpu\": ");
            json_str(out, cpu);
            fprintf(out, ", \"cpus\": %ld, \"kernel\": ", sysconf(_SC_NPROCESSORS_ONLN));
            json_str(out, u.release);
            fprintf(out, ", \"load\": [%.2f, %.2f, %.2f], \"git\": ", load[0], load[1], load[2]);
            json_str(out, git != NULL ? git : "");
            fprintf(out, "},\n \"nranks\": %d, \"quick\": %s, \"seconds\": %.1f,\n", nranks, quick ? "true" : "false",
                    elapsed);
            fprintf(out, " \"timing\": \"MPI_Barrier, then the operation (HCCL: call + aclrtSynchronizeStream; MPI: "
                         "the blocking call); an iteration's time is the max over ranks; p50/p90 over iterations\",\n");
            fprintf(out, " \"sendrecv\": \"one way, rank 0 to rank 1, each transfer started from a barrier\",\n");
            fprintf(out,
                    " \"task_round_trip_us\": {\"external_task_p50\": %.2f, \"external_task_p90\": %.2f, "
                    "\"host_func_p50\": %.2f, \"host_func_p90\": %.2f},\n \"barrier_us\": {\"p50\": %.2f, \"p90\": "
                    "%.2f},\n",
                    rt_ext.p50, rt_ext.p90, rt_host.p50, rt_host.p90, barrier.p50, barrier.p90);
            fprintf(out, " \"targets\": {\"small_max_bytes\": %u, \"small_slack\": %.2f, \"large_min_bytes\": %u, "
                         "\"large_floor\": %.2f},\n",
                    SMALL_MAX, SMALL_SLACK, LARGE_MIN, LARGE_FLOOR);
            fprintf(out, " \"wrong\": %d, \"misses\": %d,\n \"results\": [\n", wrong_all, misses);
            for (int i = 0; i < nres; i++) {
                struct result *r = &res[i];
                double f = bus_factor(r->k);
                double ha = gbps(r->bytes, r->hccl.p50), ma = gbps(r->bytes, r->mpi.p50);
                const char *target = r->bytes <= SMALL_MAX ? "latency" : r->bytes >= LARGE_MIN ? "busbw" : NULL;
                bool met = r->bytes <= SMALL_MAX ? r->hccl.p50 <= SMALL_SLACK * r->mpi.p50 + tr
                                                 : r->bytes < LARGE_MIN || ha >= LARGE_FLOOR * ma;
                fprintf(out,
                        "  {\"op\": \"%s\", \"bytes\": %zu, \"iterations\": %d, "
                        "\"hccl\": {\"p50_us\": %.2f, \"p90_us\": %.2f, \"algbw_GBps\": %.4f, \"busbw_GBps\": %.4f}, "
                        "\"mpi\": {\"p50_us\": %.2f, \"p90_us\": %.2f, \"algbw_GBps\": %.4f, \"busbw_GBps\": %.4f}, "
                        "\"latency_ratio\": %.3f, \"busbw_ratio\": %.3f, \"target\": %s%s%s, \"target_met\": %s}%s\n",
                        op_names[r->k], r->bytes, r->iters, r->hccl.p50, r->hccl.p90, ha, ha * f, r->mpi.p50,
                        r->mpi.p90, ma, ma * f, r->hccl.p50 / r->mpi.p50, ma > 0 ? ha / ma : 0.0,
                        target ? "\"" : "", target ? target : "null", target ? "\"" : "",
                        target ? (met ? "true" : "false") : "null", i + 1 < nres ? "," : "");
            }
            fprintf(out, " ]}\n");
            fclose(out);
            printf("wrote %s\n", out_path);
        }
    }

    OK(HcclCommDestroy(comm));
    OK(aclrtFree(sendbuf));
    OK(aclrtFree(recvbuf));
    OK(aclrtDestroyStream(stream));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    free(res);
    MPI_Finalize();
    return wrong_all != 0 ? 1 : 0;
}
