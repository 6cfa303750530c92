/*
 * tests/test_sanitize.c - the stream-ordering sanitizer (ACLRT_SANITIZE):
 * races planted one per ordering mechanism, each reported exactly once and
 * with both sides named; the same flows ordered correctly, reported never;
 * use after free, free races and reads of memory nothing wrote; the exit
 * status aclFinalize gives a program the sanitizer reported on.
 *
 * Every case writes its buffers first (a synchronous memset by the host),
 * so only the planted read of never-written memory is one.
 */
#define _GNU_SOURCE
#include "check.h"
#include "kernels/test_kernels.h"
#include "gate.h"
#include "hccl/hccl.h"

#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#define BYTES 4096

/* The reports, as the callback saw them. */
#define MAX_REPORTS 64
static aclrtxSanitizerReport reports[MAX_REPORTS];
static char report_texts[MAX_REPORTS][2048];
static int nreports;

static void on_report(const aclrtxSanitizerReport *r, void *user)
{
    (void)user;
    if (nreports < MAX_REPORTS) {
        reports[nreports] = *r;
        snprintf(report_texts[nreports], sizeof report_texts[nreports], "%s", r->text); /* valid during the call */
        reports[nreports].text = report_texts[nreports];
    }
    nreports++;
}

static aclrtStream s1, s2, s3;
static void *dev, *host_in, *host_out;

static void set_flag(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

/*
 * Under the deterministic schedule (ACLRT_SCHEDULE=deterministic:SEED) the
 * device's work runs only in the program's waits, one task at a time: what
 * the sanitizer reports must not depend on the seed (make test-schedule).
 */
static bool deterministic(void)
{
    const char *s = getenv("ACLRT_SCHEDULE");
    return s != NULL && strncmp(s, "deterministic:", 14) == 0;
}

/*
 * Let the work launched on `stream` finish before the next call, in a way
 * that orders nothing for the sanitizer (a host function that touches
 * nothing sets a flag the test waits for): the planted races are races of
 * the program's order, not of this run, which ThreadSanitizer would see.
 * Under the deterministic schedule nothing runs at once, and nothing would
 * run while the test spins: no need, and no way.
 */
static void settle(aclrtStream stream)
{
    if (deterministic())
        return;
    atomic_int done = 0;
    CHECK_OK(aclrtxDeclareAccess(stream, NULL, 0, ACLRTX_ACCESS_NONE));
    CHECK_OK(aclrtLaunchHostFunc(stream, set_flag, &done));
    while (!atomic_load(&done))
        sched_yield();
}

static int32_t stream_id(aclrtStream s)
{
    int32_t id = -2;
    CHECK_OK(aclrtStreamGetId(s, &id));
    return id;
}

/* A fresh device buffer and host buffers, written by the host (so nothing reads unwritten bytes). */
static void fresh_buffers(void)
{
    CHECK_OK(aclrtSynchronizeDevice());
    if (dev != NULL)
        CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtMalloc(&dev, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(dev, BYTES, 0, BYTES));
    CHECK_OK(aclrtMemset(host_in, BYTES, 1, BYTES));
    CHECK_OK(aclrtMemset(host_out, BYTES, 2, BYTES));
}

/* The case's reports so far: exactly `n`, from index `from`. */
#define CHECK_REPORTS(from, n)                                                                                     \
    do {                                                                                                         \
        CHECK_OK(aclrtSynchronizeDevice());                                                                      \
        CHECK_EQ((n), nreports - (from));                                                                        \
        CHECK_EQ((long long)nreports, (long long)aclrtxSanitizerReportCount());                                  \
    } while (0)

TEST(a_missing_wait_is_reported_once_with_both_sides)
{
    fresh_buffers();
    int from = nreports;
    for (int i = 0; i < 3; i++) { /* the same call sites three times: one report */
        CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
        settle(s1);
        CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
        CHECK_OK(aclrtSynchronizeDevice());
    }
    CHECK_REPORTS(from, 1);
    const aclrtxSanitizerReport *r = &reports[from];
    CHECK_EQ(ACLRTX_SANITIZER_RACE, r->kind);
    CHECK(r->address == dev);
    CHECK_EQ(BYTES, r->size);
    CHECK_EQ(stream_id(s1), r->first.streamId);
    CHECK_EQ(1, r->first.write);
    CHECK_EQ(stream_id(s2), r->second.streamId);
    CHECK_EQ(0, r->second.write);
    CHECK_STR_CONTAINS(r->first.api, "aclrtMemcpyAsync");
    CHECK_STR_CONTAINS(r->second.task, "memcpy");
    CHECK(r->second.caller != NULL);
    CHECK_STR_CONTAINS(r->text, "data race");
    CHECK_STR_CONTAINS(r->text, "nothing orders them");
}

TEST(the_same_flow_with_an_event_wait_is_clean)
{
    fresh_buffers();
    int from = nreports;
    aclrtEvent e;
    CHECK_OK(aclrtCreateEvent(&e));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
        CHECK_OK(aclrtRecordEvent(e, s1));
        CHECK_OK(aclrtStreamWaitEvent(s2, e));
        CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
        /* and back: s1's next write waits for s2's read */
        CHECK_OK(aclrtRecordEvent(e, s2));
        CHECK_OK(aclrtStreamWaitEvent(s1, e));
    }
    CHECK_REPORTS(from, 0);
    CHECK_OK(aclrtDestroyEvent(e));
}

