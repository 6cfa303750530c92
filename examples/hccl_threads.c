/*
 * hccl_threads.c - four ranks as four threads of one process: each thread
 * makes its communicator from one root info (HcclGetRootInfo once, then
 * HcclCommInitRootInfo per rank, as HCCL's own multi-thread examples do),
 * fills a buffer with its rank, and sums the buffers of all ranks with
 * HcclAllReduce on its own stream. The call enqueues and returns; the sum
 * is there after aclrtSynchronizeStream, like any task of the stream.
 *
 * Build and run, from the root of the repository (nothing to install first; no MPI needed):
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/hccl_threads.c -o hccl_threads -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./hccl_threads
 */
#define _POSIX_C_SOURCE 200809L
#include "acl/acl.h"
#include "hccl/hccl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define RANKS 4
#define COUNT 1024

static HcclRootInfo root;
static int result[RANKS];

static void *rank_main(void *arg)
{
    int rank = (int)(long)arg;
    HcclComm comm;
    aclrtStream stream;
    float *buf; /* device memory: filled and read back through copies */
    static float host[RANKS][COUNT];
    /* Every rank waits here until all four have joined. */
    if (HcclCommInitRootInfo(RANKS, &root, (uint32_t)rank, &comm) != HCCL_SUCCESS)
        return NULL;
    aclrtSetDevice(rank); /* one device per rank */
    aclrtCreateStream(&stream);
    aclrtMalloc((void **)&buf, COUNT * sizeof *buf, ACL_MEM_MALLOC_HUGE_FIRST);
    for (int i = 0; i < COUNT; i++)
        host[rank][i] = (float)rank;
    aclrtMemcpy(buf, COUNT * sizeof *buf, host[rank], sizeof host[rank], ACL_MEMCPY_HOST_TO_DEVICE);
    HcclAllReduce(buf, buf, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream); /* in place */
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(host[rank], sizeof host[rank], buf, COUNT * sizeof *buf, ACL_MEMCPY_DEVICE_TO_HOST);
    result[rank] = (int)host[rank][COUNT - 1];
    aclrtFree(buf);
    aclrtDestroyStream(stream);
    HcclCommDestroy(comm);
    return NULL;
}

int main(void)
{
    setenv("ACLRT_DEVICES", "4", 0); /* the host backend makes four devices */
    if (aclInit(NULL) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS) {
        fprintf(stderr, "hccl_threads: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    pthread_t t[RANKS];
    for (long r = 0; r < RANKS; r++)
        pthread_create(&t[r], NULL, rank_main, (void *)r);
    int ok = 1;
    for (int r = 0; r < RANKS; r++) {
        pthread_join(t[r], NULL);
        printf("rank %d: sum of the ranks = %d\n", r, result[r]);
        ok &= result[r] == 0 + 1 + 2 + 3;
    }
    aclFinalize();
    return ok ? 0 : 1;
}
