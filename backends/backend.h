/*
 * backends/backend.h - the contract between the core (impl/) and a
 * backend, both ways.
 *
 * The core owns the objects and their semantics: handles, each stream's
 * task ring and its three counts (submitted, issued, completed), event
 * captures, parking, failure handling. A backend owns execution: which
 * thread runs a stream and when, what a device is, where memory lives. The
 * core never assumes an executor; the host backend (backends/host/host.h) is
 * one backend among others and uses nothing but what this file lists.
 *
 * Core -> backend: struct aclrt_backend, the hooks below.
 * Backend -> core: the entry points at the end of this file (defined in
 * impl/exec/exec.h, impl/stream/stream_complete.h, impl/stream/wait_task.h).
 *
 * Rules for a backend:
 *   - schedule(dev, s) means: stream s is READY and has work; some thread
 *     must take it (aclrt_stream_take) and run it (aclrt_stream_run) soon.
 *     The core calls it once per READY period; after the call the stream
 *     belongs to whoever takes it (it may be freed as soon as it ran), so
 *     the hook reads what it needs of s before publishing it.
 *   - A stream is held by one thread at a time, from take (or from a run
 *     that returned ACLRT_HOLD_EMPTY or _BUDGET) until a run returns
 *     ACLRT_HOLD_NONE, aclrt_stream_release returns true or
 *     aclrt_stream_yield returns true.
 *   - has_other_work(dev) is a hint: a waiting task spins before parking
 *     only while its thread has nothing else to do. crowded(dev), another
 *     (optional): more of dev's threads are awake than there are CPUs for
 *     them, so a waiting task's spin gives its CPU away now and then
 *     (impl/core/spin_share.h).
 *   - timers_changed(dev): a parked stream's deadline became the earliest;
 *     some thread must call aclrt_device_fire_timers(dev) by then
 *     (aclrt_device_next_deadline says when).
 *   - Task kinds: `kinds` (indexed by enum aclrt_task_kind_id, impl/task/task.h)
 *     replaces the core's descriptor of each kind the backend runs
 *     natively. A kind's run that hands the task off returns
 *     ACLRT_TASK_ISSUED and the backend later calls aclrt_stream_complete_to
 *     (and aclrt_stream_fail first, if it failed). With `issue_ahead` the
 *     core goes on with the stream's next task at once (the backend's own
 *     queue keeps the order, so it overrides every kind whose effects must
 *     follow issued work); without it the stream waits for its issued work
 *     before the next task runs.
 *   - Optional hooks may be NULL; the core then does what the comment says.
 */
#ifndef ACLRT_BACKENDS_BACKEND_H
#define ACLRT_BACKENDS_BACKEND_H

#include "../impl/core/base.h"

struct aclrt_device;
struct aclrt_stream;
struct aclrt_config;
struct aclrt_task_kind;
struct aclrt_kernel_failure;
struct aclrt_task;
struct aclrt_block;
struct aclrt_hccl_args;
struct aclrt_backend_coll;

/* The bytes of a backend's handle for device memory shared between processes (ipc_export). */
#define ACLRT_BACKEND_IPC_HANDLE 64u