TEST(a_wait_on_the_wrong_event_is_reported)
{
    fresh_buffers();
    int from = nreports;
    aclrtEvent right, wrong;
    CHECK_OK(aclrtCreateEvent(&right));
    CHECK_OK(aclrtCreateEvent(&wrong));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    settle(s1);
    CHECK_OK(aclrtRecordEvent(right, s1));
    CHECK_OK(aclrtRecordEvent(wrong, s3));
    CHECK_OK(aclrtStreamWaitEvent(s2, wrong));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 1);
    CHECK_EQ(stream_id(s1), reports[from].first.streamId);
    CHECK_EQ(stream_id(s2), reports[from].second.streamId);
    CHECK_OK(aclrtDestroyEvent(right));
    CHECK_OK(aclrtDestroyEvent(wrong));
}

TEST(an_event_recorded_before_the_write_is_reported)
{
    fresh_buffers();
    int from = nreports;
    aclrtEvent e;
    CHECK_OK(aclrtCreateEvent(&e));
    CHECK_OK(aclrtRecordEvent(e, s1));
    CHECK_OK(aclrtMemsetAsync(dev, BYTES, 7, BYTES, s1));
    settle(s1);
    CHECK_OK(aclrtStreamWaitEvent(s2, e));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 1);
    CHECK_STR_CONTAINS(reports[from].first.api, "aclrtMemsetAsync");
    CHECK_OK(aclrtDestroyEvent(e));
}

/*
 * An event reused for a second round: its reset is still queued behind s1's
 * work when s2 waits, so the wait binds to the first record and the second
 * round's read is ordered after the first write only.
 */
TEST(a_wait_that_binds_to_the_record_before_a_queued_reset_is_reported)
{
    if (deterministic())
        return; /* the gate holds the only thread that runs the device's work */
    fresh_buffers();
    int from = nreports;
    aclrtEvent e;
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtRecordEvent(e, s1));
    CHECK_OK(aclrtStreamWaitEvent(s2, e));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 0); /* the first round is ordered */
    struct gate *g = launch_gate(s1);
    CHECK_OK(aclrtResetEvent(e, s1)); /* queued behind the gate */
    CHECK_OK(aclrtStreamWaitEvent(s2, e));
    CHECK_OK(aclrtMemsetAsync(dev, BYTES, 9, BYTES, s1));
    CHECK_OK(aclrtRecordEvent(e, s1));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    settle(s2);
    gate_open(g);
    CHECK_REPORTS(from, 1);
    CHECK_STR_CONTAINS(reports[from].first.api, "aclrtMemsetAsync");
    CHECK_EQ(stream_id(s2), reports[from].second.streamId);
    CHECK_EQ(64, reports[from].size);
    CHECK_OK(aclrtDestroyEvent(e));
}

