/*
 * tests/cuda_fake/fake_cuda.c - a test double of the CUDA driver: the
 * calls the cuda backend makes (backends/cuda_driver.h), with their
 * documented semantics, on CPU threads. Built by the Makefile as
 * build/<variant>/libcuda_fake.so; the tests point ACLRT_CUDA_LIBRARY at it.
 *
 * It is a test double, not a CUDA implementation:
 *   - GPUs: ACLRT_FAKE_CUDA_DEVICES of them (default 1), each with one
 *     primary context. Unified addressing and 64-bit stream memory
 *     operations are supported. Pinned host memory is host memory, mapped
 *     (its device pointer is its host pointer).
 *   - It fails where a GPU fails (an x86 H100 without HMM, "Addressing
 *     Mode: None"): each rule is strict by default, with a knob (=1 in the
 *     environment, read at the first cuInit) that relaxes it, and a program
 *     of tests/cuda_fake/rule_*.c that plants the misuse (make
 *     test-cuda-rules):
 *     1. Device memory is not the host's (rule_host_access.c). cuMemAlloc's
 *        addresses, and a module global's (cuModuleGetGlobal), lie in a
 *        reservation of address space with no access (PROT_NONE): a host
 *        load or store there is a SIGSEGV, as on the GPU. The bytes are a
 *        host mapping of their own; the double's operations translate:
 *        copies (an address range must lie in one live allocation, else
 *        CUDA_ERROR_INVALID_VALUE at the call), sets, value writes and
 *        waits, and a stand-in kernel's parameters (each 8-byte-aligned
 *        64-bit value of the packed buffer that is an address in a live
 *        allocation becomes its bytes' address: a heuristic, see
 *        xlate_args). The bytes of cuMemAlloc's memory are a memory file
 *        per reservation (so another process can map them, rule 7), whole
 *        pages per allocation, given back (punched out) when it is freed.
 *        Device attributes 88 (PAGEABLE_MEMORY_ACCESS), 100
 *        (..._USES_HOST_PAGE_TABLES) and 101
 *        (DIRECT_MANAGED_MEM_ACCESS_FROM_HOST) are 0.
 *        ACLRT_FAKE_CUDA_HOST_ACCESS=1: device memory is host memory (the
 *        device pointer is the host pointer: the reservation is its memory
 *        file's mapping) and the attributes are 1.
 *     2. Host functions run one at a time in the process
 *        (rule_host_fns.c): the driver may run every stream's host
 *        functions on one thread, so a process-wide lock is held while one
 *        runs (a host function that waits for another stream's deadlocks,
 *        as on a GPU). Other work of the streams (copies, kernels, value
 *        waits) does not take it. ACLRT_FAKE_CUDA_PARALLEL_HOST_FUNCS=1:
 *        each stream's host functions run on its own worker, beside others.
 *     3. No driver call from a host function (rule_no_calls.c): every entry
 *        point returns CUDA_ERROR_NOT_PERMITTED there, first thing. No knob.
 *     4. 64-bit stream memory operations only on the GPU's memory
 *        (rule_memops.c): a device allocation, or pinned host memory at its
 *        device address; any other address (malloc'd memory) is
 *        CUDA_ERROR_INVALID_VALUE at the call. ACLRT_FAKE_CUDA_HOST_ACCESS=1
 *        (the GPU addresses pageable memory) accepts any.
 *     5. No driver in a child forked after cuInit (rule_fork.c): there
 *        cuInit and every other call return CUDA_ERROR_NOT_INITIALIZED
 *        (cuInit did on an H100). A
 *        child forked before cuInit initialises its own.
 *        ACLRT_FAKE_CUDA_FORK_OK=1: the child's driver works (the inherited
 *        streams idle and empty, their queued work gone with the workers).
 *     6. A kernel fault loses the context (rule_kernel_fault.c): a stand-in
 *        kernel's block that returns non-zero makes every later call in the
 *        context fail with CUDA_ERROR_LAUNCH_FAILED (sticky, as CUDA
 *        documents it), until its primary context is released for the last
 *        time. ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS=1: not sticky (the
 *        stream stops at the kernel, as for an injected failure below).
 *     7. Interprocess memory as CUDA documents it (rule_ipc.c; the IPC
 *        section has the details): cuIpcGetMemHandle names the base of a
 *        live cuMemAlloc allocation only; cuIpcOpenMemHandle maps the same
 *        bytes into another process, at a device address of that process's
 *        own, and refuses the exporting process itself
 *        (CUDA_ERROR_INVALID_CONTEXT), a handle that is not one or whose
 *        allocation or process is gone (CUDA_ERROR_INVALID_HANDLE); an open
 *        again in the same context is counted, a close too many fails; an
 *        import the exporter has freed fails every later operation. No knob.
 *     8. Another device's memory only with peer access (rule_peer.c; the
 *        section "Peer access" at the end): cuDeviceCanAccessPeer says 1
 *        for two distinct devices (ACLRT_FAKE_CUDA_NO_PEER=1: 0, and
 *        cuCtxEnablePeerAccess is CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
 *        cuCtxEnablePeerAccess / DisablePeerAccess give cuda.h's codes
 *        (704 enabled twice, 705 not enabled, INVALID_CONTEXT for the
 *        current context itself). Memory knows its context: a copy between
 *        two contexts' device memory, or a set, issued in a context without
 *        access to the other's is CUDA_ERROR_INVALID_VALUE at the call
 *        (cuMemcpyPeer / cuMemcpyPeerAsync always copy, a copy with a host
 *        end always goes); a kernel whose parameters name such memory
 *        faults when it runs (the context is lost, CUDA_ERROR_ILLEGAL_ADDRESS).
 *        A module is its context's: its functions launch only on streams of
 *        that context (else CUDA_ERROR_INVALID_HANDLE) and are looked up
 *        with it current (else CUDA_ERROR_INVALID_CONTEXT); a file loaded in
 *        a second context is a private copy, with functions of its own.
 *        ACLRT_FAKE_CUDA_PEER_OPEN=1: every context reaches every device's
 *        memory.
 *     9. The current context is per thread (rule_context.c): a thread that
 *        made none current gets CUDA_ERROR_INVALID_CONTEXT from every call
 *        that works in a context. No knob.
 *    10. A launch takes exactly the kernel's parameters, in a block of at
 *        most its threads (rule_kernel_params.c): where a stand-in kernel
 *        declares them (below), cuLaunchKernel returns
 *        CUDA_ERROR_INVALID_VALUE for a CU_LAUNCH_PARAM_BUFFER_SIZE other
 *        than the end of its last parameter (tail padding and all), and
 *        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (cuda.h's code for too many
 *        threads for the kernel) for a block over its most threads, at the
 *        call. ACLRT_FAKE_CUDA_ANY_LAUNCH=1: any size and block (up to
 *        1024 threads) run.
 *    11. Stream capture as cuda.h documents it (rule_capture.c; see
 *        Graphs below). A potentially unsafe call (cuMemAlloc, cuMemFree,
 *        cuMemHostAlloc, cuMemFreeHost, cuMemHostRegister / Unregister,
 *        the synchronous cuMemcpy and cuMemsetD8, cuModuleLoad / LoadData
 *        / Unload, cuCtxSynchronize) is refused with
 *        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, the capture sequences
 *        that forbid it invalidated, while the calling thread has a
 *        sequence of its own begun in GLOBAL or THREAD_LOCAL mode, or
 *        (the thread in GLOBAL interaction mode, the default;
 *        cuThreadExchangeStreamCaptureMode changes it) another thread has
 *        one begun in GLOBAL mode; RELAXED sequences forbid nothing. Any
 *        mode: cuStreamSynchronize / cuStreamQuery of a stream in a
 *        sequence, and cuCtxSynchronize of its context, are refused (the
 *        same code, the sequence invalidated); cuEventQuery /
 *        cuEventSynchronize of an event last recorded in a sequence return
 *        CUDA_ERROR_CAPTURED_EVENT; work on the legacy NULL stream while a
 *        blocking stream of the context captures returns
 *        CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (and invalidates it; the legacy
 *        stream is otherwise not modelled: CUDA_ERROR_INVALID_HANDLE); a
 *        copy of pageable host memory cannot be captured (..._UNSUPPORTED,
 *        invalidated). No knob: these are the driver's documented rules.
 *    12. A cuMemcpyAsync with pageable host memory (neither allocated nor
 *        registered pinned) on a side is synchronous with respect to the
 *        host (rule_pageable.c): the call waits for the stream's earlier
 *        work and the copy, then returns, as the driver may (it stages
 *        such a copy through pinned memory of its own).
 *        ACLRT_FAKE_CUDA_PAGEABLE_ASYNC=1: queued and returned from at
 *        once, as a copy of pinned memory. fakecuda_pageable_held()
 *        counts the calls made synchronous.
 *   - Streams are asynchronous and in order: each has a queue of operations
 *     and a worker thread (started on demand, gone after an idle while)
 *     that runs them: copies, sets, 64-bit value writes and waits (GEQ, EQ,
 *     AND, NOR, polled), host functions, event records and event waits.
 *     Host functions run on the worker: from there every call of this
 *     library fails with CUDA_ERROR_NOT_PERMITTED, as CUDA documents.
 *   - Events carry timing: a record's time is CLOCK_MONOTONIC when the
 *     stream reaches it; queries return CUDA_ERROR_NOT_READY before.
 *   - Calls other than the device queries need a current context
 *     (CUDA_ERROR_INVALID_CONTEXT otherwise), as the driver's do (rule 9).
 *   - cuInit fails with ACLRT_FAKE_CUDA_INIT_RESULT when that is set (e.g.
 *     100, CUDA_ERROR_NO_DEVICE); ACLRT_FAKE_CUDA_DEVICES=0 has no GPU.
 *   - Failures of asynchronous work, injected by the tests:
 *     fakecuda_fail_next(sticky) makes the next copy or set enqueued (any
 *     stream) fail when it runs.
 *       sticky:      CUDA_ERROR_ILLEGAL_ADDRESS, which cuda.h says leaves
 *                    the context unusable: its queued and later work never
 *                    runs, and every later call in it, related to the
 *                    stream or not, returns the error;
 *       not sticky:  CUDA_ERROR_UNKNOWN (not one of cuda.h's sticky
 *                    codes): the stream stops at the failed operation; the next
 *                    cuStreamQuery or cuStreamSynchronize of the stream
 *                    returns the error (the stream stays stopped), the one
 *                    after that lets it go on past the failed operation.
 *   - Modules and kernels: the stand-in for a cubin is an ELF shared object
 *     of the host (cuModuleLoad names one, cuModuleLoadData holds one in
 *     memory, read to the end of its headers and loaded from an anonymous
 *     file); a kernel is a function it exports with the host-kernel
 *     signature, aclError name(uint32_t blockIdx, uint32_t numBlocks, void
 *     *args); a global is a variable it exports. A stand-in declares what a GPU kernel's image says of it
 *     with exported constants next to it (tests/kernels/test_kernels.c's
 *     PARAMS and MAX_THREADS): `const uint32_t fakecuda_params_<name>[]`
 *     = {n, then each parameter's offset and size}, and `const uint32_t
 *     fakecuda_max_threads_<name>` (else 1024). A CUfunction is the
 *     module's record of the kernel (one per name), read at
 *     cuModuleGetFunction; cuFuncGetParamInfo gives the declared
 *     parameters (CUDA_ERROR_INVALID_VALUE past the last one;
 *     CUDA_ERROR_NOT_SUPPORTED, not known, where none are declared: then
 *     any buffer is taken), cuFuncGetAttribute the most threads per block
 *     (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK only). cuLaunchKernel takes
 *     the packed buffer only (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE,
 *     copied at the call; rule 10) and the stream's worker calls the kernel
 *     once per block of the grid, in order; a block that returns non-zero
 *     fails the launch with CUDA_ERROR_LAUNCH_FAILED (rule 6).
 *     fakecuda_launch_bytes() is the last launch's buffer size. Images
 *     of another kind (real cubins, fatbins, PTX) are
 *     CUDA_ERROR_INVALID_IMAGE.
 *   - Graphs, by stream capture: between cuStreamBeginCapture and
 *     cuStreamEndCapture the operations issued to the stream (copies, sets,
 *     kernels with their parameters copied at the call, value writes and
 *     waits, host functions) are recorded in a graph instead of running.
 *     An event recorded in the sequence and waited for by another stream
 *     forks that stream into it (its operations go to the same graph, in
 *     call order); a stream of the sequence waiting for an event recorded
 *     on the forked stream after its last operation joins it back. A
 *     broken rule (7 above) invalidates the sequence: later work on its
 *     streams returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, and so does
 *     its end, with no graph. The end fails, the sequence invalidated, on
 *     a stream other than the one it began on
 *     (CUDA_ERROR_STREAM_CAPTURE_UNMATCHED), and with no graph when a
 *     forked stream was not joined back (..._UNJOINED); a GLOBAL or
 *     THREAD_LOCAL sequence ended from another thread is refused
 *     (..._WRONG_THREAD) and goes on. A stream of a sequence waiting for
 *     an event recorded outside it (..._ISOLATION) or in another sequence
 *     (..._MERGE) invalidates its own. cuStreamIsCapturing says NONE,
 *     ACTIVE or INVALIDATED. A graph launch is not captured (invalidated).
 *     cuGraphInstantiateWithFlags copies the graph's operations (the graph
 *     may go at once); cuGraphLaunch enqueues them on the launching stream
 *     as one operation, run in order; launches of one executable graph run
 *     one at a time, in the order they were made, whichever streams they
 *     are on (as the driver orders them); an executable graph destroyed
 *     while launches are pending is freed after them. Misuse fails as the
 *     driver does: ending a capture on a stream not capturing
 *     (CUDA_ERROR_ILLEGAL_STATE), beginning one twice, launching or
 *     destroying a destroyed graph or executable graph
 *     (CUDA_ERROR_INVALID_VALUE). For the tests: fakecuda_graph_fail(n)
 *     makes the next n instantiations fail (CUDA_ERROR_OUT_OF_MEMORY; n < 0:
 *     all of them, as ACLRT_FAKE_CUDA_GRAPH_FAIL=1 does from the start),
 *     fakecuda_graph_launches() counts launches, fakecuda_graph_execs() the
 *     executable graphs alive. fakecuda_waits_blocked(): the value waits
 *     streams are held at now.
 *   - What it does not model: real kernels (a stand-in kernel is host code:
 *     it may dereference host memory a GPU could not, and pointers it reads
 *     from memory are not translated), pitched and array copies, graph nodes
 *     made one by one, graph updates, interprocess events, managed memory,
 *     cuMemCreate and its shareable handles.
 *   - Also: cuMemHostRegister / Unregister (the caller's memory becomes
 *     pinned host memory for the rules above), cuPointerGetAttribute (the
 *     memory type only), cuCtxGetCurrent, cuCtxGetDevice; a context's last
 *     release drops the work still queued in it (a wait nothing satisfies is
 *     let go).
 *   - For the NCCL test double (tests/nccl_fake/fake_nccl.c), which finds
 *     them in this library: fakecuda_stream_task(s, fn, user) queues on
 *     stream s an operation that runs fn(user) on its worker as a kernel
 *     runs (no host-function lock; it may wait for other streams), not
 *     captured (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, the sequence left
 *     as it was); fakecuda_device_bytes(p, n, &bytes) gives the host bytes
 *     of [p, p+n) in one live allocation (device memory, or pinned host
 *     memory), else CUDA_ERROR_INVALID_VALUE.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CUDA_SUCCESS 0u
#define CUDA_ERROR_INVALID_VALUE 1u
#define CUDA_ERROR_OUT_OF_MEMORY 2u
#define CUDA_ERROR_NOT_INITIALIZED 3u
#define CUDA_ERROR_INVALID_DEVICE 101u
#define CUDA_ERROR_INVALID_IMAGE 200u
#define CUDA_ERROR_FILE_NOT_FOUND 301u
#define CUDA_ERROR_NOT_FOUND 500u
#define CUDA_ERROR_LAUNCH_FAILED 719u
#define CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES 701u
#define CUDA_ERROR_NOT_SUPPORTED 801u
#define CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED 712u
#define CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED 713u
#define CUDA_ERROR_INVALID_CONTEXT 201u
#define CUDA_ERROR_INVALID_HANDLE 400u
#define CUDA_ERROR_NOT_READY 600u
#define CUDA_ERROR_ILLEGAL_ADDRESS 700u
#define CUDA_ERROR_UNKNOWN 999u
#define CUDA_ERROR_NOT_PERMITTED 800u
#define CUDA_ERROR_ILLEGAL_STATE 401u
#define CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900u
#define CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901u
#define CUDA_ERROR_PEER_ACCESS_UNSUPPORTED 217u
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704u
#define CUDA_ERROR_PEER_ACCESS_NOT_ENABLED 705u
#define CUDA_ERROR_STREAM_CAPTURE_MERGE 902u
#define CUDA_ERROR_STREAM_CAPTURE_UNMATCHED 903u
#define CUDA_ERROR_STREAM_CAPTURE_UNJOINED 904u
#define CUDA_ERROR_STREAM_CAPTURE_ISOLATION 905u
#define CUDA_ERROR_STREAM_CAPTURE_IMPLICIT 906u
#define CUDA_ERROR_CAPTURED_EVENT 907u
#define CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD 908u

#define FAKE_MAX_DEVICES 16
#define FAKE_IDLE_NS 20000000ull /* a worker with nothing to do leaves after this */
#define FAKE_IPC_SLOTS 4096      /* allocations exported at once (the IPC section) */

