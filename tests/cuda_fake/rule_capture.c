/*
 * tests/cuda_fake/rule_capture.c - rule 11 of the test double: stream capture
 * as cuda.h documents it (cuStreamBeginCapture, cuThreadExchangeStreamCaptureMode,
 * cuStreamEndCapture, the CUDA_ERROR_STREAM_CAPTURE_* codes). Planted, each
 * caught with its code and, where the driver does, the capture invalidated
 * (its end then returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and no graph):
 *   - a potentially unsafe call (cuMemAlloc, a synchronous cuMemcpy) from
 *     another thread while a GLOBAL capture runs, and from the capturing
 *     thread under THREAD_LOCAL (other threads free then); RELAXED forbids
 *     nothing, and a thread in RELAXED interaction mode is free of others'
 *     GLOBAL captures;
 *   - cuCtxSynchronize, cuStreamSynchronize and cuStreamQuery of a capturing
 *     stream; work enqueued after the invalidation (..._INVALIDATED);
 *   - cuEventQuery / cuEventSynchronize of an event recorded in the capture
 *     (CUDA_ERROR_CAPTURED_EVENT, the capture goes on);
 *   - work on the legacy NULL stream while a blocking stream captures
 *     (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
 *   - the end of a non-relaxed capture from another thread
 *     (..._WRONG_THREAD, the capture goes on), on a forked stream
 *     (..._UNMATCHED), with a fork not joined back (..._UNJOINED);
 *   - a wait across the capture's boundary (..._ISOLATION) or between two
 *     captures (..._MERGE);
 *   - a copy of pageable host memory (..._UNSUPPORTED).
 * A fork joined back gives a graph that runs both streams' work. No knob:
 * these are the driver's documented rules, not a GPU's limits.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "rules.h"

typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

CUresult cuCtxSynchronize(void);
CUresult cuStreamQuery(CUstream s);
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags);
CUresult cuEventCreate(CUevent *e, unsigned int flags);
CUresult cuEventDestroy_v2(CUevent e);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventQuery(CUevent e);
CUresult cuEventSynchronize(CUevent e);
CUresult cuStreamBeginCapture_v2(CUstream s, unsigned mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *graph);
CUresult cuStreamIsCapturing(CUstream s, unsigned *status);
CUresult cuThreadExchangeStreamCaptureMode(unsigned *mode);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec x, CUstream s);
CUresult cuGraphExecDestroy(CUgraphExec x);
CUresult cuGraphDestroy(CUgraph g);

#define GLOBAL 0u
#define THREAD_LOCAL 1u
#define RELAXED 2u
#define CUDA_ERROR_INVALID_HANDLE 400u
#define CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900u
#define CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901u
#define CUDA_ERROR_STREAM_CAPTURE_MERGE 902u
#define CUDA_ERROR_STREAM_CAPTURE_UNMATCHED 903u
#define CUDA_ERROR_STREAM_CAPTURE_UNJOINED 904u
#define CUDA_ERROR_STREAM_CAPTURE_ISOLATION 905u
#define CUDA_ERROR_STREAM_CAPTURE_IMPLICIT 906u
#define CUDA_ERROR_CAPTURED_EVENT 907u
#define CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD 908u

static CUcontext ctx;
static CUdeviceptr dev; /* 256 bytes of device memory */

/* A call made on another thread (the context current there); its result. */
enum other_call { ALLOC, ALLOC_RELAXED_THREAD, END_CAPTURE };
struct other {
    enum other_call call;
    CUstream s;
    CUgraph graph;
    CUresult r;
};

static void *other_main(void *arg)
{
    struct other *o = (struct other *)arg;
    cuCtxSetCurrent(ctx);
    CUdeviceptr p = 0;
    switch (o->call) {
    case ALLOC_RELAXED_THREAD: {
        unsigned mode = RELAXED;
        cuThreadExchangeStreamCaptureMode(&mode);
    } /* fall through */
    case ALLOC:
        o->r = cuMemAlloc_v2(&p, 64);
        if (o->r == CUDA_SUCCESS)
            cuMemFree_v2(p);
        break;
    case END_CAPTURE: o->r = cuStreamEndCapture(o->s, &o->graph); break;
    }
    return NULL;
}