TEST(a_host_read_without_a_synchronize_is_reported_and_with_one_is_not)
{
    fresh_buffers();
    int from = nreports;
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    settle(s1);
    CHECK_OK(aclrtMemcpy(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_REPORTS(from, 1);
    CHECK_EQ(-1, reports[from].second.streamId);
    CHECK_STR_CONTAINS(reports[from].second.api, "aclrtMemcpy");
    CHECK_STR_CONTAINS(reports[from].text, "by the host");

    /* Ordered by each kind of host wait: stream, event, device synchronize, a query that says complete. */
    aclrtEvent e;
    CHECK_OK(aclrtCreateEvent(&e));
    from = nreports;
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK_OK(aclrtMemcpy(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtRecordEvent(e, s1));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_OK(aclrtMemcpy(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtMemcpy(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtRecordEvent(e, s1));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    while (status != ACL_EVENT_RECORDED_STATUS_COMPLETE)
        CHECK_OK(aclrtQueryEventStatus(e, &status));
    CHECK_OK(aclrtMemcpy(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_REPORTS(from, 0);
    CHECK_OK(aclrtDestroyEvent(e));
}

static void no_op(void *arg)
{
    (void)arg;
}

TEST(a_task_that_uses_freed_memory_is_reported)
{
    fresh_buffers();
    int from = nreports;
    void *p;
    CHECK_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtFree(p));
    /* The host function only says it reads p (it does not): the sanitizer judges by the declaration. */
    CHECK_OK(aclrtxDeclareAccess(s1, p, 64, ACLRTX_ACCESS_READ));
    CHECK_OK(aclrtLaunchHostFunc(s1, no_op, NULL));
    CHECK_REPORTS(from, 1);
    CHECK_EQ(ACLRTX_SANITIZER_USE_AFTER_FREE, reports[from].kind);
    CHECK_STR_CONTAINS(reports[from].first.api, "aclrtFree");
    CHECK_EQ(stream_id(s1), reports[from].second.streamId);
    CHECK_STR_CONTAINS(reports[from].text, "use after free");
}

/*
 * Memory freed while a task's write to it was not synchronized, then
 * allocated again at the same address (a mapping of physical memory, put
 * back where it was) and written by the host: on a device the old write may
 * land on the new owner's data. The task has finished here (a host
 * function's flag says so, which orders nothing for the sanitizer).
 */
static void free_race(bool synchronize, int expected)
{
    fresh_buffers();
    int from = nreports;
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    size_t g = 0;
    CHECK_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    void *va;
    aclrtDrvMemHandle h1, h2;
    CHECK_OK(aclrtReserveMemAddress(&va, g, 0, NULL, 0));
    CHECK_OK(aclrtMallocPhysical(&h1, g, &prop, 0));
    CHECK_OK(aclrtMallocPhysical(&h2, g, &prop, 0));
    CHECK_OK(aclrtMapMem(va, g, 0, h1, 0));
    CHECK_OK(aclrtMemset(va, g, 0, g));
    CHECK_OK(aclrtMemsetAsync(va, g, 5, g, s1));
    if (synchronize)
        CHECK_OK(aclrtSynchronizeStream(s1));
    settle(s1);
    CHECK_OK(aclrtSynchronizeStream(s2)); /* orders nothing of s1 */
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtMapMem(va, g, 0, h2, 0));
    CHECK_OK(aclrtMemset(va, g, 6, g));
    CHECK_REPORTS(from, expected);
    if (expected != 0) { /* the unmap, with the memset not ordered before it ("free"), then the new write */
        CHECK_EQ(ACLRTX_SANITIZER_FREE_IN_USE, reports[from].kind);
        CHECK_STR_CONTAINS(reports[from].second.api, "aclrtUnmapMem");
        CHECK_EQ(ACLRTX_SANITIZER_FREE_RACE, reports[from + 1].kind);
        CHECK_STR_CONTAINS(reports[from + 1].first.api, "aclrtMemsetAsync");
        CHECK_EQ(-1, reports[from + 1].second.streamId);
    }
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtFreePhysical(h1));
    CHECK_OK(aclrtFreePhysical(h2));
    CHECK_OK(aclrtReleaseMemAddress(va));
}

TEST(memory_freed_under_unsynchronized_work_and_allocated_again_is_reported)
{
    free_race(false, 2);
}

/* With "free": a free that nothing orders after a task that used the block. */
TEST(a_free_while_a_task_may_still_use_the_block_is_reported)
{
    fresh_buffers();
    int from = nreports;
    void *p;
    CHECK_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(p, 256, 0, 256));
    CHECK_OK(aclrtMemcpyAsync(host_out, 256, p, 256, ACL_MEMCPY_DEVICE_TO_HOST, s1));
    settle(s1);
    CHECK_OK(aclrtFree(p));
    CHECK_REPORTS(from, 1);
    CHECK_EQ(ACLRTX_SANITIZER_FREE_IN_USE, reports[from].kind);
    CHECK_EQ(stream_id(s1), reports[from].first.streamId);
    CHECK_STR_CONTAINS(reports[from].second.api, "aclrtFree");
    CHECK_STR_CONTAINS(reports[from].text, "free while in use");
    /* After a synchronize: clean. */
    from = nreports;
    CHECK_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(p, 256, 0, 256));
    CHECK_OK(aclrtMemcpyAsync(host_out, 256, p, 256, ACL_MEMCPY_DEVICE_TO_HOST, s1));
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK_OK(aclrtFree(p));
    CHECK_REPORTS(from, 0);
}

TEST(memory_freed_after_a_synchronize_and_allocated_again_is_clean)
{
    free_race(true, 0);
}

TEST(a_read_of_memory_nothing_wrote_is_reported)
{
    fresh_buffers();
    int from = nreports;
    void *p;
    CHECK_OK(aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemsetAsync(p, 128, 0, 64, s1)); /* the first half only */
    CHECK_OK(aclrtMemcpyAsync(host_out, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST, s1));
    CHECK_REPORTS(from, 0);
    CHECK_OK(aclrtMemcpyAsync(host_out, 128, p, 128, ACL_MEMCPY_DEVICE_TO_HOST, s1));
    CHECK_REPORTS(from, 1);
    CHECK_EQ(ACLRTX_SANITIZER_UNINIT, reports[from].kind);
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK_OK(aclrtFree(p));
}

TEST(a_kernel_writes_through_the_pointers_among_its_arguments)
{
    fresh_buffers();
    aclrtBinHandle bin;
    aclrtFuncHandle fill;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    CHECK_OK(aclrtBinaryGetFunction(bin, "fill", &fill));
    int from = nreports;
    struct fill_args a = {(int32_t *)dev, 3};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 4, s1, NULL, &a, sizeof a, NULL, 0));
    settle(s1);
    CHECK_OK(aclrtMemcpyAsync(host_out, 16, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 1);
    CHECK_STR_CONTAINS(reports[from].first.task, "kernel");

    /* Declared: the kernel writes its 16 bytes only; a read of the bytes after them races with nothing. */
    from = nreports;
    CHECK_OK(aclrtxDeclareAccess(s1, dev, 16, ACLRTX_ACCESS_WRITE));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 4, s1, NULL, &a, sizeof a, NULL, 0));
    CHECK_OK(aclrtMemcpyAsync(host_out, 64, (char *)dev + 16, 64, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 0);
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

/* Notifies, value words, host functions and replays order streams too: all clean. */
TEST(other_ordering_mechanisms_are_followed)
{
    fresh_buffers();
    int from = nreports;
    aclrtNotify n;
    CHECK_OK(aclrtCreateNotify(&n, 0));
    /* record, then wait */
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtRecordNotify(n, s1));
    CHECK_OK(aclrtWaitAndResetNotify(n, s2, 0));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_OK(aclrtSynchronizeDevice());
    /* wait first, then the record */
    CHECK_OK(aclrtWaitAndResetNotify(n, s2, 0));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtRecordNotify(n, s1));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtDestroyNotify(n));

    /* a value word */
    uint64_t *word;
    CHECK_OK(aclrtMalloc((void **)&word, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(word, 8, 0, 8));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    CHECK_OK(aclrtValueWrite(word, 1, 0, s1));
    CHECK_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s2));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtFree(word));

    /* a host function that writes (declared), then the host after a synchronize */
    CHECK_OK(aclrtxDeclareAccess(s1, dev, BYTES, ACLRTX_ACCESS_WRITE));
    CHECK_OK(aclrtLaunchHostFunc(s1, no_op, NULL));
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK_OK(aclrtMemcpy(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));

    /* a replayed model: a task of the stream that replays it */
    aclmdlRI model;
    CHECK_OK(aclmdlRICaptureBegin(s3, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtMemcpyAsync(dev, BYTES, host_in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s3));
    CHECK_OK(aclmdlRICaptureEnd(s3, &model));
    aclrtEvent e;
    CHECK_OK(aclrtCreateEvent(&e));
    CHECK_OK(aclmdlRIExecuteAsync(model, s3));
    CHECK_OK(aclrtRecordEvent(e, s3));
    CHECK_OK(aclrtStreamWaitEvent(s2, e));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 0);
    /* ... and without the wait, the replay's copy races with the read */
    CHECK_OK(aclmdlRIExecuteAsync(model, s3));
    settle(s3);
    CHECK_OK(aclrtMemcpyAsync(host_out, 8, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 1);
    CHECK_STR_CONTAINS(reports[from].first.api, "aclmdlRIExecuteAsync");
    CHECK_OK(aclmdlRIDestroy(model));
    CHECK_OK(aclrtDestroyEvent(e));
}