struct aclrt_backend {
    const char *name;
    /*
     * Whether the backend can run here (optional): aclInit asks when its
     * configuration selects the backend, so that a missing driver or device
     * fails aclInit with its reason, not the program's first device call. It
     * may load a driver; it starts nothing. NULL: nothing to check before open.
     */
    aclError (*probe)(const struct aclrt_config *config);
    /* Check that the backend can run here; report how many devices it has. */
    aclError (*open)(const struct aclrt_config *config, uint32_t *device_count);
    void (*close)(void);
    /* Bring a device up (threads, driver context) and down. dev->backend_state is the backend's. */
    aclError (*device_start)(struct aclrt_device *dev);
    void (*device_stop)(struct aclrt_device *dev);
    /*
     * A forked child's aclFinalize (optional): the process inherited the
     * started device but none of its threads, which must not be joined or
     * signalled; free what the device holds in this process and clear
     * dev->backend_state. NULL: the device's memory is left behind.
     */
    void (*device_abandon)(struct aclrt_device *dev);
    /* A stream is created (s->backend_state is the backend's; optional) or freed (optional). */
    aclError (*stream_create)(struct aclrt_stream *s);
    void (*stream_destroy)(struct aclrt_stream *s);
    /* A stream is READY: run it soon. */
    void (*schedule)(struct aclrt_device *dev, struct aclrt_stream *s);
    bool (*has_other_work)(struct aclrt_device *dev);
    bool (*crowded)(struct aclrt_device *dev);
    void (*timers_changed)(struct aclrt_device *dev);
    /*
     * aclrtStreamAbort / aclrtStreamStop began on s (optional): a backend
     * with work in flight may cancel it. The core discards what is queued.
     */
    void (*stream_abort)(struct aclrt_stream *s);
    void (*stream_stop)(struct aclrt_stream *s);
    /*
     * aclrtxDeviceProgress: run ready work of dev on the calling thread
     * (optional: without it the call is not supported). The core never
     * calls it while the device starts or stops. A backend without threads
     * of its own signals the device's eventfd (aclrt_progress_event_fd) when
     * work arrives.
     */
    aclError (*progress)(struct aclrt_device *dev, uint32_t budget, aclrtxProgressInfo *info);
    /*
     * Host kernel blocks (optional): run fn for blocks [0, blocks) and return
     * the first failing block's code; may spread them over idle threads.
     * NULL: the core runs them in order on the calling thread.
     */
    aclError (*run_kernel)(struct aclrt_device *dev, aclrtxHostKernel fn, uint32_t blocks, void *args);
    const struct aclrt_task_kind *const *kinds;
    bool issue_ahead;
    /*
     * Memory. Device memory (required); pinned host memory (optional:
     * aligned host memory); synchronous copies and sets on the device's
     * memory (optional: memmove / memset, host-addressable memory).
     */
    aclError (*mem_alloc)(struct aclrt_device *dev, size_t size, void **out);
    void (*mem_free)(struct aclrt_device *dev, void *ptr);
    aclError (*host_alloc)(size_t size, void **out);
    void (*host_free)(void *ptr);
    aclError (*mem_copy)(void *dst, const void *src, size_t count, aclrtMemcpyKind kind);
    aclError (*mem_set)(void *dst, int value, size_t count);
    /*
     * Host memory now stands for a device's memory, or no longer does
     * (optional): physical memory mapped with aclrtMapMem, memory imported
     * from another process. A backend whose device cannot reach host memory
     * by itself makes it reachable (the cuda backend registers it with the
     * driver). Called outside the runtime's locks' reach of its callbacks.
     */
    void (*mem_mapped)(void *p, size_t size, bool mapped);
    /*
     * Peer access between two distinct devices (optional; NULL: every pair
     * can reach each other and there is nothing to set up, as on the host
     * backend). peer_can says whether `dev` can reach `peer`'s memory
     * (aclrtDeviceCanAccessPeer; the devices need not be started).
     * peer_set turns the backend's access from `dev` (started, the calling
     * thread's current device) to `peer` on or off; the core calls it for
     * aclrtDeviceEnablePeerAccess before it records the access (a failure
     * returns its code, nothing recorded) and for
     * aclrtDeviceDisablePeerAccess after it forgot it; both calls are
     * idempotent for the core (enabling twice, disabling what is off
     * succeed), so the backend takes its driver's "already" answers for
     * success.
     */
    aclError (*peer_can)(uint32_t dev, uint32_t peer, bool *can);
    aclError (*peer_set)(struct aclrt_device *dev, struct aclrt_device *peer, bool on);
    /*
     * Device memory shared between processes through the backend's driver
     * (optional, the three together; impl/ipc/ipc_mem.h keeps the keys and
     * allow-lists either way). ipc_export writes into `handle` (at most
     * ACLRT_BACKEND_IPC_HANDLE bytes) what names the device allocation that
     * starts at `base` (on dev) to another process; ipc_import opens such a
     * handle on dev in this process (the allocation's address here);
     * ipc_close ends an import (its address), after the work launched
     * before the close is done. Failures return ACL's code with a message.
     * NULL: aclrtMalloc memory is shared as memory files (the host backend).
     */
    aclError (*ipc_export)(struct aclrt_device *dev, void *base, uint8_t *handle);
    aclError (*ipc_import)(struct aclrt_device *dev, const uint8_t *handle, void **base);
    void (*ipc_close)(struct aclrt_device *dev, void *base);
    /*
     * The device's sticky error (optional; NULL: it has none, as the host
     * backend's devices): an ACL code once the device can take no more work
     * (a GPU context lost to a kernel fault, for the rest of the process),
     * else ACL_SUCCESS; asked of started and stopped devices alike.
     * aclrtQueryDeviceStatus reports such a device ABNORMAL.
     */
    aclError (*device_error)(struct aclrt_device *dev);
    /* The device's clock for event timestamps, ns (optional: CLOCK_MONOTONIC). */
    uint64_t (*timestamp_ns)(struct aclrt_device *dev);
    /*
     * Device completion (optional). A backend whose device writes each
     * stream's progress into host-mapped memory stores the word's address
     * in s->device_done (release) in stream_create: one 64-bit word per
     * stream slot, kept for the backend's life, holding the number of the
     * last task of the slot the device completed (it only grows; at
     * creation it holds the slot's completed count). The core then
     *   - reads "task N of s is done" as completed >= N or word >= N
     *     (aclrt_stream_reached): a query stays a load or two;
     *   - folds the word into the completed count (aclrt_stream_fold) where
     *     it counts tasks itself: when a holder runs the stream, before a
     *     slot is freed;
     *   - stores into the word the tasks it completes on the host (a
     *     holder's task or drop, an external task's completion), which with
     *     issue_ahead happens only while no earlier task of the stream is in
     *     flight (a kind's run that finishes a task itself must wait for the
     *     issued work first, as the core's drops do);
     *   - calls stream_await(s, target) before a thread sleeps, or a stream
     *     parks, until s has completed target: the backend makes sure the
     *     count gets there (it arranges for aclrt_stream_fold to run once
     *     the device has written target). Sleepers also look at the word
     *     after short sleeps (impl/stream/stream_sync.h), so a late fold is slow,
     *     not lost.
     */
    void (*stream_await)(struct aclrt_stream *s, uint64_t target);
    /*
     * Does the device hold work of s that it finishes by itself (issued, its
     * completion not written yet)? Optional (NULL: no); any thread, atomics
     * only, for any stream slot, alive or not. Teardown counts such a
     * stream as active, as it counts one whose task runs on a host thread,
     * while it parks behind that work.
     */
    bool (*stream_device_busy)(const struct aclrt_stream *s);
    /*
     * Device timestamps (optional; with an EVENT_STAMP override). The value
     * such an override stores with aclrt_event_apply_stamp is the backend's
     * stamp (not 0), not a time: stamp_time turns it into ns on the
     * timestamp clock (aclrtEventGetTimestamp), stamp_elapsed gives the ns
     * between two stamps of one device, negative if `to` came first
     * (aclrtEventElapsedTime). Both only see stamps of completed records.
     */
    aclError (*stamp_time)(struct aclrt_device *dev, uint64_t stamp, uint64_t *ns);
    aclError (*stamp_elapsed)(struct aclrt_device *dev, uint64_t from, uint64_t to, int64_t *ns);
    /*
     * Kernel binaries (required, but for the two marked optional): the
     * backend's module loader. The core keeps the handles, the functions
     * looked up and the launches in flight (impl/kernel/binary.h) and loads
     * nothing itself: the host backend's modules are shared objects of host
     * kernels (backends/host/host_module.h), the cuda backend's the
     * driver's modules.
     *   - module_load loads the image at `path` (the real path of a regular
     *     file), or (path NULL) the `size` bytes at `image`, of which it
     *     keeps no reference; `shown` is what messages call it (the path as
     *     the caller gave it, or "the data").
     *   - module_unload: when the binary was unloaded and its last launch
     *     in flight is done, on whichever thread that is (the one that
     *     unloads it, a stream's executor, a driver's callback thread), or
     *     at once when the core has no room for a binary loaded.
     *   - module_function: a function is the backend's handle for a kernel
     *     of the module, which the core stores in the task's kernel.fn; the
     *     core's ACLRT_TASK_KERNEL calls it as a host kernel
     *     (aclrtxHostKernel), so a backend whose functions are not host
     *     code overrides that kind. *code_size: the kernel's code size in
     *     bytes (aclrtGetFunctionSize), 0 if the backend does not say.
     *   - module_global: a global's address and size.
     *   - module_address (optional): where the module lies
     *     (aclrtBinaryGetDevAddress). NULL: its handle stands for it.
     *   - module_abandon (optional): a forked child's aclFinalize, before
     *     anything is freed (impl/system/init.h): the loader's locks that a
     *     thread of the parent may have held at the fork are made usable.
     * The core calls module_function, module_global and module_address
     * with its lock of the function lists held. Failures return ACL's code
     * with a message (aclrt_fail).
     */
    aclError (*module_load)(const char *path, const char *shown, const void *image, size_t size, void **module);
    void (*module_unload)(void *module);
    aclError (*module_function)(void *module, const char *name, void **function, size_t *code_size);
    aclError (*module_global)(void *module, const char *name, void **address, size_t *size);
    aclError (*module_address)(void *module, void **address);
    void (*module_abandon)(void);
    /*
     * A function's parameters as its kernel declares them (both optional;
     * NULL: not known, and the core's own layout and any argument block
     * stand, as on the host backend). Any thread, with the function's
     * binary loaded; no driver call (the backend read them at
     * module_function).
     *   - function_layout: false if the kernel's layout is not known; else
     *     *count, its number of parameters, and for index < *count the
     *     parameter's offset and size in the argument block.
     *   - function_args: a launch's argument block of `size` bytes fits the
     *     kernel (ACL_SUCCESS), or ACL's code with a message: shorter than
     *     its parameters.
     */
    bool (*function_layout)(void *function, uint32_t index, uint32_t *count, uint32_t *offset, uint32_t *size);
    aclError (*function_args)(void *function, uint32_t size);
    /*
     * A function's entry (optional; NULL: its handle is): what
     * aclrtGetFunctionAddr gives and aclrtGetFunctionByEntry looks up (the
     * cuda backend: the CUfunction, its handle being a record of its own).
     */
    void *(*function_entry)(void *function);
    /*
     * A step of a model replayed on the host (optional): the core's replay
     * (aclrt_model_run, impl/model/model_replay.h) runs each step through it instead of
     * the step's core kind, and it returns what a kind's run returns. `t`
     * is the replay's copy of the step, `captured` the body's record (which
     * still says whether a kernel's arguments are its own copy). A backend
     * whose memory and kernels the host cannot run itself (the cuda
     * backend) runs copies, sets and kernels on the device there, and
     * hands the other steps to their core kind. NULL: the core kind.
     */
    int (*model_step)(struct aclrt_stream *s, struct aclrt_task *t, const struct aclrt_task *captured,
                      struct aclrt_block *blk);
    /*
     * Collectives through the backend's own engine (optional; the cuda
     * backend: NCCL). NULL: HCCL moves the data itself (impl/hccl/).
     */
    const struct aclrt_backend_coll *coll;
};