static CUresult on_other_thread(enum other_call call, CUstream s, CUgraph *graph)
{
    struct other o = {call, s, NULL, 0};
    pthread_t t;
    EXPECT("pthread_create", pthread_create(&t, NULL, other_main, &o), 0);
    pthread_join(t, NULL);
    if (graph != NULL)
        *graph = o.graph;
    return o.r;
}

/* End the capture on s: `want`, with a graph exactly when it is CUDA_SUCCESS (destroyed here). */
static void end_expect(const char *what, CUstream s, CUresult want)
{
    CUgraph g = (CUgraph)(uintptr_t)1;
    EXPECT(what, cuStreamEndCapture(s, &g), want);
    EXPECT("a graph exactly when the capture ended well", g != NULL, want == CUDA_SUCCESS);
    if (g != NULL)
        cuGraphDestroy(g);
    unsigned status = 9;
    EXPECT("cuStreamIsCapturing after the end", cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
    EXPECT(what, status, 0);
}

static void modes(CUstream s)
{
    CUdeviceptr p = 0;
    /* GLOBAL: another thread's allocation is refused, and the capture invalidated. */
    EXPECT("begin GLOBAL", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on another thread, GLOBAL", on_other_thread(ALLOC, NULL, NULL),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    unsigned status = 0;
    EXPECT("cuStreamIsCapturing", cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
    EXPECT("invalidated", status, 2);
    EXPECT("work after the invalidation", cuMemsetD8Async(dev, 1, 16, s), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    end_expect("end after another thread's cuMemAlloc", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    /* GLOBAL, but that thread in RELAXED interaction mode: free. */
    EXPECT("begin GLOBAL", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on a RELAXED thread", on_other_thread(ALLOC_RELAXED_THREAD, NULL, NULL), CUDA_SUCCESS);
    EXPECT("cuMemsetD8Async captured", cuMemsetD8Async(dev, 1, 16, s), CUDA_SUCCESS);
    end_expect("end", s, CUDA_SUCCESS);

    /* THREAD_LOCAL: others free, the capturing thread not. */
    EXPECT("begin THREAD_LOCAL", cuStreamBeginCapture_v2(s, THREAD_LOCAL), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on another thread, THREAD_LOCAL", on_other_thread(ALLOC, NULL, NULL), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on the capturing thread, THREAD_LOCAL", cuMemAlloc_v2(&p, 64),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_expect("end after the thread's own cuMemAlloc", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    /* RELAXED: nothing forbidden to anyone. */
    EXPECT("begin RELAXED", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on another thread, RELAXED", on_other_thread(ALLOC, NULL, NULL), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on the capturing thread, RELAXED", cuMemAlloc_v2(&p, 64), CUDA_SUCCESS);
    EXPECT("cuMemFree", cuMemFree_v2(p), CUDA_SUCCESS);
    end_expect("end of a RELAXED capture", s, CUDA_SUCCESS);

    /* A synchronous copy on the capturing thread, GLOBAL. */
    uint64_t v = 0;
    EXPECT("begin GLOBAL", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("cuMemcpy while capturing", cuMemcpy((CUdeviceptr)(uintptr_t)&v, dev, 8),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_expect("end after cuMemcpy", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
}

static void synchronizing(CUstream s)
{
    EXPECT("begin RELAXED", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("cuCtxSynchronize while a stream captures", cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_expect("end after cuCtxSynchronize", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT("begin RELAXED", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize of the capturing stream", cuStreamSynchronize(s),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_expect("end after cuStreamSynchronize", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT("begin RELAXED", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("cuStreamQuery of the capturing stream", cuStreamQuery(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_expect("end after cuStreamQuery", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    /* An event recorded in the capture has nothing to wait for; the capture goes on. */
    CUevent e = NULL;
    EXPECT("cuEventCreate", cuEventCreate(&e, 0), CUDA_SUCCESS);
    EXPECT("begin GLOBAL", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("cuEventRecord in the capture", cuEventRecord(e, s), CUDA_SUCCESS);
    EXPECT("cuEventQuery of a captured event", cuEventQuery(e), CUDA_ERROR_CAPTURED_EVENT);
    EXPECT("cuEventSynchronize of a captured event", cuEventSynchronize(e), CUDA_ERROR_CAPTURED_EVENT);
    end_expect("end after the event's query", s, CUDA_SUCCESS);
    EXPECT("cuEventRecord outside a capture", cuEventRecord(e, s), CUDA_SUCCESS);
    EXPECT("cuEventSynchronize", cuEventSynchronize(e), CUDA_SUCCESS);
    EXPECT("cuEventDestroy", cuEventDestroy_v2(e), CUDA_SUCCESS);
}

static void legacy_stream(CUstream s)
{
    CUstream blocking = NULL;
    unsigned status = 9;
    EXPECT("cuStreamCreate (blocking)", cuStreamCreateWithPriority(&blocking, 0, 0), CUDA_SUCCESS);
    EXPECT("begin on a non-blocking stream", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("cuStreamIsCapturing(NULL), a non-blocking stream capturing", cuStreamIsCapturing(NULL, &status),
           CUDA_SUCCESS);
    EXPECT("the legacy stream is not capturing", status, 0);
    end_expect("end", s, CUDA_SUCCESS);
    EXPECT("begin on a blocking stream", cuStreamBeginCapture_v2(blocking, RELAXED), CUDA_SUCCESS);
    EXPECT("cuStreamIsCapturing(NULL), a blocking stream capturing", cuStreamIsCapturing(NULL, &status),
           CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    EXPECT("cuStreamIsCapturing (not invalidated by the query)", cuStreamIsCapturing(blocking, &status),
           CUDA_SUCCESS);
    EXPECT("active", status, 1);
    EXPECT("work on the legacy stream", cuMemsetD8Async(dev, 1, 16, NULL), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    EXPECT("cuStreamSynchronize(NULL)", cuStreamSynchronize(NULL), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    end_expect("end after legacy work", blocking, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(blocking), CUDA_SUCCESS);
}

static void ends(CUstream s, CUstream s2)
{
    CUgraph g = NULL;
    /* A GLOBAL capture ended on another thread: refused, and it goes on. */
    EXPECT("begin GLOBAL", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("end on another thread", on_other_thread(END_CAPTURE, s, &g), CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    EXPECT("no graph", g == NULL, 1);
    end_expect("end on the capturing thread", s, CUDA_SUCCESS);
    /* RELAXED: any thread ends it. */
    EXPECT("begin RELAXED", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("end of RELAXED on another thread", on_other_thread(END_CAPTURE, s, &g), CUDA_SUCCESS);
    EXPECT("a graph", g != NULL, 1);
    cuGraphDestroy(g);

    CUevent fork = NULL, join = NULL;
    EXPECT("cuEventCreate", cuEventCreate(&fork, 0), CUDA_SUCCESS);
    EXPECT("cuEventCreate", cuEventCreate(&join, 0), CUDA_SUCCESS);
    /* Ended on the forked stream, not where it began. */
    EXPECT("begin", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("record the fork", cuEventRecord(fork, s), CUDA_SUCCESS);
    EXPECT("fork s2", cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
    unsigned status = 0;
    EXPECT("cuStreamIsCapturing(s2)", cuStreamIsCapturing(s2, &status), CUDA_SUCCESS);
    EXPECT("s2 in the capture", status, 1);
    EXPECT("end on the forked stream", cuStreamEndCapture(s2, &g), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    EXPECT("no graph", g == NULL, 1);
    EXPECT("cuStreamIsCapturing(s2)", cuStreamIsCapturing(s2, &status), CUDA_SUCCESS);
    EXPECT("s2 still in the capture, invalidated", status, 2);
    end_expect("end on the origin", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT("s2 left the capture", cuStreamIsCapturing(s2, &status) == CUDA_SUCCESS && status == 0, 1);
    /* A fork with work, not joined back. */
    EXPECT("begin", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("record the fork", cuEventRecord(fork, s), CUDA_SUCCESS);
    EXPECT("fork s2", cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
    EXPECT("work on s2", cuMemsetD8Async(dev + 64, 7, 16, s2), CUDA_SUCCESS);
    end_expect("end with s2 unjoined", s, CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    /* Joined back: the graph runs both streams' work. */
    EXPECT("cuMemsetD8", cuMemsetD8_v2(dev, 0, 256), CUDA_SUCCESS);
    EXPECT("begin", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("work on s", cuMemsetD8Async(dev, 5, 16, s), CUDA_SUCCESS);
    EXPECT("record the fork", cuEventRecord(fork, s), CUDA_SUCCESS);
    EXPECT("fork s2", cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
    EXPECT("work on s2", cuMemsetD8Async(dev + 64, 7, 16, s2), CUDA_SUCCESS);
    EXPECT("record the join", cuEventRecord(join, s2), CUDA_SUCCESS);
    EXPECT("join s2", cuStreamWaitEvent(s, join, 0), CUDA_SUCCESS);
    EXPECT("end (joined)", cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    CUgraphExec x = NULL;
    EXPECT("instantiate", cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
    EXPECT("launch", cuGraphLaunch(x, s), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    unsigned char back[80];
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)back, dev, sizeof back), CUDA_SUCCESS);
    EXPECT("s's set ran", back[0], 5);
    EXPECT("s2's set ran", back[64], 7);
    cuGraphExecDestroy(x);
    cuGraphDestroy(g);

    /* A wait on an event recorded outside the capture crosses its boundary. */
    EXPECT("record outside", cuEventRecord(join, s2), CUDA_SUCCESS);
    EXPECT("begin", cuStreamBeginCapture_v2(s, GLOBAL), CUDA_SUCCESS);
    EXPECT("wait across the boundary", cuStreamWaitEvent(s, join, 0), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
    end_expect("end after the isolation failure", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* Two captures, one waiting for the other's event. */
    EXPECT("begin on s", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("begin on s2", cuStreamBeginCapture_v2(s2, RELAXED), CUDA_SUCCESS);
    EXPECT("record in s's capture", cuEventRecord(fork, s), CUDA_SUCCESS);
    EXPECT("wait in s2's capture", cuStreamWaitEvent(s2, fork, 0), CUDA_ERROR_STREAM_CAPTURE_MERGE);
    end_expect("end s2's", s2, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    end_expect("end s's", s, CUDA_SUCCESS);
    EXPECT("cuEventRecord", cuEventRecord(fork, s), CUDA_SUCCESS);
    EXPECT("cuEventDestroy", cuEventDestroy_v2(fork), CUDA_SUCCESS);
    EXPECT("cuEventDestroy", cuEventDestroy_v2(join), CUDA_SUCCESS);
}

static void pageable_copy(CUstream s)
{
    static unsigned char host[64];
    EXPECT("begin", cuStreamBeginCapture_v2(s, RELAXED), CUDA_SUCCESS);
    EXPECT("capture a copy from pageable memory", cuMemcpyAsync(dev, (CUdeviceptr)(uintptr_t)host, 64, s),
           CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    end_expect("end after the pageable copy", s, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
}

int main(void)
{
    ctx = rules_start();
    CUstream s = NULL, s2 = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s2, 1, 0), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&dev, 256), CUDA_SUCCESS);
    modes(s);
    synchronizing(s);
    legacy_stream(s);
    ends(s, s2);
    pageable_copy(s);
    EXPECT("cuMemFree", cuMemFree_v2(dev), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s2), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("11, stream capture", "ACLRT_FAKE_CUDA_NO_KNOB");
}