/* An HCCL operation is a task of its stream that reads its send buffer and writes its receive buffer. */
TEST(a_collective_s_buffers_are_checked_like_a_copy_s)
{
    if (strcmp(aclrtxGetBackendName(), "host") != 0)
        return; /* HCCL moves data with the CPU: the host backend only */
    fresh_buffers();
    int from = nreports;
    HcclComm comm;
    int32_t dev0 = 0;
    CHECK_EQ(HCCL_SUCCESS, HcclCommInitAll(1, &dev0, &comm));
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(host_in, dev, BYTES / 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, s1));
    settle(s1);
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 1);
    CHECK_STR_CONTAINS(reports[from].first.api, "HcclAllReduce");
    CHECK_EQ(1, reports[from].first.write);
    aclrtEvent e;
    CHECK_OK(aclrtCreateEvent(&e));
    from = nreports;
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(host_in, dev, BYTES / 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, s1));
    CHECK_OK(aclrtRecordEvent(e, s1));
    CHECK_OK(aclrtStreamWaitEvent(s2, e));
    CHECK_OK(aclrtMemcpyAsync(host_out, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    CHECK_REPORTS(from, 0);
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(comm));
}

TEST(declarations_check_their_arguments)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxDeclareAccess(s1, dev, 16, 9));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxDeclareAccess(s1, NULL, 16, ACLRTX_ACCESS_READ));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxDeclareAccess(s1, dev, 0, ACLRTX_ACCESS_WRITE));
    CHECK_OK(aclrtxDeclareAccess(s1, NULL, 0, ACLRTX_ACCESS_NONE));
    CHECK_OK(aclrtLaunchHostFunc(s1, no_op, NULL)); /* takes the declaration: nothing */
    CHECK_OK(aclrtSynchronizeStream(s1));
}