/* The bytes of an engine's communicator id (NCCL's ncclUniqueId), carried inside a root info. */
#define ACLRT_BACKEND_COLL_ID 128u

/*
 * A backend's collective engine (impl/hccl/hccl_backend.h drives it). Each
 * call returns HCCL's code (an HcclResult), with a line in `why` (at most
 * ACLRT_BACKEND_COLL_WHY bytes) when it fails; any thread.
 *   - open: the engine is there (loads it once); unique_id: a fresh id;
 *   - comm_init: rank `rank` of `nranks` joins the communicator `id` on
 *     dev, blocking until every rank joined (the engine's own rendezvous);
 *     comm_init_all: one communicator of n ranks, rank i on devs[i];
 *   - comm_abort: drops the communicator's work in flight (its waits on the
 *     device return) and refuses its later issues; idempotent, any thread;
 *   - comm_free: destroys it (after its work, unless aborted) and frees it;
 *   - comm_error: its asynchronous error (HCCL_SUCCESS: none);
 *   - sub_id: the id of a sub-communicator whose ranks are `members` (as
 *     ranks of `comm`, its rank 0 first; this rank is members[me]), made by
 *     its rank 0 and passed to the others over `comm`; only the members
 *     call it, each blocking until it has the id (at most until
 *     deadline_ns, CLOCK_MONOTONIC: HCCL_E_TIMEOUT);
 *   - reduces: whether it has reductions of an HcclDataType;
 *   - issue: one rank's operation `a` onto the native queue `native` of a
 *     stream of the communicator's device, from the thread that holds that
 *     stream (the native-queue task, impl/exec/native.h).
 */