typedef unsigned int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void (*CUhostFn)(void *);

#define EXPORT __attribute__((visibility("default")))

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------
 * Objects
 * ------------------------------------------------------------------------ */

struct CUctx_st;
struct CUstream_st;
struct CUevent_st;

struct CUmod_st;

struct alloc {
    struct alloc *next;
    void *p;              /* the bytes (the backing of device memory) */
    uintptr_t dev;        /* the address the caller is given: a device address, or p */
    size_t size;          /* rounded up to 256 bytes */
    struct CUctx_st *ctx; /* NULL: pinned host memory */
    struct CUmod_st *mod; /* a module's global (its bytes are the module's, not freed here); NULL otherwise */
    bool registered;      /* host memory of the caller's, cuMemHostRegister'd (not freed here) */
    int res;              /* device memory (cuMemAlloc): its reservation, whose memory file holds its bytes; -1 */
    /* interprocess memory (the IPC section): an export's slot in this process's table and its id there; an
     * import's slot in the exporter's table (mapped here), the id it must still hold, its opens */
    _Atomic uint64_t *ipc_slot;
    uint64_t ipc_id;
    int32_t ipc_pid;      /* an import: the exporting process (0: not an import) */
    int ipc_refs;
    void *ipc_table;      /* an import: its mapping of the exporter's table */
};

struct CUctx_st {
    int device;
    int refs;                   /* primary context retains (g_lock) */
    _Atomic CUresult lost;      /* a sticky error, or 0 */
    _Atomic bool dying;         /* its last release: queued work is dropped, waits let go */
    struct CUstream_st *streams; /* every stream made in it (g_lock) */
    _Atomic bool peer[FAKE_MAX_DEVICES]; /* cuCtxEnablePeerAccess'd: device d's memory is reachable from here */
};

enum op_kind { OP_COPY, OP_SET, OP_SET32, OP_WRITE64, OP_WAIT64, OP_HOST_FN, OP_RECORD, OP_WAIT_EVENT, OP_KERNEL, OP_GRAPH,
               OP_TASK };

struct CUgraph_st;
struct CUgraphExec_st;

/* A kernel of a stand-in module: the host-kernel signature (aclError is int). */
typedef int (*host_kernel_fn)(uint32_t block, uint32_t blocks, void *args);

struct op {
    struct op *next;
    enum op_kind kind;
    int fail; /* injected: 0, 1 not sticky, 2 sticky */
    void *dst;
    const void *src;
    size_t n;
    uint64_t value;
    unsigned flags;
    CUhostFn fn;
    void *user;
    struct CUevent_st *event;
    uint64_t seq;
    host_kernel_fn kernel; /* OP_KERNEL: blocks in value, the args copy (owned) in src, n bytes */
    struct CUgraphExec_st *exec; /* OP_GRAPH: the executable graph (a reference), its launch's ticket in seq */
};

/* An operation that is dropped without running: what it owns goes (a graph launch's reference: not here). */
static void op_free(struct op *o)
{
    if (o->kind == OP_KERNEL)
        free((void *)o->src);
    free(o);
}

/* A graph: the operations a capture recorded, in order (a kernel's owns its parameters' copy). */
struct CUgraph_st {
    struct CUctx_st *ctx;
    struct op *head, *tail;
    size_t n;
    struct CUgraph_st *next; /* the live graphs (g_lock) */
};

/* An executable graph: a copy of a graph's operations. */
struct CUgraphExec_st {
    struct CUctx_st *ctx;
    struct op *ops; /* n of them */
    size_t n;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;             /* the handle, and each pending launch */
    uint64_t tickets;     /* launches made */
    uint64_t served;      /* launches run (they run in ticket order) */
    struct CUgraphExec_st *next; /* the live handles (g_lock) */
};

struct CUstream_st {
    struct CUctx_st *ctx;
    struct CUstream_st *next; /* the context's list (g_lock) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct op *head, *tail;
    uint64_t enqueued, done;
    bool running;   /* a worker serves the queue */
    bool destroyed;
    CUresult error; /* a failure that is not sticky: the stream stops until it is read twice */
    int error_reads;
    unsigned flags;                 /* CU_STREAM_NON_BLOCKING or 0 (a blocking stream) */
    struct fake_capture *capture;   /* the capture sequence it is part of, or NULL (g_cap_lock) */
    uint64_t cap_ops;               /* operations it added to that capture (g_cap_lock) */
    uint64_t cap_joined;            /* ... of which another stream of the capture waited for (g_cap_lock) */
    struct CUstream_st *cap_next;   /* the capture's other streams (g_cap_lock) */
};

struct CUevent_st {
    struct CUctx_st *ctx;
    unsigned flags;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;             /* the handle, pending operations, waiting threads */
    bool destroyed;
    uint64_t recorded;    /* records made */
    uint64_t completed;   /* records the stream reached */
    uint64_t time_ns;     /* when the last completed record was reached */
    /* Its last record was made in a capture sequence (g_cap_lock): that capture's id (0: not), stream, point. */
    _Atomic uint64_t cap_id;
    struct CUstream_st *cap_stream;
    uint64_t cap_pos;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_init;
static struct CUctx_st g_ctx[FAKE_MAX_DEVICES];
static struct alloc *g_allocs;
static _Atomic int g_fail_next;
static struct CUgraph_st *g_graphs;     /* live graphs (g_lock) */
static struct CUgraphExec_st *g_execs;  /* live executable graphs (g_lock) */
static _Atomic int g_graph_fail = -2;   /* instantiations to fail (-1: all; -2: not read from the environment yet) */
static _Atomic uint64_t g_graph_launches;
static _Atomic int g_graph_execs;
/* Initial-exec: static TLS, not the dynamic TLS of a dlopened library, which LeakSanitizer cannot always scan. */
static _Thread_local struct CUctx_st *t_ctx __attribute__((tls_model("initial-exec")));
static _Thread_local bool t_in_host_fn __attribute__((tls_model("initial-exec")));

/*
 * The rules the double enforces, each with a knob that relaxes it (read at
 * cuInit, before any allocation; see the top comment).
 */
static bool g_host_access;          /* ACLRT_FAKE_CUDA_HOST_ACCESS=1: device memory is host memory */
static bool g_parallel_host_fns;    /* ACLRT_FAKE_CUDA_PARALLEL_HOST_FUNCS=1: no process-wide host-function lock */
static bool g_fork_ok;              /* ACLRT_FAKE_CUDA_FORK_OK=1: a forked child's driver works */
static bool g_kernel_fault_recovers; /* ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS=1: a failed kernel is not sticky */
static bool g_no_peer;              /* ACLRT_FAKE_CUDA_NO_PEER=1: no device can access another's memory */
static bool g_peer_open;            /* ACLRT_FAKE_CUDA_PEER_OPEN=1: every context reaches every device's memory */
static bool g_any_launch;           /* ACLRT_FAKE_CUDA_ANY_LAUNCH=1: any parameter buffer size and block (rule 10) */
static bool g_pageable_async;       /* ACLRT_FAKE_CUDA_PAGEABLE_ASYNC=1: a pageable cuMemcpyAsync returns at once */
static _Atomic bool g_forked;       /* this process is a child forked after cuInit: every call fails */
/* Held while any host function runs, whichever stream's (strict: one host-function thread per process). */
static pthread_mutex_t g_host_fn_lock = PTHREAD_MUTEX_INITIALIZER;

/* Peer access (its section, at the end): what copies, sets and kernels of a context may reach. */
static bool peer_reaches(const struct CUctx_st *ctx, const struct alloc *x);
static void peer_forget(int device);
static bool peer_args_unreachable(const void *buf, size_t size, struct CUctx_st *ctx);
static CUresult peer_copy_check(struct CUctx_st *ctx, CUdeviceptr dst, CUdeviceptr src);

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

static int device_count(void)
{
    int n = env_int("ACLRT_FAKE_CUDA_DEVICES", 1);
    return n < 0 ? 0 : (n > FAKE_MAX_DEVICES ? FAKE_MAX_DEVICES : n);
}

/* Tests: how many 64-bit value waits a stream's worker is held at now (a wait was issued and does not hold). */
static _Atomic int g_waits_blocked;
EXPORT int fakecuda_waits_blocked(void)
{
    return atomic_load(&g_waits_blocked);
}

/* Tests: the next copy or set enqueued fails when it runs (sticky: the context is lost). */
EXPORT void fakecuda_fail_next(int sticky)
{
    atomic_store(&g_fail_next, sticky ? 2 : 1);
}

/*
 * What every entry point checks first: no driver call from a host function
 * (CUDA_ERROR_NOT_PERMITTED), none in a child forked after cuInit
 * (CUDA_ERROR_NOT_INITIALIZED).
 */
static CUresult entry_check(void)
{
    if (t_in_host_fn)
        return CUDA_ERROR_NOT_PERMITTED;
    if (atomic_load(&g_forked))
        return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

/* A call that still works in a lost context (it only lets go of something). */
static bool lost_ok(CUresult r)
{
    return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED;
}

#define ENTRY()                                                                                                        \
    do {                                                                                                               \
        CUresult entry_r_ = entry_check();                                                                             \
        if (entry_r_ != CUDA_SUCCESS)                                                                                  \
            return entry_r_;                                                                                           \
    } while (0)

/* The calls that work in a context: the entry checks, a context current and not lost. */
static CUresult enter(void)
{
    CUresult r = entry_check();
    if (r != CUDA_SUCCESS)
        return r;
    if (t_ctx == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    return atomic_load(&t_ctx->lost);
}

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

static void event_put(struct CUevent_st *e)
{
    pthread_mutex_lock(&e->lock);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&e->lock);
    if (last) {
        pthread_mutex_destroy(&e->lock);
        pthread_cond_destroy(&e->cond);
        free(e);
    }
}

static void event_reached(struct CUevent_st *e, uint64_t seq)
{
    pthread_mutex_lock(&e->lock);
    if (seq > e->completed) {
        e->completed = seq;
        e->time_ns = now_ns();
    }
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

/* Wait until record `seq` of e was reached, or the context is lost. */
static void event_wait(struct CUevent_st *e, uint64_t seq)
{
    pthread_mutex_lock(&e->lock);
    while (e->completed < seq && atomic_load(&e->ctx->lost) == CUDA_SUCCESS) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&e->cond, &e->lock, &ts); /* a lost context is looked at every ms */
    }
    pthread_mutex_unlock(&e->lock);
}

/* ------------------------------------------------------------------------
 * Streams: the queue and its worker
 * ------------------------------------------------------------------------ */

static bool wait_value_holds(const struct op *o)
{
    uint64_t v = __atomic_load_n((const uint64_t *)o->dst, __ATOMIC_ACQUIRE);
    switch (o->flags & 3u) {
    case 0: return (int64_t)(v - o->value) >= 0; /* GEQ */
    case 1: return v == o->value;                /* EQ */
    case 2: return (v & o->value) != 0;          /* AND */
    default: return ~(v | o->value) != 0;        /* NOR */
    }
}

/*
 * A copy's bytes. An aligned 64-bit word goes as one atomic load and store:
 * a GPU's copy of a word that a stream memory operation polls is one
 * transaction, and so it is here (a value wait polls with atomic loads).
 */
static void copy_bytes(void *dst, const void *src, size_t n)
{
    if (n == 8 && (uintptr_t)dst % 8 == 0 && (uintptr_t)src % 8 == 0)
        __atomic_store_n((uint64_t *)dst, __atomic_load_n((const uint64_t *)src, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
    else
        memmove(dst, src, n);
}

static void graph_run(struct CUstream_st *s, struct CUgraphExec_st *x, uint64_t ticket);

/* Run one operation (the stream's lock not held). */
static void op_run(struct CUstream_st *s, struct op *o)
{
    if (o->fail != 0) {
        if (o->fail == 2) {
            CUresult none = CUDA_SUCCESS;
            atomic_compare_exchange_strong(&s->ctx->lost, &none, CUDA_ERROR_ILLEGAL_ADDRESS);
        } else {
            pthread_mutex_lock(&s->lock);
            s->error = CUDA_ERROR_UNKNOWN; /* a code cuda.h does not call sticky */
            s->error_reads = 0;
            pthread_mutex_unlock(&s->lock);
        }
        return;
    }
    switch (o->kind) {
    case OP_COPY: copy_bytes(o->dst, o->src, o->n); break;
    case OP_SET: memset(o->dst, (int)o->value, o->n); break;
    case OP_SET32:
        for (size_t i = 0; i < o->n; i++)
            ((uint32_t *)o->dst)[i] = (uint32_t)o->value;
        break;
    case OP_WRITE64: __atomic_store_n((uint64_t *)o->dst, o->value, __ATOMIC_RELEASE); break;
    case OP_WAIT64: {
        bool blocked = false; /* counted in g_waits_blocked while it does not hold */
        for (unsigned i = 0; !wait_value_holds(o) && atomic_load(&s->ctx->lost) == CUDA_SUCCESS &&
                             !atomic_load(&s->ctx->dying);
             i++) {
            if (!blocked)
                atomic_fetch_add(&g_waits_blocked, 1);
            blocked = true;
            if (i < 64)
                sched_yield();
            else
                nap(20000);
        }
        if (blocked)
            atomic_fetch_sub(&g_waits_blocked, 1);
        break;
    }
    case OP_HOST_FN:
        if (!g_parallel_host_fns)
            pthread_mutex_lock(&g_host_fn_lock); /* one host function at a time in the process */
        t_in_host_fn = true;
        o->fn(o->user);
        t_in_host_fn = false;
        if (!g_parallel_host_fns)
            pthread_mutex_unlock(&g_host_fn_lock);
        break;
    case OP_KERNEL:
        for (uint64_t b = 0; b < o->value; b++)
            if (o->kernel((uint32_t)b, (uint32_t)o->value, (void *)o->src) != 0) {
                if (!g_kernel_fault_recovers) { /* a fault of a kernel loses the context */
                    CUresult none = CUDA_SUCCESS;
                    atomic_compare_exchange_strong(&s->ctx->lost, &none, CUDA_ERROR_LAUNCH_FAILED);
                    break;
                }
                pthread_mutex_lock(&s->lock);
                s->error = CUDA_ERROR_LAUNCH_FAILED;
                s->error_reads = 0;
                pthread_mutex_unlock(&s->lock);
                break;
            }
        break;
    case OP_RECORD: event_reached(o->event, o->seq); break;
    case OP_WAIT_EVENT: event_wait(o->event, o->seq); break;
    case OP_GRAPH: graph_run(s, o->exec, o->seq); break;
    case OP_TASK: o->fn(o->user); break; /* like a kernel: no host-function lock, may wait for other streams */
    }
}

static void graph_launch_done(struct CUgraphExec_st *x, uint64_t ticket);

static void *worker_main(void *arg)
{
    struct CUstream_st *s = (struct CUstream_st *)arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        uint64_t idle_since = now_ns();
        while (s->head == NULL || s->error != CUDA_SUCCESS) {
            if (s->head == NULL && (s->destroyed || now_ns() - idle_since >= FAKE_IDLE_NS)) {
                s->running = false;
                pthread_cond_broadcast(&s->cond);
                pthread_mutex_unlock(&s->lock);
                return NULL;
            }
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 5000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&s->cond, &s->lock, &ts);
        }
        struct op *o = s->head;
        s->head = o->next;
        if (s->head == NULL)
            s->tail = NULL;
        pthread_mutex_unlock(&s->lock);
        if (atomic_load(&s->ctx->lost) == CUDA_SUCCESS && !atomic_load(&s->ctx->dying))
            op_run(s, o); /* a lost or destroyed context runs nothing more */
        if (o->event != NULL)
            event_put(o->event);
        if (o->kind == OP_GRAPH)
            graph_launch_done(o->exec, o->seq);
        op_free(o);
        pthread_mutex_lock(&s->lock);
        s->done++;
        pthread_cond_broadcast(&s->cond);
    }
}

static CUresult capture_legacy(void);
static bool capture_take(struct CUstream_st *s, struct op *n, CUresult *r);
static CUresult capture_conflict(struct CUstream_st *s);
static CUresult capture_unsafe(void);

static CUresult enqueue_on(struct CUstream_st *s, const struct op *o);

/* Append an operation (a copy of *o) to the stream's queue; a worker is started if none serves it. */
static CUresult enqueue(struct CUstream_st *s, const struct op *o)
{
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL)
        return capture_legacy();
    return enqueue_on(s, o);
}