/*
 * The child program (this one, run again with "--child EXITCODE RACE"): a
 * planted race (or none), then aclFinalize, which leaves with the status.
 * A new process, not a fork: a forked child of a running runtime has no
 * threads (and, on the cuda backend, no driver).
 */
static int child_main(const char *exitcode, int race)
{
    setenv("ACLRT_SANITIZE", race == 2 ? "none" : "streams", 1);
    setenv("ACLRT_SANITIZE_EXITCODE", exitcode, 1);
    void *d, *h;
    aclrtStream a, b;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&a) != 0 ||
        aclrtCreateStream(&b) != 0 || aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
        aclrtMallocHost(&h, 64) != 0 || aclrtMemset(d, 64, 0, 64) != 0 || aclrtMemset(h, 64, 0, 64) != 0)
        return 100;
    if (race == 2) { /* without the sanitizer: declarations are checked and kept nowhere (never "too many") */
        for (int i = 0; i < 100; i++)
            if (aclrtxDeclareAccess(a, d, 64, ACLRTX_ACCESS_READ) != ACL_SUCCESS)
                return 102;
        if (aclrtxDeclareAccess(a, d, 64, 9) != ACL_ERROR_INVALID_PARAM || aclrtxSanitizerReportCount() != 0)
            return 103;
    }
    aclrtMemsetAsync(d, 64, 1, 64, a);
    if (!race)
        aclrtSynchronizeStream(a);
    if (!deterministic()) { /* the memset has run (ordering nothing for the sanitizer): no race of this run */
        atomic_int done = 0;
        aclrtxDeclareAccess(a, NULL, 0, ACLRTX_ACCESS_NONE);
        aclrtLaunchHostFunc(a, set_flag, &done);
        while (!atomic_load(&done))
            sched_yield();
    }
    aclrtMemcpyAsync(h, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST, b);
    aclrtSynchronizeDevice();
    aclrtFree(d);
    aclrtFreeHost(h);
    aclrtDestroyStream(a);
    aclrtDestroyStream(b);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