#define ACLRT_BACKEND_COLL_WHY 256u
struct aclrt_backend_coll {
    const char *name;
    int (*open)(char *why);
    int (*unique_id)(uint8_t *id, char *why);
    int (*comm_init)(struct aclrt_device *dev, uint32_t nranks, const uint8_t *id, uint32_t rank, void **comm,
                     char *why);
    int (*comm_init_all)(struct aclrt_device *const *devs, uint32_t n, void **comms, char *why);
    void (*comm_abort)(void *comm);
    void (*comm_free)(void *comm);
    int (*comm_error)(void *comm, char *why);
    int (*sub_id)(void *comm, const uint32_t *members, uint32_t n, uint32_t me, uint64_t deadline_ns, uint8_t *id,
                  char *why);
    bool (*reduces)(int type);
    int (*issue)(void *comm, uint32_t rank, uint32_t nranks, const struct aclrt_hccl_args *a, void *native, char *why);
};

/*
 * What a backend keeps with a model's body (impl/model/model.h: the body's `ext`,
 * published once with a CAS, release / acquire): the cuda backend's CUDA
 * graph of it. The body's last reference calls `release` (on whatever
 * thread lets go last: a driver callback thread too), which frees it.
 */
struct aclrt_model_ext {
    void (*release)(struct aclrt_model_ext *x);
};

