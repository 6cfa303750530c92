/*
 * pipeline.c - a three-stage pipeline on three streams, linked by events.
 *
 * Each batch goes load -> compute -> store. Every stage runs on its own
 * stream, so batch k+1 loads while batch k computes. Events carry the
 * dependencies: the compute stream waits for "batch loaded", the store
 * stream waits for "batch computed", and the load stream waits until the
 * store of the batch that last used the same buffer is done. The compute
 * stage is a host kernel (aclrtxLaunchHostKernel): the CPU stand-in for a
 * device kernel, one call per block.
 *
 * Build and run, from the root of the repository (nothing to install first; the
 * -DACLRT_IMPLEMENTATION puts the implementation in this file):
 *
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/pipeline.c -o pipeline -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./pipeline
 *
 * `make run-examples` builds and runs every example under build/examples/.
 */
#include "acl/acl.h"

#include <stdio.h>
#include <stdlib.h>

#define BATCHES 64
#define BUFFERS 2
#define ELEMS 4096
#define BLOCKS 8

#define CHECK(call)                                                                         \
    do {                                                                                    \
        aclError ret_ = (call);                                                             \
        if (ret_ != ACL_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d %s failed: %d\n%s\n", __FILE__, __LINE__, #call, ret_,   \
                    aclGetRecentErrMsg());                                                  \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

struct batch {
    int index;
    float *buffer;   /* pinned host memory: every stage here runs on the host */
    double *result;  /* where the store stage writes the batch's sum */
};

static void load(void *arg)
{
    struct batch *b = arg;
    for (int i = 0; i < ELEMS; i++)
        b->buffer[i] = (float)(b->index + i % 7);
}

static aclError scale(uint32_t block, uint32_t blocks, void *arg)
{
    struct batch *b = arg;
    int per = ELEMS / (int)blocks;
    for (int i = (int)block * per; i < ((int)block + 1) * per; i++)
        b->buffer[i] *= 2.0f;
    return ACL_SUCCESS;
}

static void store(void *arg)
{
    struct batch *b = arg;
    double sum = 0;
    for (int i = 0; i < ELEMS; i++)
        sum += b->buffer[i];
    *b->result = sum;
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));

    aclrtStream loader, computer, storer;
    CHECK(aclrtCreateStream(&loader));
    CHECK(aclrtCreateStream(&computer));
    CHECK(aclrtCreateStream(&storer));

    float *buffers[BUFFERS];
    aclrtEvent loaded[BUFFERS], computed[BUFFERS], stored[BUFFERS];
    for (int i = 0; i < BUFFERS; i++) {
        CHECK(aclrtMallocHost((void **)&buffers[i], ELEMS * sizeof(float)));
        /* Ex events: re-recorded every batch, complete before their first record. */
        CHECK(aclrtCreateEventExWithFlag(&loaded[i], ACL_EVENT_SYNC));
        CHECK(aclrtCreateEventExWithFlag(&computed[i], ACL_EVENT_SYNC));
        CHECK(aclrtCreateEventExWithFlag(&stored[i], ACL_EVENT_SYNC));
    }

    static struct batch batches[BATCHES];
    static double results[BATCHES];
    aclrtEvent start, stop;
    CHECK(aclrtCreateEvent(&start));
    CHECK(aclrtCreateEvent(&stop));
    CHECK(aclrtRecordEvent(start, loader));

    for (int k = 0; k < BATCHES; k++) {
        int buf = k % BUFFERS;
        batches[k] = (struct batch){k, buffers[buf], &results[k]};
        CHECK(aclrtStreamWaitEvent(loader, stored[buf]));       /* buffer free again */
        CHECK(aclrtLaunchHostFunc(loader, load, &batches[k]));
        CHECK(aclrtRecordEvent(loaded[buf], loader));

        CHECK(aclrtStreamWaitEvent(computer, loaded[buf]));
        CHECK(aclrtxLaunchHostKernel(computer, BLOCKS, scale, &batches[k]));
        CHECK(aclrtRecordEvent(computed[buf], computer));

        CHECK(aclrtStreamWaitEvent(storer, computed[buf]));
        CHECK(aclrtLaunchHostFunc(storer, store, &batches[k]));
        CHECK(aclrtRecordEvent(stored[buf], storer));
    }
    CHECK(aclrtRecordEvent(stop, storer));
    CHECK(aclrtSynchronizeEvent(stop));

    /* Check every batch: sum of 2 * (k + i % 7) over the elements. */
    int bad = 0;
    for (int k = 0; k < BATCHES; k++) {
        double want = 0;
        for (int i = 0; i < ELEMS; i++)
            want += 2.0 * (k + i % 7);
        if (results[k] != want) {
            fprintf(stderr, "batch %d: sum %.1f, expected %.1f\n", k, results[k], want);
            bad++;
        }
    }
    float ms = 0;
    CHECK(aclrtEventElapsedTime(&ms, start, stop));
    printf("pipeline: %d batches through 3 streams, %s, %.3f ms\n", BATCHES, bad ? "WRONG RESULTS" : "all correct",
           ms);

    for (int i = 0; i < BUFFERS; i++) {
        CHECK(aclrtFreeHost(buffers[i]));
        CHECK(aclrtDestroyEvent(loaded[i]));
        CHECK(aclrtDestroyEvent(computed[i]));
        CHECK(aclrtDestroyEvent(stored[i]));
    }
    CHECK(aclrtDestroyEvent(start));
    CHECK(aclrtDestroyEvent(stop));
    CHECK(aclrtDestroyStream(loader));
    CHECK(aclrtDestroyStream(computer));
    CHECK(aclrtDestroyStream(storer));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return bad ? 1 : 0;
}