static int child_status(const char *exitcode, int race)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char *argv[] = {(char *)"test_sanitize", (char *)"--child", (char *)exitcode,
                        (char *)(race == 2 ? "2" : race ? "1" : "0"), NULL};
        execv("/proc/self/exe", argv);
        _exit(101);
    }
    int status = 0;
    CHECK_EQ(pid, waitpid(pid, &status, 0));
    CHECK(WIFEXITED(status));
    return WEXITSTATUS(status);
}

TEST(a_program_with_reports_leaves_aclfinalize_with_the_configured_status)
{
    CHECK_EQ(66, child_status("66", true));
    CHECK_EQ(7, child_status("7", true));
    CHECK_EQ(0, child_status("7", false));
    CHECK_EQ(0, child_status("0", true)); /* 0: go on */
    CHECK_EQ(0, child_status("7", 2));    /* the sanitizer off: the race is not looked for */
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], atoi(argv[3]));
    setenv("ACLRT_SANITIZE", "streams,uninit,free", 1);
    setenv("ACLRT_SANITIZE_EXITCODE", "0", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtxSetSanitizerCallback(on_report, NULL) != ACL_SUCCESS || aclrtCreateStream(&s1) != ACL_SUCCESS ||
        aclrtCreateStream(&s2) != ACL_SUCCESS || aclrtCreateStream(&s3) != ACL_SUCCESS ||
        aclrtMallocHost(&host_in, BYTES) != ACL_SUCCESS || aclrtMallocHost(&host_out, BYTES) != ACL_SUCCESS) {
        fprintf(stderr, "sanitize: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(a_missing_wait_is_reported_once_with_both_sides);
    RUN(the_same_flow_with_an_event_wait_is_clean);
    RUN(a_wait_on_the_wrong_event_is_reported);
    RUN(an_event_recorded_before_the_write_is_reported);
    RUN(a_wait_that_binds_to_the_record_before_a_queued_reset_is_reported);
    RUN(a_host_read_without_a_synchronize_is_reported_and_with_one_is_not);
    RUN(a_task_that_uses_freed_memory_is_reported);
    RUN(memory_freed_under_unsynchronized_work_and_allocated_again_is_reported);
    RUN(memory_freed_after_a_synchronize_and_allocated_again_is_clean);
    RUN(a_free_while_a_task_may_still_use_the_block_is_reported);
    RUN(a_read_of_memory_nothing_wrote_is_reported);
    RUN(a_kernel_writes_through_the_pointers_among_its_arguments);
    RUN(other_ordering_mechanisms_are_followed);
    RUN(a_collective_s_buffers_are_checked_like_a_copy_s);
    RUN(declarations_check_their_arguments);
    gates_open_all();
    aclrtSynchronizeDevice();
    aclrtFree(dev);
    aclrtFreeHost(host_in);
    aclrtFreeHost(host_out);
    aclrtDestroyStream(s1);
    aclrtDestroyStream(s2);
    aclrtDestroyStream(s3);
    aclrtResetDevice(0);
    aclFinalize();
    RUN(a_program_with_reports_leaves_aclfinalize_with_the_configured_status);
    return check_report("sanitize");
}