/* enqueue() for a stream given (its context need not be the caller's current one). */
static CUresult enqueue_on(struct CUstream_st *s, const struct op *o)
{
    CUresult r;
    if ((r = atomic_load(&s->ctx->lost)) != CUDA_SUCCESS)
        return r;
    struct op *n = (struct op *)malloc(sizeof *n);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *n = *o;
    n->next = NULL;
    if (capture_take(s, n, &r)) /* recorded into the capture's graph, not run (or refused) */
        return r;
    pthread_mutex_lock(&s->lock);
    if ((n->kind == OP_COPY || n->kind == OP_SET || n->kind == OP_SET32) && atomic_load(&g_fail_next) != 0)
        n->fail = atomic_exchange(&g_fail_next, 0);
    if (s->tail != NULL)
        s->tail->next = n;
    else
        s->head = n;
    s->tail = n;
    s->enqueued++;
    if (!s->running) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 512 * 1024);
        pthread_t t;
        if (pthread_create(&t, &attr, worker_main, s) == 0)
            s->running = true;
        pthread_attr_destroy(&attr);
        if (!s->running) {
            /* Take the operation back: the stream cannot run it. */
            s->enqueued--;
            if (s->head == n) {
                s->head = s->tail = NULL;
            } else {
                struct op *p = s->head;
                while (p->next != n)
                    p = p->next;
                p->next = NULL;
                s->tail = p;
            }
            pthread_mutex_unlock(&s->lock);
            free(n);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return CUDA_SUCCESS;
}

/* Wait until the stream ran what it had at the call (or stopped at a failure, or its context was lost). */
static void stream_drain(struct CUstream_st *s)
{
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->enqueued;
    while (s->done < target && s->error == CUDA_SUCCESS && atomic_load(&s->ctx->lost) == CUDA_SUCCESS) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&s->cond, &s->lock, &ts);
    }
    pthread_mutex_unlock(&s->lock);
}

/* A failure that is not sticky, read: the first read returns it, the second lets the stream go on. */
static CUresult stream_read_error(struct CUstream_st *s)
{
    pthread_mutex_lock(&s->lock);
    CUresult r = s->error;
    if (r != CUDA_SUCCESS && ++s->error_reads >= 2) {
        s->error = CUDA_SUCCESS;
        s->error_reads = 0;
        r = CUDA_SUCCESS;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

/* ------------------------------------------------------------------------
 * Initialization, devices, contexts
 * ------------------------------------------------------------------------ */

static void fork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&g_lock); }

/*
 * The child has none of the workers: what the inherited streams had queued
 * is gone (never runs), and the streams are idle and empty. (On a GPU a
 * forked child cannot use the parent's driver state at all.)
 */
static void ipc_fork_child(void);

static void fork_child(void)
{
    pthread_mutex_unlock(&g_lock);
    /* Strict: a child of a process that initialised the driver cannot use it (a GPU's cuInit there
     * returns CUDA_ERROR_NOT_INITIALIZED, and so does every later call). */
    if (g_init && !g_fork_ok)
        atomic_store(&g_forked, true);
    pthread_mutex_init(&g_host_fn_lock, NULL); /* no host function runs in the child */
    ipc_fork_child();
    for (int d = 0; d < FAKE_MAX_DEVICES; d++)
        for (struct CUstream_st *s = g_ctx[d].streams; s != NULL; s = s->next) {
            pthread_mutex_init(&s->lock, NULL);
            pthread_cond_init(&s->cond, NULL);
            s->running = false;
            s->error = CUDA_SUCCESS;
            while (s->head != NULL) {
                struct op *o = s->head;
                s->head = o->next;
                op_free(o);
            }
            s->tail = NULL;
            s->done = s->enqueued;
        }
}

static pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;
static void fork_register(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

EXPORT CUresult cuInit(unsigned int flags)
{
    ENTRY();
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    int forced = env_int("ACLRT_FAKE_CUDA_INIT_RESULT", 0);
    if (forced != 0)
        return (CUresult)forced;
    pthread_once(&g_fork_once, fork_register);
    pthread_mutex_lock(&g_lock);
    if (!g_init) {
        for (int d = 0; d < FAKE_MAX_DEVICES; d++)
            g_ctx[d].device = d;
        g_host_access = env_int("ACLRT_FAKE_CUDA_HOST_ACCESS", 0) != 0;
        g_parallel_host_fns = env_int("ACLRT_FAKE_CUDA_PARALLEL_HOST_FUNCS", 0) != 0;
        g_fork_ok = env_int("ACLRT_FAKE_CUDA_FORK_OK", 0) != 0;
        g_kernel_fault_recovers = env_int("ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS", 0) != 0;
        g_no_peer = env_int("ACLRT_FAKE_CUDA_NO_PEER", 0) != 0;
        g_peer_open = env_int("ACLRT_FAKE_CUDA_PEER_OPEN", 0) != 0;
        g_any_launch = env_int("ACLRT_FAKE_CUDA_ANY_LAUNCH", 0) != 0;
        g_pageable_async = env_int("ACLRT_FAKE_CUDA_PAGEABLE_ASYNC", 0) != 0;
    }
    g_init = true;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

static bool initialized(void)
{
    if (atomic_load(&g_forked))
        return false;
    pthread_mutex_lock(&g_lock);
    bool i = g_init;
    pthread_mutex_unlock(&g_lock);
    return i;
}

EXPORT CUresult cuDriverGetVersion(int *version)
{
    ENTRY();
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **str)
{
    ENTRY();
    static const struct {
        CUresult code;
        const char *name;
    } names[] = {{0, "CUDA_SUCCESS"},
                 {1, "CUDA_ERROR_INVALID_VALUE"},
                 {2, "CUDA_ERROR_OUT_OF_MEMORY"},
                 {3, "CUDA_ERROR_NOT_INITIALIZED"},
                 {100, "CUDA_ERROR_NO_DEVICE"},
                 {101, "CUDA_ERROR_INVALID_DEVICE"},
                 {201, "CUDA_ERROR_INVALID_CONTEXT"},
                 {200, "CUDA_ERROR_INVALID_IMAGE"},
                 {301, "CUDA_ERROR_FILE_NOT_FOUND"},
                 {400, "CUDA_ERROR_INVALID_HANDLE"},
                 {500, "CUDA_ERROR_NOT_FOUND"},
                 {719, "CUDA_ERROR_LAUNCH_FAILED"},
                 {600, "CUDA_ERROR_NOT_READY"},
                 {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
                 {999, "CUDA_ERROR_UNKNOWN"},
                 {800, "CUDA_ERROR_NOT_PERMITTED"},
                 {401, "CUDA_ERROR_ILLEGAL_STATE"},
                 {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
                 {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
                 {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
                 {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
                 {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
                 {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
                 {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
                 {907, "CUDA_ERROR_CAPTURED_EVENT"},
                 {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
                 {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
                 {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
                 {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"}};
    if (str == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == error) {
            *str = names[i].name;
            return CUDA_SUCCESS;
        }
    *str = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    ENTRY();
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = device_count();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(int *device, int ordinal)
{
    ENTRY();
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, unsigned attribute, int device)
{
    ENTRY();
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (device < 0 || device >= device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attribute) {
    case 41: *value = 1; break;  /* unified addressing */
    case 122: *value = 1; break; /* 64-bit stream memory operations */
    case 123: *value = 1; break; /* ... whose waits take NOR */
    case 88:  /* pageable memory access (HMM, ATS) */
    case 100: /* ... through the host's page tables */
    case 101: /* the host may address device (managed) memory */
        *value = g_host_access;
        break;
    default: *value = 0; break;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(struct CUctx_st **ctx, int device)
{
    ENTRY();
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (device < 0 || device >= device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&g_lock);
    if (g_ctx[device].refs++ == 0) {
        atomic_store(&g_ctx[device].lost, CUDA_SUCCESS); /* a fresh context */
        peer_forget(device);
    }
    pthread_mutex_unlock(&g_lock);
    *ctx = &g_ctx[device];
    return CUDA_SUCCESS;
}

static void graph_free(struct CUgraph_st *g);
static void capture_forget(struct CUstream_st *s);
static void alloc_drop(struct alloc *a);
static void exec_put(struct CUgraphExec_st *x);

/* The last release destroys the context: its streams (after their work), graphs and device memory go. */
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int device)
{
    ENTRY();
    if (device < 0 || device >= device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    struct CUctx_st *c = &g_ctx[device];
    pthread_mutex_lock(&g_lock);
    if (c->refs == 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (--c->refs > 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_SUCCESS;
    }
    struct CUstream_st *streams = c->streams;
    c->streams = NULL;
    /* The context goes with work still queued (a wait nothing satisfies): dropped, not waited for. */
    atomic_store(&c->dying, true);
    /* Its device memory: taken off the list now, freed once its streams' workers are gone (below). */
    struct alloc *mine = NULL;
    struct alloc **p = &g_allocs;
    while (*p != NULL) {
        struct alloc *a = *p;
        if (a->ctx == c) {
            *p = a->next;
            a->next = mine;
            mine = a;
        } else {
            p = &a->next;
        }
    }
    struct CUgraph_st *graphs = NULL;
    for (struct CUgraph_st **g = &g_graphs; *g != NULL;) {
        struct CUgraph_st *x = *g;
        if (x->ctx == c) {
            *g = x->next;
            x->next = graphs;
            graphs = x;
        } else {
            g = &x->next;
        }
    }
    struct CUgraphExec_st *execs = NULL;
    for (struct CUgraphExec_st **e = &g_execs; *e != NULL;) {
        struct CUgraphExec_st *x = *e;
        if (x->ctx == c) {
            *e = x->next;
            x->next = execs;
            execs = x;
        } else {
            e = &x->next;
        }
    }
    pthread_mutex_unlock(&g_lock);
    while (graphs != NULL) {
        struct CUgraph_st *g = graphs;
        graphs = g->next;
        graph_free(g);
    }
    while (streams != NULL) {
        struct CUstream_st *s = streams;
        streams = s->next;
        pthread_mutex_lock(&s->lock);
        s->destroyed = true;
        pthread_cond_broadcast(&s->cond);
        while (s->running) /* its worker runs what is queued, then leaves */
            pthread_cond_wait(&s->cond, &s->lock);
        pthread_mutex_unlock(&s->lock);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->cond);
        capture_forget(s);
        free(s);
    }
    /* The context's executable graphs go with it (their launches ran: the streams are drained). */
    while (execs != NULL) {
        struct CUgraphExec_st *x = execs;
        execs = x->next;
        exec_put(x);
    }
    while (mine != NULL) {
        struct alloc *a = mine;
        mine = a->next;
        alloc_drop(a);
    }
    atomic_store(&c->dying, false);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(struct CUctx_st *ctx)
{
    ENTRY();
    t_ctx = ctx;
    return CUDA_SUCCESS;
}

static CUresult capture_context(struct CUctx_st *c);

EXPORT CUresult cuCtxSynchronize(void)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS || (r = capture_context(t_ctx)) != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    struct CUstream_st *list = t_ctx->streams;
    pthread_mutex_unlock(&g_lock);
    /* Streams made later are added at the head: this walk sees those of the call. */
    for (struct CUstream_st *s = list; s != NULL; s = s->next)
        stream_drain(s);
    return atomic_load(&t_ctx->lost);
}

/* ------------------------------------------------------------------------
 * Streams
 * ------------------------------------------------------------------------ */

EXPORT CUresult cuStreamCreateWithPriority(struct CUstream_st **stream, unsigned int flags, int priority)
{
    ENTRY();
    (void)priority;
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (stream == NULL || flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = (struct CUstream_st *)calloc(1, sizeof *s);
    if (s == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->ctx = t_ctx;
    s->flags = flags;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_mutex_lock(&g_lock);
    s->next = t_ctx->streams;
    t_ctx->streams = s;
    pthread_mutex_unlock(&g_lock);
    *stream = s;
    return CUDA_SUCCESS;
}

/* Returns at once; queued work still runs (the stream's memory goes with its context). */
EXPORT CUresult cuStreamDestroy_v2(struct CUstream_st *s)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&s->lock);
    s->destroyed = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamQuery(struct CUstream_st *s)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL)
        return capture_legacy();
    if ((r = capture_conflict(s)) != CUDA_SUCCESS)
        return r;
    if ((r = stream_read_error(s)) != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&s->lock);
    bool idle = s->done == s->enqueued;
    pthread_mutex_unlock(&s->lock);
    return idle ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

EXPORT CUresult cuStreamSynchronize(struct CUstream_st *s)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL)
        return capture_legacy();
    if ((r = capture_conflict(s)) != CUDA_SUCCESS)
        return r;
    stream_drain(s);
    if ((r = atomic_load(&s->ctx->lost)) != CUDA_SUCCESS)
        return r;
    return stream_read_error(s);
}

static CUresult memop_target(CUdeviceptr addr, void **out);

EXPORT CUresult cuStreamWriteValue64_v2(struct CUstream_st *s, CUdeviceptr addr, uint64_t value, unsigned int flags)
{
    ENTRY();
    if (addr == 0 || (addr & 7u) != 0 || flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
    void *d;
    CUresult r = memop_target(addr, &d);
    if (r != CUDA_SUCCESS)
        return r;
    struct op o = {.kind = OP_WRITE64, .dst = d, .value = value};
    return enqueue(s, &o);
}

EXPORT CUresult cuStreamWaitValue64_v2(struct CUstream_st *s, CUdeviceptr addr, uint64_t value, unsigned int flags)
{
    ENTRY();
    if (addr == 0 || (addr & 7u) != 0 || (flags & ~(3u | (1u << 30))) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *d;
    CUresult r = memop_target(addr, &d);
    if (r != CUDA_SUCCESS)
        return r;
    struct op o = {.kind = OP_WAIT64, .dst = d, .value = value, .flags = flags};
    return enqueue(s, &o);
}

/*
 * For the NCCL test double: an operation, in stream order, that runs
 * fn(user) on the stream's worker as a kernel runs (not under the
 * host-function lock of rule 2; it may wait for other streams' work, as an
 * NCCL kernel spins until its peers arrive). The stream's context need not
 * be current (NCCL sets the device itself). As for any operation: a lost
 * context's error at the call, and fn never runs when the context is lost
 * or released before the stream reaches it (the caller must not depend on
 * it running to free what it holds). Not captured: a stream capturing
 * returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and its sequence is left
 * as it is. The legacy NULL stream is not modelled (see capture).
 */
EXPORT CUresult fakecuda_stream_task(struct CUstream_st *s, void (*fn)(void *user), void *user)
{
    ENTRY();
    if (fn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct op o = {.kind = OP_TASK, .fn = fn, .user = user};
    if (s == NULL)
        return enqueue(s, &o);
    return enqueue_on(s, &o);
}

EXPORT CUresult cuLaunchHostFunc(struct CUstream_st *s, CUhostFn fn, void *user)
{
    ENTRY();
    if (fn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct op o = {.kind = OP_HOST_FN, .fn = fn, .user = user};
    return enqueue(s, &o);
}

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

EXPORT CUresult cuEventCreate(struct CUevent_st **event, unsigned int flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (event == NULL || flags > 7)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUevent_st *e = (struct CUevent_st *)calloc(1, sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->ctx = t_ctx;
    e->flags = flags;
    e->refs = 1;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    *event = e;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(struct CUevent_st *e)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    if (e == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    event_put(e); /* pending records keep it until they ran */
    return CUDA_SUCCESS;
}

static bool capture_record(struct CUevent_st *e, struct CUstream_st *s, CUresult *r);
static bool capture_wait(struct CUstream_st *s, struct CUevent_st *e, unsigned flags, CUresult *r);

EXPORT CUresult cuEventRecord(struct CUevent_st *e, struct CUstream_st *s)
{
    ENTRY();
    if (e == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult cr;
    if (capture_record(e, s, &cr)) /* a record in a capture sequence: a node of its graph, not run */
        return cr;
    pthread_mutex_lock(&e->lock);
    uint64_t seq = ++e->recorded;
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    struct op o = {.kind = OP_RECORD, .event = e, .seq = seq};
    CUresult r = enqueue(s, &o);
    if (r != CUDA_SUCCESS) {
        pthread_mutex_lock(&e->lock);
        e->recorded--; /* as if never recorded */
        pthread_mutex_unlock(&e->lock);
        event_put(e);
    }
    return r;
}

EXPORT CUresult cuStreamWaitEvent(struct CUstream_st *s, struct CUevent_st *e, unsigned int flags)
{
    ENTRY();
    if (e == NULL || flags > 1)
        return flags > 1 ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    CUresult cr;
    if (capture_wait(s, e, flags, &cr)) /* a fork into, a join of, or a wait across a capture sequence */
        return cr;
    pthread_mutex_lock(&e->lock);
    uint64_t seq = e->recorded; /* the record made last before this call */
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    struct op o = {.kind = OP_WAIT_EVENT, .event = e, .seq = seq};
    CUresult r = enqueue(s, &o);
    if (r != CUDA_SUCCESS)
        event_put(e);
    return r;
}

EXPORT CUresult cuEventQuery(struct CUevent_st *e)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (e == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (atomic_load(&e->cap_id) != 0) /* last recorded in a capture sequence: nothing to wait for */
        return CUDA_ERROR_CAPTURED_EVENT;
    pthread_mutex_lock(&e->lock);
    bool complete = e->completed >= e->recorded;
    pthread_mutex_unlock(&e->lock);
    return complete ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

EXPORT CUresult cuEventSynchronize(struct CUevent_st *e)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (e == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (atomic_load(&e->cap_id) != 0)
        return CUDA_ERROR_CAPTURED_EVENT;
    pthread_mutex_lock(&e->lock);
    uint64_t seq = e->recorded;
    e->refs++;
    pthread_mutex_unlock(&e->lock);
    event_wait(e, seq);
    event_put(e);
    return atomic_load(&t_ctx->lost);
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, struct CUevent_st *start, struct CUevent_st *end)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (ms == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (start == NULL || end == NULL || ((start->flags | end->flags) & 2u) != 0 || start->ctx != end->ctx)
        return CUDA_ERROR_INVALID_HANDLE;
    uint64_t t[2];
    struct CUevent_st *ev[2] = {start, end};
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&ev[i]->lock);
        uint64_t recorded = ev[i]->recorded, completed = ev[i]->completed;
        t[i] = ev[i]->time_ns;
        pthread_mutex_unlock(&ev[i]->lock);
        if (recorded == 0)
            return CUDA_ERROR_INVALID_HANDLE;
        if (completed < recorded)
            return CUDA_ERROR_NOT_READY;
    }
    *ms = (float)((double)(int64_t)(t[1] - t[0]) / 1e6);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------ */

/*
 * Device memory the host cannot address (strict; ACLRT_FAKE_CUDA_HOST_ACCESS=1
 * makes it host memory again). A device allocation's address lies in a
 * reservation of address space that has no access at all (PROT_NONE,
 * MAP_NORESERVE: a load or store of the host there is a SIGSEGV, as on a GPU
 * without HMM); its bytes (the backing) are at the same offset in a memory
 * file of the reservation's, mapped shared for the double (its view), so
 * that another process can map them too (the IPC section). The double's own
 * operations translate (xlate): copies, sets, value writes and waits,
 * kernels' argument buffers. Addresses of the reservations are handed out
 * first-fit, in whole pages, from a free list of ranges, sorted and merged;
 * a reservation is FAKE_RESERVE bytes (or the allocation's size, when
 * larger), and another is made when the free ranges have no room. A freed
 * allocation's pages are punched out of the file (memory goes back; they
 * read as zeros when reused). An overrun of an allocation's bytes by a
 * stand-in kernel is not caught (AddressSanitizer does not watch a file's
 * mapping); copies and sets are checked against the allocation's size.
 */
#define FAKE_RESERVE (4ull << 30)
#define FAKE_MAX_RESERVATIONS 64

struct vrange {
    uintptr_t at;
    size_t n;
    struct vrange *next;
};
static struct vrange *g_vfree; /* free device addresses, sorted, merged (g_lock) */
static struct {
    uintptr_t at;
    size_t n;
    int fd;      /* the memory file that holds the bytes of its device allocations (shareable: the IPC section) */
    char *view;  /* that file mapped for the double (its byte at offset o is device address at + o) */
} g_res[FAKE_MAX_RESERVATIONS]; /* the reservations (g_lock; a slot, once filled, never changes) */
static _Atomic int g_nres;

/* Give device addresses back (g_lock held): into the sorted free list, merged with its neighbours. */
static void va_free(uintptr_t at, size_t n)
{
    struct vrange *prev = NULL, *next = g_vfree;
    while (next != NULL && next->at < at) {
        prev = next;
        next = next->next;
    }
    if (prev != NULL && prev->at + prev->n == at) {
        prev->n += n;
        if (next != NULL && prev->at + prev->n == next->at) {
            prev->n += next->n;
            prev->next = next->next;
            free(next);
        }
        return;
    }
    if (next != NULL && at + n == next->at) {
        next->at = at;
        next->n += n;
        return;
    }
    struct vrange *r = (struct vrange *)malloc(sizeof *r);
    if (r == NULL)
        return; /* the range is lost to reuse, nothing worse */
    r->at = at;
    r->n = n;
    r->next = next;
    if (prev != NULL)
        prev->next = r;
    else
        g_vfree = r;
}

/* n bytes of device addresses (n a multiple of 256), 0 where none (g_lock held). */
static uintptr_t va_alloc(size_t n)
{
    for (int round = 0; round < 2; round++) {
        for (struct vrange **p = &g_vfree; *p != NULL; p = &(*p)->next) {
            struct vrange *r = *p;
            if (r->n < n)
                continue;
            uintptr_t at = r->at;
            r->at += n;
            r->n -= n;
            if (r->n == 0) {
                *p = r->next;
                free(r);
            }
            return at;
        }
        int k = atomic_load(&g_nres);
        if (round > 0 || k == FAKE_MAX_RESERVATIONS)
            break;
        size_t size = n > FAKE_RESERVE ? (n + 0xfffff) & ~(size_t)0xfffff : FAKE_RESERVE;
        /* The bytes: a memory file (sparse; freed ranges are punched out), so that another process can map an
         * allocation's (cuIpcOpenMemHandle). With ACLRT_FAKE_CUDA_HOST_ACCESS=1 the reservation is the file's
         * mapping itself (device memory is host memory). */
        int fd = memfd_create("fakecuda-device-memory", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
            if (fd >= 0)
                close(fd);
            break;
        }
        void *view = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        void *m = g_host_access || view == MAP_FAILED
                      ? view
                      : mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            if (view != MAP_FAILED)
                munmap(view, size);
            close(fd);
            break;
        }
        g_res[k].at = (uintptr_t)m;
        g_res[k].n = size;
        g_res[k].fd = fd;
        g_res[k].view = (char *)view;
        atomic_store(&g_nres, k + 1);
        va_free((uintptr_t)m, size);
    }
    return 0;
}

/* The device reservation that holds address a, or -1. */
static int reservation_of(uintptr_t a)
{
    int k = atomic_load(&g_nres);
    for (int i = 0; i < k; i++)
        if (a - g_res[i].at < g_res[i].n)
            return i;
    return -1;
}

/* Is a an address of the device reservations? */
static bool in_reservation(uintptr_t a)
{
    return reservation_of(a) >= 0;
}

/* The live device allocation (or module global) that holds device address a (g_lock held). */
static struct alloc *dev_find(uintptr_t a)
{
    for (struct alloc *x = g_allocs; x != NULL; x = x->next)
        if (x->ctx != NULL && a - x->dev < x->size)
            return x;
    return NULL;
}

/*
 * Where the double reads or writes n bytes at address a (a device address
 * or a host one): a device address is translated to its backing, and must
 * lie, all n bytes, in one live allocation (else CUDA_ERROR_INVALID_VALUE,
 * as the driver answers an address it does not know); a host address (and,
 * with ACLRT_FAKE_CUDA_HOST_ACCESS=1, every address) is itself.
 */
static CUresult xlate(CUdeviceptr a, size_t n, void **out)
{
    uintptr_t p = (uintptr_t)a;
    if (!in_reservation(p)) {
        *out = (void *)p;
        return CUDA_SUCCESS;
    }
    pthread_mutex_lock(&g_lock);
    struct alloc *x = dev_find(p);
    CUresult r = x != NULL && n <= x->size - (p - x->dev) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    /* An import whose allocation the exporter freed: the driver's "undefined", made a failure (strict). */
    if (r == CUDA_SUCCESS && x->ipc_pid != 0 && atomic_load(x->ipc_slot) != x->ipc_id)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        *out = (char *)x->p + (p - x->dev);
    pthread_mutex_unlock(&g_lock);
    return r;
}

/*
 * The word of a 64-bit stream memory operation: memory the GPU can address,
 * that is a device allocation of the double, or pinned host memory
 * (cuMemHostAlloc; mapped by unified addressing whatever its flags) at its
 * device address; else CUDA_ERROR_INVALID_VALUE, at the call (plain host
 * memory is not the GPU's without HMM). ACLRT_FAKE_CUDA_HOST_ACCESS=1 (the
 * GPU addresses pageable memory) accepts any address.
 */
static CUresult memop_target(CUdeviceptr addr, void **out)
{
    uintptr_t p = (uintptr_t)addr;
    if (g_host_access) {
        *out = (void *)p;
        return CUDA_SUCCESS;
    }
    if (in_reservation(p))
        return xlate(addr, 8, out);
    pthread_mutex_lock(&g_lock);
    bool pinned = false;
    for (struct alloc *a = g_allocs; a != NULL && !pinned; a = a->next)
        pinned = a->ctx == NULL && p - (uintptr_t)a->p < a->size && a->size - (p - (uintptr_t)a->p) >= 8;
    pthread_mutex_unlock(&g_lock);
    if (!pinned)
        return CUDA_ERROR_INVALID_VALUE;
    *out = (void *)p;
    return CUDA_SUCCESS;
}

/*
 * A kernel's argument buffer (the launch's own copy): each 8-byte-aligned
 * 64-bit value that is an address in a live device allocation becomes the
 * address of its backing, so that the stand-in kernel, host code, reaches the
 * bytes. A heuristic: the buffer is untyped, so an integer that happens to
 * equal a device address is translated too (unlikely: the reservations lie
 * far above small integers), and a pointer that is not 8-byte aligned in the
 * buffer, or one the kernel reads from memory (a table of pointers), is not.
 */
static bool xlate_args(void *buf, size_t size, struct CUctx_st *ctx)
{
    bool unreachable = false;
    if (atomic_load(&g_nres) == 0)
        return peer_args_unreachable(buf, size, ctx);
    pthread_mutex_lock(&g_lock);
    for (size_t off = 0; off + 8 <= size; off += 8) {
        uint64_t v;
        memcpy(&v, (char *)buf + off, 8);
        if (!in_reservation((uintptr_t)v))
            continue;
        struct alloc *x = dev_find((uintptr_t)v);
        if (x == NULL)
            continue; /* not a live allocation: the kernel faults where it uses it, as on a GPU */
        unreachable = unreachable || !peer_reaches(ctx, x);
        uint64_t b = (uint64_t)(uintptr_t)((char *)x->p + ((uintptr_t)v - x->dev));
        memcpy((char *)buf + off, &b, 8);
    }
    pthread_mutex_unlock(&g_lock);
    return unreachable;
}

/* The device addresses an allocation of `size` bytes takes: whole pages (its bytes' pages are its own), at least one. */
static size_t alloc_span(size_t size)
{
    return size == 0 ? 4096 : (size + 4095) & ~(size_t)4095;
}

static void ipc_export_end(struct alloc *a);

/* Track an allocation of the double: pinned host memory (ctx NULL) or device memory (ctx set). */
static CUresult alloc_track(size_t size, struct CUctx_st *ctx, void **out)
{
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t span = (size + 255) & ~(size_t)255;
    struct alloc *a = (struct alloc *)calloc(1, sizeof *a);
    void *p = ctx != NULL ? a : aligned_alloc(256, span); /* device memory: bytes of a memory file (below) */
    if (a == NULL || p == NULL) {
        free(a);
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->p = p;
    a->dev = (uintptr_t)p;
    a->size = span;
    a->ctx = ctx;
    a->mod = NULL;
    a->res = -1;
    pthread_mutex_lock(&g_lock);
    if (ctx != NULL) { /* device memory: addresses of a reservation, bytes of its memory file */
        a->p = NULL;
        if ((a->dev = va_alloc(alloc_span(span))) == 0) {
            pthread_mutex_unlock(&g_lock);
            free(a);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        a->res = reservation_of(a->dev);
        a->p = g_res[a->res].view + (a->dev - g_res[a->res].at);
    }
    a->next = g_allocs;
    g_allocs = a;
    pthread_mutex_unlock(&g_lock);
    *out = (void *)a->dev;
    return CUDA_SUCCESS;
}

/* An allocation leaves the list (g_lock held): its device addresses go back; its bytes, unless a module's. */
static void alloc_drop(struct alloc *a)
{
    if (a->ipc_pid != 0) { /* an import: its mapping of the exporter's bytes and table go */
        munmap(a->p, alloc_span(a->size));
        munmap(a->ipc_table, FAKE_IPC_SLOTS * sizeof(uint64_t));
    } else if (a->res >= 0) { /* device memory: its pages of the memory file go back (read as zeros after) */
        ipc_export_end(a);
        (void)fallocate(g_res[a->res].fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)(a->dev - g_res[a->res].at), (off_t)alloc_span(a->size));
    } else if (a->mod == NULL && !a->registered) {
        free(a->p);
    }
    if (in_reservation(a->dev))
        va_free(a->dev, alloc_span(a->size));
    free(a);
}

/* Forget and free the allocation at the address the caller has (device: ctx not NULL). */
static CUresult alloc_free(uintptr_t at, bool device)
{
    pthread_mutex_lock(&g_lock);
    struct alloc **p = &g_allocs;
    while (*p != NULL && !((*p)->dev == at && ((*p)->ctx != NULL) == device && (*p)->mod == NULL && (*p)->ipc_pid == 0))
        p = &(*p)->next;
    struct alloc *a = *p;
    if (a != NULL) {
        *p = a->next;
        alloc_drop(a);
    }
    pthread_mutex_unlock(&g_lock);
    return a == NULL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (dptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = NULL;
    r = alloc_track(bytes, t_ctx, &p);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    return alloc_free((uintptr_t)dptr, true);
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (pp == NULL || flags > 7)
        return CUDA_ERROR_INVALID_VALUE;
    return alloc_track(bytes, NULL, pp);
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    return alloc_free((uintptr_t)p, false);
}

/*
 * The caller's host memory, pinned and mapped: afterwards it is pinned host
 * memory for the double's rules (value operations accept it). Overlapping
 * an earlier registration: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED.
 */
EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (p == NULL || bytes == 0 || flags > 0xf)
        return CUDA_ERROR_INVALID_VALUE;
    struct alloc *a = (struct alloc *)calloc(1, sizeof *a);
    if (a == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *a = (struct alloc){.p = p, .dev = (uintptr_t)p, .size = bytes, .registered = true, .res = -1};
    pthread_mutex_lock(&g_lock);
    for (struct alloc *x = g_allocs; x != NULL; x = x->next)
        if (x->ctx == NULL && (uintptr_t)p < (uintptr_t)x->p + x->size && (uintptr_t)x->p < (uintptr_t)p + bytes)
            r = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    if (r == CUDA_SUCCESS) {
        a->next = g_allocs;
        g_allocs = a;
    }
    pthread_mutex_unlock(&g_lock);
    if (r != CUDA_SUCCESS)
        free(a);
    return r;
}

EXPORT CUresult cuMemHostUnregister(void *p)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    pthread_mutex_lock(&g_lock);
    struct alloc **q = &g_allocs;
    while (*q != NULL && !((*q)->registered && (*q)->p == p))
        q = &(*q)->next;
    struct alloc *a = *q;
    if (a != NULL)
        *q = a->next;
    pthread_mutex_unlock(&g_lock);
    if (a == NULL)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    alloc_drop(a);
    return CUDA_SUCCESS;
}

/* What memory an address is: CU_POINTER_ATTRIBUTE_MEMORY_TYPE only (device 2, pinned host 1). */
EXPORT CUresult cuPointerGetAttribute(void *data, unsigned attribute, CUdeviceptr ptr)
{
    ENTRY();
    if (data == NULL || attribute != 2)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t a = (uintptr_t)ptr;
    unsigned type = 0;
    pthread_mutex_lock(&g_lock);
    for (struct alloc *x = g_allocs; x != NULL && type == 0; x = x->next)
        if (a - x->dev < x->size)
            type = x->ctx != NULL ? 2u : 1u;
    pthread_mutex_unlock(&g_lock);
    if (type == 0)
        return CUDA_ERROR_INVALID_VALUE; /* memory the driver does not know */
    *(unsigned *)data = type;
    return CUDA_SUCCESS;
}

/* The current context's device (CUDA_ERROR_INVALID_CONTEXT with none current, rule 9). */
EXPORT CUresult cuCtxGetDevice(int *device)
{
    ENTRY();
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (t_ctx == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = t_ctx->device;
    return CUDA_SUCCESS;
}

/*
 * For the NCCL test double (tests/nccl_fake/fake_nccl.c): the bytes of
 * [p, p+n) when the range lies in one live device allocation (or module
 * global), or in pinned host memory (its device pointer is its host
 * pointer); else CUDA_ERROR_INVALID_VALUE. n == 0 names any address inside
 * an allocation. Callable from any thread, the streams' workers included.
 */
EXPORT CUresult fakecuda_device_bytes(CUdeviceptr p, size_t n, void **bytes)
{
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t a = (uintptr_t)p;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    for (struct alloc *x = g_allocs; x != NULL; x = x->next) {
        if (a - x->dev >= x->size)
            continue;
        if (n <= x->size - (a - x->dev) && (x->ipc_pid == 0 || atomic_load(x->ipc_slot) == x->ipc_id)) {
            *bytes = (char *)x->p + (a - x->dev);
            r = CUDA_SUCCESS;
        }
        break;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

EXPORT CUresult cuCtxGetCurrent(struct CUctx_st **pctx)
{
    ENTRY();
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = t_ctx;
    return CUDA_SUCCESS;
}

/* Mapped pinned memory: the device address is the host address (unified addressing). */
EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (dptr == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    bool found = false;
    for (struct alloc *a = g_allocs; a != NULL && !found; a = a->next)
        found = a->ctx == NULL && (uintptr_t)p >= (uintptr_t)a->p && (uintptr_t)p < (uintptr_t)a->p + a->size;
    pthread_mutex_unlock(&g_lock);
    if (!found)
        return CUDA_ERROR_INVALID_VALUE;
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if ((dst == 0 || src == 0) && bytes > 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *d, *from;
    if ((r = xlate(dst, bytes, &d)) != CUDA_SUCCESS || (r = xlate(src, bytes, &from)) != CUDA_SUCCESS ||
        (r = peer_copy_check(t_ctx, dst, src)) != CUDA_SUCCESS)
        return r;
    copy_bytes(d, from, bytes);
    return CUDA_SUCCESS;
}

/* Is [a, a + n) pageable host memory: neither device memory nor pinned (allocated or registered)? */
static bool pageable(CUdeviceptr a, size_t n)
{
    uintptr_t p = (uintptr_t)a;
    if (n == 0 || in_reservation(p))
        return false;
    bool known = false;
    pthread_mutex_lock(&g_lock);
    for (struct alloc *x = g_allocs; x != NULL && !known; x = x->next)
        known = p - x->dev < x->size;
    pthread_mutex_unlock(&g_lock);
    return !known;
}

static _Atomic uint64_t g_pageable_held; /* cuMemcpyAsync calls held by a pageable copy */

/* Tests: cuMemcpyAsync calls with pageable host memory made synchronous so far (the caller held). */
EXPORT uint64_t fakecuda_pageable_held(void)
{
    return atomic_load(&g_pageable_held);
}

/*
 * A copy with pageable host memory on one side is synchronous with respect
 * to the host on a GPU (the driver stages it through pinned memory of its
 * own): strict, the call waits for the stream's earlier work and the copy,
 * then returns. It cannot be captured (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
 * the capture invalidated). ACLRT_FAKE_CUDA_PAGEABLE_ASYNC=1: queued and
 * returned from at once, as a copy of pinned memory.
 */
EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, struct CUstream_st *s)
{
    ENTRY();
    if ((dst == 0 || src == 0) && bytes > 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *d, *from;
    CUresult r;
    if ((r = xlate(dst, bytes, &d)) != CUDA_SUCCESS || (r = xlate(src, bytes, &from)) != CUDA_SUCCESS ||
        (s != NULL && (r = peer_copy_check(s->ctx, dst, src)) != CUDA_SUCCESS))
        return r;
    bool staged = pageable(dst, bytes) || pageable(src, bytes);
    if (staged && s != NULL && (r = capture_conflict(s)) != CUDA_SUCCESS)
        return r;
    struct op o = {.kind = OP_COPY, .dst = d, .src = from, .n = bytes};
    r = enqueue(s, &o);
    if (r == CUDA_SUCCESS && staged && !g_pageable_async) {
        atomic_fetch_add(&g_pageable_held, 1);
        stream_drain(s); /* synchronous: the stream's earlier work and this copy are done */
    }
    return r;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (dst == 0 && n > 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *d;
    if ((r = xlate(dst, n, &d)) != CUDA_SUCCESS || (r = peer_copy_check(t_ctx, dst, 0)) != CUDA_SUCCESS)
        return r;
    memset(d, value, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, struct CUstream_st *s)
{
    ENTRY();
    if (dst == 0 && n > 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *d;
    CUresult r = xlate(dst, n, &d);
    if (r == CUDA_SUCCESS && s != NULL)
        r = peer_copy_check(s->ctx, dst, 0);
    if (r != CUDA_SUCCESS)
        return r;
    struct op o = {.kind = OP_SET, .dst = d, .value = value, .n = n};
    return enqueue(s, &o);
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, struct CUstream_st *s)
{
    ENTRY();
    if ((dst == 0 && n > 0) || dst % 4 != 0 || n > SIZE_MAX / 4)
        return CUDA_ERROR_INVALID_VALUE;
    void *d;
    CUresult r = xlate(dst, n * 4, &d);
    if (r == CUDA_SUCCESS && s != NULL)
        r = peer_copy_check(s->ctx, dst, 0);
    if (r != CUDA_SUCCESS)
        return r;
    struct op o = {.kind = OP_SET32, .dst = d, .value = value, .n = n};
    return enqueue(s, &o);
}

/* ------------------------------------------------------------------------
 * Interprocess memory: cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle
 * ------------------------------------------------------------------------ */

/*
 * A device allocation's bytes lie in its reservation's memory file, so
 * another process can map them: the handle names the exporter, the file's
 * descriptor there and the allocation's offset and size, and a slot of the
 * exporter's export table (a memory file of FAKE_IPC_SLOTS ids) with the
 * allocation's id. The importer opens both files through
 * /proc/<pid>/fd/<fd>, checks that the slot still holds the id (a free or
 * the context's end clears it), maps the bytes (MAP_SHARED) and gives them
 * a device address of its own reservations (a host access there faults, as
 * for its own allocations). The driver's rules, strict:
 *   - the handle names the base of a live cuMemAlloc allocation (not an
 *     import, a global or host memory): else CUDA_ERROR_INVALID_VALUE;
 *   - it opens only in another process: in the exporter,
 *     CUDA_ERROR_INVALID_CONTEXT;
 *   - a handle that is not one, whose process or allocation is gone:
 *     CUDA_ERROR_INVALID_HANDLE; flags other than
 *     CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: CUDA_ERROR_INVALID_VALUE;
 *   - opened again in the same context: the same address, counted; each
 *     open needs its close, one close too many (or of an address that is
 *     not an import) is CUDA_ERROR_INVALID_VALUE; cuMemFree refuses an import;
 *   - the exporter freeing the allocation while it is imported is undefined
 *     in CUDA: here the import's copies, sets and value operations fail
 *     (CUDA_ERROR_INVALID_VALUE) from then on.
 */
#define FAKE_IPC_MAGIC 0x70696366u /* "fcip" */

typedef struct {
    char reserved[64];
} CUipcMemHandle;

struct ipc_handle {
    uint32_t magic;
    int32_t pid;
    int32_t mem_fd, table_fd;
    uint32_t slot, unused;
    uint64_t id, offset, size;
};
_Static_assert(sizeof(struct ipc_handle) <= sizeof(CUipcMemHandle), "the handle fits in CUipcMemHandle");

static int g_ipc_table_fd = -1;            /* this process's export table (g_lock) */
static _Atomic uint64_t *g_ipc_table;
static uint64_t g_ipc_next_id = 1;          /* (g_lock) */

/*
 * A forked child: device memory is the parent's no more. The child's view of
 * each reservation's bytes becomes a private copy (on write), and its
 * allocations leave the parent's export table alone.
 */
static void ipc_fork_child(void)
{
    for (int i = 0; i < atomic_load(&g_nres); i++)
        (void)mmap(g_res[i].view, g_res[i].n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE,
                   g_res[i].fd, 0);
    for (struct alloc *a = g_allocs; a != NULL; a = a->next)
        if (a->ipc_pid == 0)
            a->ipc_slot = NULL;
    g_ipc_table = NULL;
    g_ipc_table_fd = -1;
}

/* An export's slot is cleared when its allocation goes (g_lock held, or the context's end). */
static void ipc_export_end(struct alloc *a)
{
    if (a->ipc_slot != NULL && a->ipc_pid == 0)
        atomic_store(a->ipc_slot, 0);
    a->ipc_slot = NULL;
}

EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (handle == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct alloc *a = g_allocs;
    while (a != NULL && !(a->dev == (uintptr_t)dptr && a->res >= 0 && a->ipc_pid == 0))
        a = a->next;
    if (a == NULL || a->ctx != t_ctx) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE; /* not the base of a cuMemAlloc allocation of this context */
    }
    if (g_ipc_table == NULL) {
        int fd = memfd_create("fakecuda-ipc-exports", MFD_CLOEXEC);
        void *t = fd >= 0 && ftruncate(fd, FAKE_IPC_SLOTS * sizeof(uint64_t)) == 0
                      ? mmap(NULL, FAKE_IPC_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
        if (t == MAP_FAILED) {
            if (fd >= 0)
                close(fd);
            pthread_mutex_unlock(&g_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        g_ipc_table_fd = fd;
        g_ipc_table = (_Atomic uint64_t *)t;
    }
    if (a->ipc_slot == NULL) { /* the first export of the allocation: a slot and an id (later ones: the same) */
        for (uint32_t i = 0; i < FAKE_IPC_SLOTS && a->ipc_slot == NULL; i++)
            if (atomic_load(&g_ipc_table[i]) == 0)
                a->ipc_slot = &g_ipc_table[i];
        if (a->ipc_slot == NULL) {
            pthread_mutex_unlock(&g_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        a->ipc_id = g_ipc_next_id++;
        atomic_store(a->ipc_slot, a->ipc_id);
    }
    struct ipc_handle h = {.magic = FAKE_IPC_MAGIC,
                           .pid = (int32_t)getpid(),
                           .mem_fd = g_res[a->res].fd,
                           .table_fd = g_ipc_table_fd,
                           .slot = (uint32_t)(a->ipc_slot - g_ipc_table),
                           .id = a->ipc_id,
                           .offset = a->dev - g_res[a->res].at,
                           .size = a->size};
    pthread_mutex_unlock(&g_lock);
    memset(handle, 0, sizeof *handle);
    memcpy(handle, &h, sizeof h);
    return CUDA_SUCCESS;
}

static int ipc_open_fd(int32_t pid, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (pdptr == NULL || flags != 0x1u /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */)
        return CUDA_ERROR_INVALID_VALUE;
    struct ipc_handle h;
    memcpy(&h, &handle, sizeof h);
    if (h.magic != FAKE_IPC_MAGIC || h.pid <= 0 || h.slot >= FAKE_IPC_SLOTS || h.id == 0 || h.size == 0)
        return CUDA_ERROR_INVALID_HANDLE;
    if (h.pid == (int32_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT; /* a handle opens only in another process */
    pthread_mutex_lock(&g_lock);
    for (struct alloc *x = g_allocs; x != NULL; x = x->next)
        if (x->ipc_pid == h.pid && x->ipc_id == h.id && x->ctx == t_ctx && atomic_load(x->ipc_slot) == h.id) {
            x->ipc_refs++; /* opened in this context already: the same address */
            *pdptr = (CUdeviceptr)x->dev;
            pthread_mutex_unlock(&g_lock);
            return CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&g_lock);
    int tfd = ipc_open_fd(h.pid, h.table_fd);
    void *table = tfd >= 0 ? mmap(NULL, FAKE_IPC_SLOTS * sizeof(uint64_t), PROT_READ, MAP_SHARED, tfd, 0) : MAP_FAILED;
    if (tfd >= 0)
        close(tfd);
    if (table == MAP_FAILED)
        return CUDA_ERROR_INVALID_HANDLE; /* its process is gone */
    _Atomic uint64_t *slot = (_Atomic uint64_t *)table + h.slot;
    size_t len = alloc_span(h.size);
    int mfd = atomic_load(slot) == h.id ? ipc_open_fd(h.pid, h.mem_fd) : -1;
    void *bytes = mfd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, (off_t)h.offset) : MAP_FAILED;
    if (mfd >= 0)
        close(mfd);
    struct alloc *a = bytes != MAP_FAILED ? (struct alloc *)calloc(1, sizeof *a) : NULL;
    if (a == NULL) {
        if (bytes != MAP_FAILED)
            munmap(bytes, len);
        munmap(table, FAKE_IPC_SLOTS * sizeof(uint64_t));
        return bytes == MAP_FAILED ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_OUT_OF_MEMORY; /* freed, or gone */
    }
    *a = (struct alloc){.p = bytes, .size = (size_t)h.size, .ctx = t_ctx, .res = -1, .ipc_slot = slot,
                        .ipc_id = h.id, .ipc_pid = h.pid, .ipc_refs = 1, .ipc_table = table};
    pthread_mutex_lock(&g_lock);
    a->dev = g_host_access ? (uintptr_t)bytes : va_alloc(len);
    if (a->dev != 0) {
        a->next = g_allocs;
        g_allocs = a;
    }
    pthread_mutex_unlock(&g_lock);
    if (a->dev == 0) {
        munmap(bytes, len);
        munmap(table, FAKE_IPC_SLOTS * sizeof(uint64_t));
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pdptr = (CUdeviceptr)a->dev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    pthread_mutex_lock(&g_lock);
    struct alloc **p = &g_allocs;
    while (*p != NULL && !((*p)->ipc_pid != 0 && (*p)->dev == (uintptr_t)dptr && (*p)->ctx == t_ctx))
        p = &(*p)->next;
    struct alloc *a = *p;
    if (a != NULL && --a->ipc_refs == 0) {
        *p = a->next;
        alloc_drop(a);
    }
    pthread_mutex_unlock(&g_lock);
    return a == NULL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS; /* not an import here (or closed already) */
}

/* ------------------------------------------------------------------------
 * Modules (stand-ins: host shared objects) and kernels
 * ------------------------------------------------------------------------ */

struct fake_func;

struct CUmod_st {
    void *dl;
    int fd; /* loaded from memory: its anonymous file; -1 otherwise */
    struct CUctx_st *ctx;     /* the context it was loaded in: its functions launch there only */
    struct fake_func *funcs;  /* its CUfunctions, handed out (g_lock), freed with it */
    struct CUmod_st *next;    /* the live modules (g_lock) */
};
static struct CUmod_st *g_mods; /* live modules (g_lock) */

/* Is the loader's object dl a live module of another context than ctx (g_lock held)? */
static bool module_dl_elsewhere(void *dl, const struct CUctx_st *ctx)
{
    for (struct CUmod_st *m = g_mods; m != NULL; m = m->next)
        if (m->dl == dl && m->ctx != ctx)
            return true;
    return false;
}

static CUresult module_open(const char *path, int fd, struct CUmod_st **out);

/*
 * The file at path, loaded as a private copy (an anonymous file): the loader
 * gives a file already loaded the same object, and so the same function
 * addresses, but each context's module of the same image is a module of its
 * own, whose functions launch in its context only.
 */
static CUresult module_open_copy(const char *path, struct CUmod_st **out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return CUDA_ERROR_FILE_NOT_FOUND;
    int fd = memfd_create("fake-cuda-module-copy", MFD_CLOEXEC);
    char buf[65536];
    size_t n;
    bool ok = fd >= 0;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = write(fd, buf, n) == (ssize_t)n;
    fclose(f);
    if (!ok) {
        if (fd >= 0)
            close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    CUresult r = module_open(proc, fd, out);
    if (r != CUDA_SUCCESS)
        close(fd);
    return r;
}

static void funcs_free(struct CUmod_st *m);

static CUresult module_open(const char *path, int fd, struct CUmod_st **out)
{
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL)
        return CUDA_ERROR_INVALID_IMAGE;
    pthread_mutex_lock(&g_lock);
    bool elsewhere = module_dl_elsewhere(dl, t_ctx);
    pthread_mutex_unlock(&g_lock);
    if (elsewhere) { /* the same image loaded in another context: this one gets a copy of its own */
        dlclose(dl);
        return fd < 0 ? module_open_copy(path, out) : CUDA_ERROR_INVALID_IMAGE;
    }
    struct CUmod_st *m = (struct CUmod_st *)calloc(1, sizeof *m);
    if (m == NULL) {
        dlclose(dl);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->dl = dl;
    m->fd = fd;
    m->funcs = NULL;
    m->ctx = t_ctx;
    pthread_mutex_lock(&g_lock);
    m->next = g_mods;
    g_mods = m;
    pthread_mutex_unlock(&g_lock);
    *out = m;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleLoad(struct CUmod_st **module, const char *fname)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (module == NULL || fname == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (access(fname, R_OK) != 0)
        return CUDA_ERROR_FILE_NOT_FOUND;
    return module_open(fname, -1, module);
}

/* An image in memory: a host ELF shared object, as long as the end of its headers says. */
EXPORT CUresult cuModuleLoadData(struct CUmod_st **module, const void *image)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (module == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    Elf64_Ehdr eh;
    memcpy(&eh, image, SELFMAG);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return CUDA_ERROR_INVALID_IMAGE;
    memcpy(&eh, image, sizeof eh);
    uint64_t size = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
    uint64_t ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
    if (ph_end > size)
        size = ph_end;
    int fd = memfd_create("fake-cuda-module", MFD_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    const char *p = (const char *)image;
    for (uint64_t done = 0; done < size;) {
        ssize_t w = write(fd, p + done, size - done);
        if (w <= 0 && errno != EINTR) {
            close(fd);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        if (w > 0)
            done += (uint64_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    r = module_open(path, fd, module);
    if (r != CUDA_SUCCESS)
        close(fd);
    return r;
}

EXPORT CUresult cuModuleUnload(struct CUmod_st *m)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    if ((r = capture_unsafe()) != CUDA_SUCCESS) /* potentially unsafe while a capture restricts this thread */
        return r;
    if (m == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&g_lock); /* its globals' device addresses go; it leaves the live modules */
    for (struct CUmod_st **at = &g_mods; *at != NULL; at = &(*at)->next)
        if (*at == m) {
            *at = m->next;
            break;
        }
    for (struct alloc **p = &g_allocs; *p != NULL;) {
        struct alloc *a = *p;
        if (a->mod == m) {
            *p = a->next;
            alloc_drop(a);
        } else {
            p = &a->next;
        }
    }
    pthread_mutex_unlock(&g_lock);
    funcs_free(m);
    dlclose(m->dl);
    if (m->fd >= 0)
        close(m->fd);
    free(m);
    return CUDA_SUCCESS;
}

/* A symbol the module defines itself, of ELF type `type`; its address and size. */
static void *module_symbol(struct CUmod_st *m, const char *name, unsigned type, size_t *size)
{
    void *addr = dlsym(m->dl, name);
    struct link_map *own = NULL, *where = NULL;
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    if (addr == NULL || dlinfo(m->dl, RTLD_DI_LINKMAP, &own) != 0 ||
        dladdr1(addr, &info, (void **)&where, RTLD_DL_LINKMAP) == 0 || where != own ||
        dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
        ELF64_ST_TYPE(sym->st_info) != type)
        return NULL;
    *size = (size_t)sym->st_size;
    return addr;
}

/* ------------------------------------------------------------------------
 * Functions: the parameters and block limit a stand-in kernel declares
 * ------------------------------------------------------------------------ */

/*
 * A CUfunction: a record of the module's per kernel name (the same one for
 * every lookup), with what the stand-in declares of the kernel (the head
 * comment, rule 10): its parameters (fakecuda_params_<name>: n, then n
 * pairs of offset and size) and its most threads per block
 * (fakecuda_max_threads_<name>, else 1024).
 */
#define FAKE_MAX_BLOCK 1024u
#define FAKE_PARAMS_UNKNOWN UINT32_MAX

struct fake_func {
    struct fake_func *next; /* in its module's list */
    host_kernel_fn fn;
    char *name;
    uint32_t max_threads;
    uint32_t params;        /* FAKE_PARAMS_UNKNOWN: not declared */
    uint32_t param_bytes;   /* the last parameter's end */
    const uint32_t *layout; /* [2 * params]: offset, size (the module's symbol) */
};

static void funcs_free(struct CUmod_st *m)
{
    for (struct fake_func *f = m->funcs, *next; f != NULL; f = next) {
        next = f->next;
        free(f->name);
        free(f);
    }
    m->funcs = NULL;
}

/* The module's record of kernel `name` (made at the first lookup); NULL: no such kernel, or no memory (*r). */
static struct fake_func *func_of(struct CUmod_st *m, const char *name, CUresult *r)
{
    pthread_mutex_lock(&g_lock);
    struct fake_func *f = m->funcs;
    while (f != NULL && strcmp(f->name, name) != 0)
        f = f->next;
    pthread_mutex_unlock(&g_lock);
    if (f != NULL)
        return f;
    size_t size;
    void *fn = module_symbol(m, name, STT_FUNC, &size);
    if (fn == NULL) {
        *r = CUDA_ERROR_NOT_FOUND;
        return NULL;
    }
    char sym[256];
    f = (struct fake_func *)calloc(1, sizeof *f);
    if (f == NULL || (f->name = strdup(name)) == NULL) {
        free(f);
        *r = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    memcpy(&f->fn, &fn, sizeof fn);
    f->max_threads = FAKE_MAX_BLOCK;
    snprintf(sym, sizeof sym, "fakecuda_max_threads_%s", name);
    const uint32_t *most = (const uint32_t *)module_symbol(m, sym, STT_OBJECT, &size);
    if (most != NULL && size == sizeof *most && *most > 0 && *most < FAKE_MAX_BLOCK)
        f->max_threads = *most;
    f->params = FAKE_PARAMS_UNKNOWN;
    snprintf(sym, sizeof sym, "fakecuda_params_%s", name);
    const uint32_t *decl = (const uint32_t *)module_symbol(m, sym, STT_OBJECT, &size);
    if (decl != NULL && size >= sizeof *decl && size == (1 + 2 * (size_t)decl[0]) * sizeof *decl) {
        f->params = decl[0];
        f->layout = decl + 1;
        for (uint32_t i = 0; i < f->params; i++)
            f->param_bytes = f->layout[2 * i] + f->layout[2 * i + 1];
    }
    pthread_mutex_lock(&g_lock);
    struct fake_func *other = m->funcs; /* another thread's lookup of the same name may have made it first */
    while (other != NULL && strcmp(other->name, name) != 0)
        other = other->next;
    if (other == NULL) {
        f->next = m->funcs;
        m->funcs = f;
    }
    pthread_mutex_unlock(&g_lock);
    if (other != NULL) {
        free(f->name);
        free(f);
        f = other;
    }
    return f;
}

/* Is f a function handed out by a module of ctx? */
static bool function_of(const void *f, const struct CUctx_st *ctx)
{
    bool found = false;
    pthread_mutex_lock(&g_lock);
    for (struct CUmod_st *m = g_mods; m != NULL && !found; m = m->next)
        for (struct fake_func *fn = m->ctx == ctx ? m->funcs : NULL; fn != NULL && !found; fn = fn->next)
            found = (const void *)fn == f;
    pthread_mutex_unlock(&g_lock);
    return found;
}

EXPORT CUresult cuModuleGetFunction(void **hfunc, struct CUmod_st *m, const char *name)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (hfunc == NULL || m == NULL || name == NULL)
        return m == NULL ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    if (m->ctx != t_ctx) /* a module is its context's */
        return CUDA_ERROR_INVALID_CONTEXT;
    struct fake_func *f = func_of(m, name, &r);
    if (f == NULL)
        return r;
    *hfunc = f;
    return CUDA_SUCCESS;
}

/* A stand-in kernel's declared parameters; CUDA_ERROR_NOT_SUPPORTED where it declares none (not known). */
EXPORT CUresult cuFuncGetParamInfo(void *func, size_t index, size_t *offset, size_t *size)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    const struct fake_func *f = (const struct fake_func *)func;
    if (f == NULL || offset == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (f->params == FAKE_PARAMS_UNKNOWN)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (index >= f->params) /* as the driver: the index must be less than the number of parameters */
        return CUDA_ERROR_INVALID_VALUE;
    *offset = f->layout[2 * index];
    if (size != NULL)
        *size = f->layout[2 * index + 1];
    return CUDA_SUCCESS;
}

/* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (0) only: the stand-in's declared limit, else 1024. */
EXPORT CUresult cuFuncGetAttribute(int *value, unsigned attribute, void *func)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    const struct fake_func *f = (const struct fake_func *)func;
    if (f == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (value == NULL || attribute != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *value = (int)f->max_threads;
    return CUDA_SUCCESS;
}

/* Tests: the parameter buffer size of the last kernel launched (or captured). */
static _Atomic size_t g_launch_bytes;

EXPORT size_t fakecuda_launch_bytes(void)
{
    return atomic_load(&g_launch_bytes);
}

/*
 * Rule 10: a launch's parameter buffer of `size` bytes must be the kernel's
 * exactly (CUDA_ERROR_INVALID_VALUE, as the driver answers a size with tail
 * padding), its block at most the kernel's threads
 * (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: cuda.h's code for a launch with too
 * many threads for the kernel). Not where the stand-in declares nothing.
 */
static CUresult launch_check(const struct fake_func *f, unsigned threads, bool sized, size_t size)
{
    if (g_any_launch)
        return CUDA_SUCCESS;
    if (threads > f->max_threads)
        return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    if (f->params != FAKE_PARAMS_UNKNOWN && (sized ? size : 0) != f->param_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, struct CUmod_st *m, const char *name)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (m == NULL || name == NULL)
        return m == NULL ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    size_t size = 0;
    void *v = module_symbol(m, name, STT_OBJECT, &size);
    if (v == NULL)
        return CUDA_ERROR_NOT_FOUND;
    uintptr_t dev = (uintptr_t)v;
    if (!g_host_access) { /* a device address of its own (once per global), its bytes the module's variable */
        pthread_mutex_lock(&g_lock);
        struct alloc *a = g_allocs;
        while (a != NULL && !(a->mod == m && a->p == v))
            a = a->next;
        if (a == NULL && (a = (struct alloc *)calloc(1, sizeof *a)) != NULL) {
            a->res = -1;
            if ((a->dev = va_alloc(alloc_span(size))) == 0) {
                free(a);
                a = NULL;
            } else {
                a->p = v;
                a->size = size; /* the variable's own bytes: a copy past them is refused */
                a->ctx = t_ctx;
                a->mod = m;
                a->next = g_allocs;
                g_allocs = a;
            }
        }
        pthread_mutex_unlock(&g_lock);
        if (a == NULL)
            return CUDA_ERROR_OUT_OF_MEMORY;
        dev = a->dev;
    }
    if (dptr != NULL)
        *dptr = (CUdeviceptr)dev;
    if (bytes != NULL)
        *bytes = size;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, struct CUstream_st *s, void **params, void **extra)
{
    ENTRY();
    (void)shared;
    if (f == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || bx * by * bz > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    if (params != NULL) /* the fake takes the packed buffer only (or nothing: a kernel without parameters) */
        return CUDA_ERROR_INVALID_VALUE;
    static const char no_params = 0;
    const void *buf = extra == NULL ? &no_params : NULL;
    size_t size = 0;
    bool sized = extra == NULL;
    for (size_t i = 0; extra != NULL && extra[i] != (void *)0; i += 2) {
        if (extra[i] == (void *)1)
            buf = extra[i + 1];
        else if (extra[i] == (void *)2 && extra[i + 1] != NULL) {
            memcpy(&size, extra[i + 1], sizeof size);
            sized = true;
        } else
            return CUDA_ERROR_INVALID_VALUE;
    }
    if (buf == NULL || !sized)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    /* "The CUDA context associated with this stream must match that associated with function f." */
    if (!function_of(f, s->ctx))
        return CUDA_ERROR_INVALID_HANDLE;
    const struct fake_func *ff = (const struct fake_func *)f;
    r = launch_check(ff, bx * by * bz, extra != NULL, size);
    if (r != CUDA_SUCCESS)
        return r;
    void *copy = malloc(size != 0 ? size : 1);
    if (copy == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(copy, buf, size);
    bool unreachable = xlate_args(copy, size, s->ctx);
    struct op o = {.kind = OP_KERNEL, .src = copy, .n = size, .value = (uint64_t)gx * gy * gz, .kernel = ff->fn};
    if (unreachable) /* another device's memory without peer access: the kernel faults when it runs */
        o.fail = g_kernel_fault_recovers ? 1 : 2;
    r = enqueue(s, &o);
    if (r != CUDA_SUCCESS)
        free(copy);
    else
        atomic_store(&g_launch_bytes, size);
    return r;
}

/* ------------------------------------------------------------------------
 * Graphs: stream capture, instantiation, launch
 * ------------------------------------------------------------------------ */

static void graph_free(struct CUgraph_st *g)
{
    while (g->head != NULL) {
        struct op *o = g->head;
        g->head = o->next;
        op_free(o);
    }
    free(g);
}

static void exec_put(struct CUgraphExec_st *x)
{
    pthread_mutex_lock(&x->lock);
    bool last = --x->refs == 0;
    pthread_mutex_unlock(&x->lock);
    if (!last)
        return;
    for (size_t i = 0; i < x->n; i++)
        if (x->ops[i].kind == OP_KERNEL)
            free((void *)x->ops[i].src);
    free(x->ops);
    pthread_mutex_destroy(&x->lock);
    pthread_cond_destroy(&x->cond);
    free(x);
    atomic_fetch_sub(&g_graph_execs, 1);
}

/* Tests: the next n instantiations fail with CUDA_ERROR_OUT_OF_MEMORY (n < 0: every one; 0: none). */
EXPORT void fakecuda_graph_fail(int n)
{
    atomic_store(&g_graph_fail, n < 0 ? -1 : n);
}

/* Tests: graph launches made so far (cuGraphLaunch calls that succeeded). */
EXPORT uint64_t fakecuda_graph_launches(void)
{
    return atomic_load(&g_graph_launches);
}

/* Tests: executable graphs alive (instantiated, not freed yet). */
EXPORT int fakecuda_graph_execs(void)
{
    return atomic_load(&g_graph_execs);
}

/* Is this instantiation to fail (the knob, or ACLRT_FAKE_CUDA_GRAPH_FAIL=1 before any setting)? */
static bool graph_fail_now(void)
{
    int n = atomic_load(&g_graph_fail);
    if (n == -2) {
        int want = env_int("ACLRT_FAKE_CUDA_GRAPH_FAIL", 0) != 0 ? -1 : 0;
        atomic_compare_exchange_strong(&g_graph_fail, &n, want);
        n = atomic_load(&g_graph_fail);
    }
    while (n > 0 && !atomic_compare_exchange_weak(&g_graph_fail, &n, n - 1))
        ;
    return n != 0;
}

/* ------------------------------------------------------------------------
 * Capture rules: capture sequences, the calls they forbid, forks and joins
 *
 * A capture sequence begins on one stream (its origin) and ends there; an
 * event recorded in it and waited for by another stream pulls that stream
 * in (a fork: its operations go to the same graph, in call order), and a
 * stream of the sequence waiting for an event recorded on a forked stream
 * after its last operation joins it. All of it under g_cap_lock; g_capturing
 * counts the live sequences, so that calls made while none is live do not
 * take the lock.
 * ------------------------------------------------------------------------ */

#define CAPTURE_MODE_GLOBAL 0u
#define CAPTURE_MODE_THREAD_LOCAL 1u
#define CAPTURE_MODE_RELAXED 2u

struct fake_capture {
    struct fake_capture *next;   /* the live sequences */
    struct CUgraph_st *graph;
    struct CUctx_st *ctx;
    struct CUstream_st *origin;  /* where it began, and must end */
    struct CUstream_st *members; /* the streams in it, the origin included (through cap_next) */
    unsigned mode;
    pthread_t thread;            /* the thread that began it */
    uint64_t id;
    bool invalid;                /* a rule was broken: its end returns no graph */
};

static pthread_mutex_t g_cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_capture *g_captures; /* (g_cap_lock) */
static uint64_t g_capture_ids;          /* (g_cap_lock) */
static _Atomic int g_capturing;         /* live capture sequences */
/* The thread's capture interaction mode (cuThreadExchangeStreamCaptureMode): GLOBAL unless it says otherwise. */
static _Thread_local unsigned t_cap_mode __attribute__((tls_model("initial-exec")));

/*
 * A potentially unsafe call (an allocation, a free, a synchronous copy or
 * set, a module's load or unload, a context's synchronize) from this
 * thread, as cuThreadExchangeStreamCaptureMode documents: refused
 * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) while this thread has a capture
 * sequence of its own begun in GLOBAL or THREAD_LOCAL mode, or (the thread
 * in GLOBAL mode, the default) another thread has one begun in GLOBAL mode;
 * those sequences are invalidated.
 */
static CUresult capture_unsafe(void)
{
    if (atomic_load(&g_capturing) == 0 || t_cap_mode == CAPTURE_MODE_RELAXED)
        return CUDA_SUCCESS;
    bool hit = false;
    pthread_t me = pthread_self();
    pthread_mutex_lock(&g_cap_lock);
    for (struct fake_capture *c = g_captures; c != NULL; c = c->next) {
        bool mine = pthread_equal(c->thread, me) != 0;
        if ((mine && c->mode != CAPTURE_MODE_RELAXED) ||
            (!mine && c->mode == CAPTURE_MODE_GLOBAL && t_cap_mode == CAPTURE_MODE_GLOBAL)) {
            c->invalid = true;
            hit = true;
        }
    }
    pthread_mutex_unlock(&g_cap_lock);
    return hit ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* A call that cannot be captured, on a stream of a capture sequence (any mode): the sequence is invalidated. */
static CUresult capture_conflict(struct CUstream_st *s)
{
    if (atomic_load(&g_capturing) == 0)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&g_cap_lock);
    struct fake_capture *c = s->capture;
    if (c != NULL)
        c->invalid = true;
    pthread_mutex_unlock(&g_cap_lock);
    return c != NULL ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* The context's synchronize: it would wait for the streams of its capture sequences, which it invalidates. */
static CUresult capture_context(struct CUctx_st *ctx)
{
    if (atomic_load(&g_capturing) == 0)
        return CUDA_SUCCESS;
    bool hit = false;
    pthread_mutex_lock(&g_cap_lock);
    for (struct fake_capture *c = g_captures; c != NULL; c = c->next)
        if (c->ctx == ctx) {
            c->invalid = true;
            hit = true;
        }
    pthread_mutex_unlock(&g_cap_lock);
    return hit ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/*
 * Is a blocking stream (made without CU_STREAM_NON_BLOCKING) of the current
 * context in a capture sequence? Work on the legacy NULL stream would wait
 * for it (implicit synchronization): CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, the
 * sequence invalidated when `invalidate`. Otherwise the legacy stream is not
 * modelled: CUDA_ERROR_INVALID_HANDLE.
 */
static CUresult capture_legacy_check(bool invalidate)
{
    if (atomic_load(&g_capturing) == 0 || t_ctx == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&g_lock);
    struct CUstream_st *list = t_ctx->streams;
    pthread_mutex_unlock(&g_lock);
    bool hit = false;
    pthread_mutex_lock(&g_cap_lock);
    for (struct CUstream_st *s = list; s != NULL; s = s->next)
        if (s->capture != NULL && (s->flags & 1u) == 0) {
            if (invalidate)
                s->capture->invalid = true;
            hit = true;
        }
    pthread_mutex_unlock(&g_cap_lock);
    return hit ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult capture_legacy(void)
{
    return capture_legacy_check(true);
}

/*
 * An operation for stream s: when s is in a capture sequence, it goes to
 * the sequence's graph (true, *r the call's result) instead of the queue.
 * Event records and waits come here only as operations the capture does not
 * model; a graph launch is not captured: both invalidate the sequence.
 */
static bool capture_take(struct CUstream_st *s, struct op *n, CUresult *r)
{
    if (atomic_load(&g_capturing) == 0)
        return false;
    pthread_mutex_lock(&g_cap_lock);
    struct fake_capture *c = s->capture;
    if (c == NULL) {
        pthread_mutex_unlock(&g_cap_lock);
        return false;
    }
    if (n->kind == OP_TASK) { /* the NCCL double's work is not captured: refused, the sequence left as it is */
        pthread_mutex_unlock(&g_cap_lock);
        free(n);
        *r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        return true;
    }
    bool was_invalid = c->invalid;
    bool ok = !was_invalid && n->kind != OP_RECORD && n->kind != OP_WAIT_EVENT && n->kind != OP_GRAPH;
    if (ok) {
        struct CUgraph_st *g = c->graph;
        if (g->tail != NULL)
            g->tail->next = n;
        else
            g->head = n;
        g->tail = n;
        g->n++;
        s->cap_ops++;
    } else {
        c->invalid = true;
    }
    pthread_mutex_unlock(&g_cap_lock);
    if (!ok)
        free(n); /* the caller keeps what it owns (a kernel's copy, an event's reference) */
    *r = ok ? CUDA_SUCCESS
            : was_invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return true;
}

/* The live sequence with this id (g_cap_lock held), or NULL. */
static struct fake_capture *capture_find(uint64_t id)
{
    struct fake_capture *c = g_captures;
    while (c != NULL && c->id != id)
        c = c->next;
    return c;
}

/* A record on a stream of a capture sequence: a point of its graph (true), not a record that runs. */
static bool capture_record(struct CUevent_st *e, struct CUstream_st *s, CUresult *r)
{
    if (s == NULL || (atomic_load(&g_capturing) == 0 && atomic_load(&e->cap_id) == 0))
        return false;
    if ((*r = enter()) != CUDA_SUCCESS)
        return true;
    pthread_mutex_lock(&g_cap_lock);
    struct fake_capture *c = s->capture;
    if (c == NULL) {
        atomic_store(&e->cap_id, 0); /* recorded outside a capture from now on */
    } else if (c->invalid) {
        *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else {
        atomic_store(&e->cap_id, c->id);
        e->cap_stream = s;
        e->cap_pos = s->cap_ops;
    }
    pthread_mutex_unlock(&g_cap_lock);
    return c != NULL;
}

/*
 * A wait where a capture sequence is concerned (true, *r the result): an
 * event of a sequence waited for by a stream outside any forks that stream
 * into it; by a stream of the same sequence, it joins the recorded stream's
 * operations up to the record; by a stream of another sequence, it would
 * merge the two (CUDA_ERROR_STREAM_CAPTURE_MERGE). A stream in a sequence
 * waiting for an event recorded outside it crosses the sequence's boundary
 * (CUDA_ERROR_STREAM_CAPTURE_ISOLATION; an external wait, flag 1, is not
 * modelled: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED). An event whose sequence
 * ended has nothing to wait for (CUDA_ERROR_CAPTURED_EVENT).
 */
static bool capture_wait(struct CUstream_st *s, struct CUevent_st *e, unsigned flags, CUresult *r)
{
    if (s == NULL || (atomic_load(&g_capturing) == 0 && atomic_load(&e->cap_id) == 0))
        return false;
    if ((*r = enter()) != CUDA_SUCCESS)
        return true;
    bool handled = true;
    pthread_mutex_lock(&g_cap_lock);
    uint64_t id = atomic_load(&e->cap_id);
    struct fake_capture *sc = s->capture, *ec = id != 0 ? capture_find(id) : NULL;
    if (sc == NULL && ec == NULL) {
        if (id != 0)
            *r = CUDA_ERROR_CAPTURED_EVENT;
        else
            handled = false; /* an ordinary wait */
    } else if (sc == NULL) { /* a fork */
        if (ec->invalid) {
            *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        } else {
            s->capture = ec;
            s->cap_ops = s->cap_joined = 0;
            s->cap_next = ec->members;
            ec->members = s;
        }
    } else if (sc->invalid) {
        *r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else if (ec == sc) { /* a join (the graph is in call order: the dependency holds) */
        struct CUstream_st *from = e->cap_stream;
        if (from != s && from->capture == sc && e->cap_pos > from->cap_joined)
            from->cap_joined = e->cap_pos;
    } else {
        sc->invalid = true;
        if (ec != NULL)
            *r = CUDA_ERROR_STREAM_CAPTURE_MERGE;
        else /* an external wait (flag 1) is not modelled */
            *r = (flags & 1u) != 0 ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    }
    pthread_mutex_unlock(&g_cap_lock);
    return handled;
}

/* Take the sequence off the list, its streams out of it (g_cap_lock held). */
static void capture_unlist(struct fake_capture *c)
{
    struct fake_capture **at = &g_captures;
    while (*at != c)
        at = &(*at)->next;
    *at = c->next;
    for (struct CUstream_st *m = c->members, *next; m != NULL; m = next) {
        next = m->cap_next;
        m->capture = NULL;
        m->cap_next = NULL;
    }
    atomic_fetch_sub(&g_capturing, 1);
}

/* Stream s goes with its context: a sequence begun on it goes too. */
static void capture_forget(struct CUstream_st *s)
{
    pthread_mutex_lock(&g_cap_lock);
    struct fake_capture *c = s->capture;
    if (c != NULL && c->origin == s) {
        capture_unlist(c);
    } else if (c != NULL) { /* a forked stream: out of the sequence's list */
        struct CUstream_st **at = &c->members;
        while (*at != s)
            at = &(*at)->cap_next;
        *at = s->cap_next;
        s->capture = NULL;
        c = NULL;
    }
    pthread_mutex_unlock(&g_cap_lock);
    if (c != NULL) {
        graph_free(c->graph);
        free(c);
    }
}

EXPORT CUresult cuThreadExchangeStreamCaptureMode(unsigned *mode)
{
    ENTRY();
    if (mode == NULL || *mode > CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned old = t_cap_mode;
    t_cap_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

/* CU_STREAM_CAPTURE_STATUS_NONE 0, _ACTIVE 1, _INVALIDATED 2. */
EXPORT CUresult cuStreamIsCapturing(struct CUstream_st *s, unsigned *status)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (status == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (s == NULL) { /* the legacy stream: implicitly dependent on a capturing blocking stream (not invalidated) */
        if (capture_legacy_check(false) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
            return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        *status = 0;
        return CUDA_SUCCESS;
    }
    pthread_mutex_lock(&g_cap_lock);
    *status = s->capture == NULL ? 0u : s->capture->invalid ? 2u : 1u;
    pthread_mutex_unlock(&g_cap_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamBeginCapture_v2(struct CUstream_st *s, unsigned mode)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL) /* the legacy default stream cannot be captured */
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (mode > CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    struct fake_capture *c = (struct fake_capture *)calloc(1, sizeof *c);
    struct CUgraph_st *g = (struct CUgraph_st *)calloc(1, sizeof *g);
    if (c == NULL || g == NULL) {
        free(c);
        free(g);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    g->ctx = s->ctx;
    *c = (struct fake_capture){.graph = g, .ctx = s->ctx, .origin = s, .members = s, .mode = mode,
                               .thread = pthread_self()};
    pthread_mutex_lock(&g_cap_lock);
    bool busy = s->capture != NULL;
    if (!busy) {
        c->id = ++g_capture_ids;
        c->next = g_captures;
        g_captures = c;
        s->capture = c;
        s->cap_ops = s->cap_joined = 0;
        s->cap_next = NULL;
        atomic_fetch_add(&g_capturing, 1);
    }
    pthread_mutex_unlock(&g_cap_lock);
    if (busy) {
        free(g);
        free(c);
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    return CUDA_SUCCESS;
}

/*
 * The end, on the origin (elsewhere: CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, the
 * sequence invalidated), from the thread that began it unless it is relaxed
 * (CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, the sequence goes on). Every
 * stream leaves it; the graph, unless the sequence was invalidated
 * (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) or a forked stream has operations
 * after its last join (CUDA_ERROR_STREAM_CAPTURE_UNJOINED).
 */
EXPORT CUresult cuStreamEndCapture(struct CUstream_st *s, struct CUgraph_st **graph)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL || graph == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *graph = NULL;
    bool ended = false;
    pthread_mutex_lock(&g_cap_lock);
    struct fake_capture *c = s->capture;
    if (c == NULL) {
        r = CUDA_ERROR_ILLEGAL_STATE;
    } else if (c->origin != s) {
        c->invalid = true;
        r = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    } else if (c->mode != CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
        r = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    } else {
        bool unjoined = false;
        for (struct CUstream_st *m = c->members; m != NULL; m = m->cap_next)
            if (m != s && m->cap_ops > m->cap_joined)
                unjoined = true;
        r = c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
            : unjoined ? CUDA_ERROR_STREAM_CAPTURE_UNJOINED
                       : CUDA_SUCCESS;
        capture_unlist(c);
        ended = true;
    }
    pthread_mutex_unlock(&g_cap_lock);
    if (!ended)
        return r;
    struct CUgraph_st *g = c->graph;
    free(c);
    if (r != CUDA_SUCCESS) {
        graph_free(g);
        return r;
    }
    pthread_mutex_lock(&g_lock);
    g->next = g_graphs;
    g_graphs = g;
    pthread_mutex_unlock(&g_lock);
    *graph = g;
    return CUDA_SUCCESS;
}

/* Take a live graph out of the list (true), or say it is not one. */
static bool graph_unlist(struct CUgraph_st *g)
{
    pthread_mutex_lock(&g_lock);
    struct CUgraph_st **at = &g_graphs;
    while (*at != NULL && *at != g)
        at = &(*at)->next;
    bool live = *at != NULL;
    if (live)
        *at = g->next;
    pthread_mutex_unlock(&g_lock);
    return live;
}

EXPORT CUresult cuGraphDestroy(struct CUgraph_st *g)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (g == NULL || !graph_unlist(g))
        return CUDA_ERROR_INVALID_VALUE;
    graph_free(g);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphInstantiateWithFlags(struct CUgraphExec_st **exec, struct CUgraph_st *g, unsigned long long flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (exec == NULL || g == NULL || flags > 15)
        return CUDA_ERROR_INVALID_VALUE;
    if (graph_fail_now())
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUgraphExec_st *x = (struct CUgraphExec_st *)calloc(1, sizeof *x);
    if (x == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* The graph is read under the list's lock: a graph destroyed meanwhile is not one any more. */
    pthread_mutex_lock(&g_lock);
    struct CUgraph_st *at = g_graphs;
    while (at != NULL && at != g)
        at = at->next;
    r = at == NULL ? CUDA_ERROR_INVALID_VALUE : g->ctx != t_ctx ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && g->n > 0 && (x->ops = (struct op *)calloc(g->n, sizeof *x->ops)) == NULL)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    size_t n = 0;
    for (struct op *o = r == CUDA_SUCCESS ? g->head : NULL; o != NULL; o = o->next, n++) {
        x->ops[n] = *o;
        x->ops[n].next = NULL;
        if (o->kind == OP_KERNEL) { /* the executable graph's own copy of the parameters */
            void *copy = malloc(o->n != 0 ? o->n : 1);
            if (copy == NULL) {
                r = CUDA_ERROR_OUT_OF_MEMORY;
                break;
            }
            memcpy(copy, o->src, o->n);
            x->ops[n].src = copy;
        }
    }
    if (r != CUDA_SUCCESS) {
        pthread_mutex_unlock(&g_lock);
        for (size_t i = 0; i < n; i++)
            if (x->ops[i].kind == OP_KERNEL)
                free((void *)x->ops[i].src);
        free(x->ops);
        free(x);
        return r;
    }
    x->n = n;
    x->ctx = g->ctx;
    x->refs = 1;
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->cond, NULL);
    x->next = g_execs;
    g_execs = x;
    atomic_fetch_add(&g_graph_execs, 1);
    pthread_mutex_unlock(&g_lock);
    *exec = x;
    return CUDA_SUCCESS;
}

/* A live executable graph, with a reference for the caller (NULL: not one). */
static struct CUgraphExec_st *exec_get(struct CUgraphExec_st *x)
{
    pthread_mutex_lock(&g_lock);
    struct CUgraphExec_st *at = g_execs;
    while (at != NULL && at != x)
        at = at->next;
    if (at != NULL) {
        pthread_mutex_lock(&x->lock);
        x->refs++;
        pthread_mutex_unlock(&x->lock);
    }
    pthread_mutex_unlock(&g_lock);
    return at;
}

EXPORT CUresult cuGraphExecDestroy(struct CUgraphExec_st *x)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS && !lost_ok(r))
        return r;
    pthread_mutex_lock(&g_lock);
    struct CUgraphExec_st **at = &g_execs;
    while (x != NULL && *at != NULL && *at != x)
        at = &(*at)->next;
    bool live = x != NULL && *at != NULL;
    if (live)
        *at = x->next;
    pthread_mutex_unlock(&g_lock);
    if (!live)
        return CUDA_ERROR_INVALID_VALUE;
    exec_put(x); /* pending launches keep it until they ran */
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphLaunch(struct CUgraphExec_st *x, struct CUstream_st *s)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (x == NULL || exec_get(x) == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (x->ctx != s->ctx) {
        exec_put(x);
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* The ticket and the queue's place together: launches run in the order they were made. */
    pthread_mutex_lock(&x->lock);
    struct op o = {.kind = OP_GRAPH, .exec = x, .seq = x->tickets++};
    r = enqueue(s, &o);
    if (r != CUDA_SUCCESS)
        x->tickets--;
    pthread_mutex_unlock(&x->lock);
    if (r != CUDA_SUCCESS) {
        exec_put(x);
        return r;
    }
    atomic_fetch_add(&g_graph_launches, 1);
    return CUDA_SUCCESS;
}

/* A launch on stream s: after the launches made before it, its operations in order, as the stream's own. */
static void graph_run(struct CUstream_st *s, struct CUgraphExec_st *x, uint64_t ticket)
{
    pthread_mutex_lock(&x->lock);
    while (x->served < ticket && atomic_load(&s->ctx->lost) == CUDA_SUCCESS) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&x->cond, &x->lock, &ts); /* a lost context is looked at every ms */
    }
    pthread_mutex_unlock(&x->lock);
    for (size_t i = 0; i < x->n && atomic_load(&s->ctx->lost) == CUDA_SUCCESS; i++) {
        op_run(s, &x->ops[i]);
        pthread_mutex_lock(&s->lock);
        CUresult e = s->error;
        pthread_mutex_unlock(&s->lock);
        if (e != CUDA_SUCCESS)
            break; /* a failed kernel: the rest of the graph does not run */
    }
}

/* A launch ran (or its context was lost): the next one may run; its reference goes. */
static void graph_launch_done(struct CUgraphExec_st *x, uint64_t ticket)
{
    pthread_mutex_lock(&x->lock);
    if (x->served < ticket + 1)
        x->served = ticket + 1;
    pthread_cond_broadcast(&x->cond);
    pthread_mutex_unlock(&x->lock);
    exec_put(x);
}

/* ------------------------------------------------------------------------
 * Peer access: what a context reaches of other devices' memory
 * ------------------------------------------------------------------------ */

/*
 * Every device can access every other one (cuDeviceCanAccessPeer says 1 for
 * two distinct devices; ACLRT_FAKE_CUDA_NO_PEER=1: 0 for every pair, and
 * enabling fails). Access is per direction, from the current context to a
 * peer context, as cuCtxEnablePeerAccess documents, and ends with either
 * context (a primary context made fresh starts with none, and none to it).
 * Strict (ACLRT_FAKE_CUDA_PEER_OPEN=1 relaxes both):
 *   - a copy (cuMemcpy, cuMemcpyAsync) between device memory of two
 *     contexts, or a set, issued in a context that has no access to the
 *     other context's memory: CUDA_ERROR_INVALID_VALUE at the call. A copy
 *     between one device's memory and host memory goes (unified addressing
 *     routes it), as do cuMemcpyPeer / cuMemcpyPeerAsync, whatever the
 *     access;
 *   - a kernel whose parameters name another context's device memory it
 *     has no access to faults when it runs: its context is lost with
 *     CUDA_ERROR_ILLEGAL_ADDRESS (as rule 6; not sticky with
 *     ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS=1).
 */

/* Access to device d's memory, from any context and to it, goes (the context d starts afresh; g_lock held). */
static void peer_forget(int device)
{
    for (int d = 0; d < FAKE_MAX_DEVICES; d++) {
        atomic_store(&g_ctx[device].peer[d], false);
        atomic_store(&g_ctx[d].peer[device], false);
    }
}

/* May work of ctx reach allocation x (device memory, or pinned host memory)? */
static bool peer_reaches(const struct CUctx_st *ctx, const struct alloc *x)
{
    return g_peer_open || x->ctx == NULL || ctx == NULL || x->ctx == ctx || atomic_load(&ctx->peer[x->ctx->device]);
}

/* The device allocation at address a, or NULL (host memory; g_lock held). */
static struct alloc *peer_alloc_at(CUdeviceptr a)
{
    return a == 0 ? NULL : dev_find((uintptr_t)a);
}

/* Does a kernel's argument buffer (not translated: host access) name device memory ctx cannot reach? */
static bool peer_args_unreachable(const void *buf, size_t size, struct CUctx_st *ctx)
{
    if (g_peer_open)
        return false;
    bool unreachable = false;
    pthread_mutex_lock(&g_lock);
    for (size_t off = 0; off + 8 <= size && !unreachable; off += 8) {
        uint64_t v;
        memcpy(&v, (const char *)buf + off, 8);
        const struct alloc *x = peer_alloc_at((CUdeviceptr)v);
        unreachable = x != NULL && !peer_reaches(ctx, x);
    }
    pthread_mutex_unlock(&g_lock);
    return unreachable;
}

/*
 * A copy (src not 0) or a set (src 0) issued in ctx: where both ends of a
 * copy are device memory, and for a set's, each must be ctx's or reachable
 * from it; a copy with a host end goes.
 */
static CUresult peer_copy_check(struct CUctx_st *ctx, CUdeviceptr dst, CUdeviceptr src)
{
    if (g_peer_open)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&g_lock);
    const struct alloc *d = peer_alloc_at(dst), *from = src != 0 ? peer_alloc_at(src) : NULL;
    bool ok;
    if (src == 0)
        ok = d == NULL || peer_reaches(ctx, d);
    else
        ok = d == NULL || from == NULL || (peer_reaches(ctx, d) && peer_reaches(ctx, from));
    pthread_mutex_unlock(&g_lock);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A live primary context of the double (retained), or NULL. */
static struct CUctx_st *peer_ctx_live(struct CUctx_st *c)
{
    if (c < &g_ctx[0] || c >= &g_ctx[FAKE_MAX_DEVICES])
        return NULL;
    pthread_mutex_lock(&g_lock);
    bool live = c->refs > 0;
    pthread_mutex_unlock(&g_lock);
    return live ? c : NULL;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, int device, int peer)
{
    ENTRY();
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (can == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (device < 0 || device >= device_count() || peer < 0 || peer >= device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    *can = device != peer && !g_no_peer;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxEnablePeerAccess(struct CUctx_st *peer, unsigned int flags)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (peer_ctx_live(peer) == NULL || peer == t_ctx) /* not a context, or the current one itself */
        return CUDA_ERROR_INVALID_CONTEXT;
    if (g_no_peer)
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    bool was = false;
    if (!atomic_compare_exchange_strong(&t_ctx->peer[peer->device], &was, true))
        return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxDisablePeerAccess(struct CUctx_st *peer)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    if (peer_ctx_live(peer) == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    bool was = true;
    if (peer == t_ctx || !atomic_compare_exchange_strong(&t_ctx->peer[peer->device], &was, false))
        return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    return CUDA_SUCCESS;
}

/* Both ends of a peer copy: device memory of the context named for it, all n bytes. */
static CUresult peer_copy_ends(CUdeviceptr dst, struct CUctx_st *dst_ctx, CUdeviceptr src, struct CUctx_st *src_ctx,
                               size_t n, void **d, void **from)
{
    if (peer_ctx_live(dst_ctx) == NULL || peer_ctx_live(src_ctx) == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r;
    if ((r = atomic_load(&dst_ctx->lost)) != CUDA_SUCCESS || (r = atomic_load(&src_ctx->lost)) != CUDA_SUCCESS)
        return r;
    if (n == 0)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&g_lock);
    const struct alloc *a = peer_alloc_at(dst), *b = peer_alloc_at(src);
    bool ok = a != NULL && b != NULL && a->ctx == dst_ctx && b->ctx == src_ctx;
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = xlate(dst, n, d)) != CUDA_SUCCESS || (r = xlate(src, n, from)) != CUDA_SUCCESS)
        return r;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, struct CUctx_st *dst_ctx, CUdeviceptr src, struct CUctx_st *src_ctx,
                             size_t n)
{
    ENTRY();
    CUresult r = enter();
    if (r != CUDA_SUCCESS)
        return r;
    void *d = NULL, *from = NULL;
    if ((r = peer_copy_ends(dst, dst_ctx, src, src_ctx, n, &d, &from)) != CUDA_SUCCESS)
        return r;
    if (n > 0)
        copy_bytes(d, from, n);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, struct CUctx_st *dst_ctx, CUdeviceptr src,
                                  struct CUctx_st *src_ctx, size_t n, struct CUstream_st *s)
{
    ENTRY();
    void *d = NULL, *from = NULL;
    CUresult r = peer_copy_ends(dst, dst_ctx, src, src_ctx, n, &d, &from);
    if (r != CUDA_SUCCESS)
        return r;
    struct op o = {.kind = OP_COPY, .dst = d, .src = from, .n = n};
    return enqueue(s, &o);
}

/* Tests: has the context of device `from` access to device `to`'s memory (cuCtxEnablePeerAccess)? */
EXPORT int fakecuda_peer_enabled(int from, int to)
{
    if (from < 0 || from >= FAKE_MAX_DEVICES || to < 0 || to >= FAKE_MAX_DEVICES)
        return -1;
    return atomic_load(&g_ctx[from].peer[to]);
}