/* ------------------------------------------------------------------------
 * Entry points a backend calls (the core defines them).
 * ------------------------------------------------------------------------ */

/* Who holds a stream after aclrt_stream_run (impl/exec/exec.h). */
enum aclrt_hold {
    ACLRT_HOLD_NONE,   /* the caller let go: it must not touch the stream */
    ACLRT_HOLD_EMPTY,  /* its ring is empty; the caller still holds it */
    ACLRT_HOLD_BUDGET, /* it ran its budget of tasks; the caller still holds it */
};

/* READY -> held by the caller, after the backend dequeued it. */
static void aclrt_stream_take(struct aclrt_stream *s);
/* Run up to `budget` tasks of a held stream; *ran (if not NULL): how many ran. */
static enum aclrt_hold aclrt_stream_run(struct aclrt_stream *s, uint32_t budget, uint32_t *ran);
/* Let go of a held stream whose ring looked empty: true if let go, false if work came (still held). */
static bool aclrt_stream_release(struct aclrt_stream *s);
/* Give a held stream back to schedule() behind other work: true if done, false if it must run again. */
static bool aclrt_stream_yield(struct aclrt_stream *s);
/* For a holder deciding whether to linger: tasks committed and not taken; a launch half way; a flag. */
static bool aclrt_stream_has_queued(const struct aclrt_stream *s);
static bool aclrt_stream_launch_pending(const struct aclrt_stream *s);
static bool aclrt_stream_flagged(const struct aclrt_stream *s);
/* Issued work of s finished up to task `upto` (any thread; one at a time per stream). */
static void aclrt_stream_complete_to(struct aclrt_stream *s, uint64_t upto);
/* The device's completion word of s moved: count it done and wake what waits (any thread; see stream_await). */
static void aclrt_stream_fold(struct aclrt_stream *s);
/* Task `number` of s (submitted by thread `tid`) failed with `code`, before it is completed. */
static void aclrt_stream_fail(struct aclrt_stream *s, uint32_t tid, uint64_t number, int code);
/*
 * The same for an issued kernel that failed, when the caller is not the
 * stream's holder: the exception callbacks see its function and arguments
 * (struct aclrt_kernel_failure, impl/exec/exception.h).
 */
static void aclrt_stream_fail_kernel(struct aclrt_stream *s, uint32_t tid, uint64_t number, int code,
                                     const struct aclrt_kernel_failure *kernel);
/* Timers: wake the parked streams whose deadline passed; the earliest deadline (UINT64_MAX: none). */
static void aclrt_device_fire_timers(struct aclrt_device *dev);
static uint64_t aclrt_device_next_deadline(struct aclrt_device *dev);
/* The eventfd an event loop waits on for device `id` (the process's; -1: none could be made). */
static int aclrt_progress_event_fd(uint32_t id);

#endif /* ACLRT_BACKENDS_BACKEND_H */
