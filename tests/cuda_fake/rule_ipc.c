/*
 * tests/cuda_fake/rule_ipc.c - rule 7 of the test double: interprocess
 * memory as CUDA documents it (cuIpcGetMemHandle, cuIpcOpenMemHandle,
 * cuIpcCloseMemHandle). Planted, in the exporter: a handle of an address
 * that is not an allocation's base, of host memory, and an open of its own
 * handle (CUDA opens a handle only in another process:
 * CUDA_ERROR_INVALID_CONTEXT). In the importer, another process (this
 * program again, fork then exec, so it is a fresh process: a child forked
 * after cuInit has no driver, rule 5): a handle that is not one and the
 * handle of an allocation freed since (CUDA_ERROR_INVALID_HANDLE), a flag
 * other than CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, cuMemFree of an import, a
 * close too many (CUDA_ERROR_INVALID_VALUE), and a copy from an import
 * after the exporter freed the allocation (undefined in CUDA; the double
 * fails it with CUDA_ERROR_INVALID_VALUE). What must work: the bytes are
 * the same both ways (copies and sets only: device memory is not the
 * host's), a second open in the same context returns the same address and
 * needs a second close. No knob: the double always keeps these rules.
 */
#define _GNU_SOURCE
#include "rules.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#define CUDA_ERROR_INVALID_CONTEXT 201u
#define CUDA_ERROR_INVALID_HANDLE 400u
#define LAZY_PEER 0x1u /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */

typedef struct {
    char reserved[64];
} CUipcMemHandle;

CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int flags);
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr);

static void put(int fd, const void *buf, size_t n)
{
    EXPECT("write to the other process", write(fd, buf, n), (long long)n);
}

static void get(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    EXPECT("read from the other process", got, n);
}

/* The importer: handles from `in` (live, freed, garbage), "w" and its verdict to `out`, "f" from `in`. */
static int importer(int in, int out)
{
    rules_start();
    CUipcMemHandle live, freed, garbage;
    get(in, &live, sizeof live);
    get(in, &freed, sizeof freed);
    memset(&garbage, 0x3C, sizeof garbage);
    CUdeviceptr p = 0, q = 0, r = 0;
    EXPECT("open a handle that is not one", cuIpcOpenMemHandle_v2(&r, garbage, LAZY_PEER), CUDA_ERROR_INVALID_HANDLE);
    EXPECT("open the handle of a freed allocation", cuIpcOpenMemHandle_v2(&r, freed, LAZY_PEER),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("open with flags 0", cuIpcOpenMemHandle_v2(&r, live, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT("open", cuIpcOpenMemHandle_v2(&p, live, LAZY_PEER), CUDA_SUCCESS);
    unsigned char b[16] = {0};
    EXPECT("copy from the import", cuMemcpy((CUdeviceptr)(uintptr_t)b, p + 4096, sizeof b), CUDA_SUCCESS);
    EXPECT("the exporter's bytes", b[0] == 0x5A && b[15] == 0x5A, 1);
    EXPECT("open again in the same context", cuIpcOpenMemHandle_v2(&q, live, LAZY_PEER), CUDA_SUCCESS);
    EXPECT("... the same address", q == p, 1);
    EXPECT("cuMemFree of an import", cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
    EXPECT("close the second open", cuIpcCloseMemHandle(q), CUDA_SUCCESS);
    EXPECT("set through the import", cuMemsetD8_v2(p + 8, 0x77, 8), CUDA_SUCCESS);
    put(out, "w", 1);
    char c = 0;
    get(in, &c, 1); /* the exporter freed the allocation */
    EXPECT("copy from an import the exporter freed", cuMemcpy((CUdeviceptr)(uintptr_t)b, p, sizeof b),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("close", cuIpcCloseMemHandle(p), CUDA_SUCCESS);
    EXPECT("close once too often", cuIpcCloseMemHandle(p), CUDA_ERROR_INVALID_VALUE);
    EXPECT("close of an address that was never an import", cuIpcCloseMemHandle((CUdeviceptr)(uintptr_t)b),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    int failures = rules_failures;
    put(out, &failures, sizeof failures);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--importer") == 0)
        return importer(atoi(argv[2]), atoi(argv[3]));
    rules_start();
    CUdeviceptr d = 0, gone = 0;
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&d, 8192), CUDA_SUCCESS);
    EXPECT("cuMemsetD8", cuMemsetD8_v2(d, 0x5A, 8192), CUDA_SUCCESS);
    CUipcMemHandle live, freed, h;
    EXPECT("cuIpcGetMemHandle", cuIpcGetMemHandle(&live, d), CUDA_SUCCESS);
    EXPECT("cuIpcGetMemHandle again: the same handle", cuIpcGetMemHandle(&h, d), CUDA_SUCCESS);
    EXPECT("... the same bytes", memcmp(&h, &live, sizeof h), 0);
    EXPECT("a handle of an address inside an allocation", cuIpcGetMemHandle(&h, d + 256), CUDA_ERROR_INVALID_VALUE);
    void *host = NULL;
    EXPECT("cuMemHostAlloc", cuMemHostAlloc(&host, 4096, 0), CUDA_SUCCESS);
    EXPECT("a handle of pinned host memory", cuIpcGetMemHandle(&h, (CUdeviceptr)(uintptr_t)host),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuMemFreeHost", cuMemFreeHost(host), CUDA_SUCCESS);
    CUdeviceptr own = 0;
    EXPECT("open a handle in the process that exported it", cuIpcOpenMemHandle_v2(&own, live, LAZY_PEER),
           CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&gone, 4096), CUDA_SUCCESS);
    EXPECT("cuIpcGetMemHandle", cuIpcGetMemHandle(&freed, gone), CUDA_SUCCESS);
    EXPECT("cuMemFree", cuMemFree_v2(gone), CUDA_SUCCESS);

    int down[2], up[2];
    EXPECT("pipe", pipe(down), 0);
    EXPECT("pipe", pipe(up), 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char in[16], out[16];
        snprintf(in, sizeof in, "%d", down[0]);
        snprintf(out, sizeof out, "%d", up[1]);
        execl("/proc/self/exe", argv[0], "--importer", in, out, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    put(down[1], &live, sizeof live);
    put(down[1], &freed, sizeof freed);
    char c = 0;
    get(up[0], &c, 1);
    unsigned char b[16] = {0};
    EXPECT("copy back", cuMemcpy((CUdeviceptr)(uintptr_t)b, d, sizeof b), CUDA_SUCCESS);
    EXPECT("the importer's set seen here", b[7] == 0x5A && b[8] == 0x77 && b[15] == 0x77, 1);
    EXPECT("cuMemFree while imported", cuMemFree_v2(d), CUDA_SUCCESS);
    put(down[1], "f", 1);
    int failures = -1;
    get(up[0], &failures, sizeof failures);
    int status = 0;
    EXPECT("waitpid", waitpid(pid, &status, 0), pid);
    EXPECT("the importer's checks", WIFEXITED(status) ? WEXITSTATUS(status) : 100, 0);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    if (rules_failures == 0)
        printf("fake cuda rule 7, interprocess memory handles (strict, no knob): ok\n");
    return rules_failures != 0;
}
