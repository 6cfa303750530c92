/*
 * impl/task/task.h - the task record: one 64-byte, cache-line-sized entry of a
 * stream's ring. A record holds everything its execution needs by value, so
 * a task never points back at the API call that made it.
 *
 * Wait tasks hold a *copy* of what an event captured (stream slot + target
 * count), so re-recording or destroying the event does not change what a
 * pending wait waits for.
 */
#ifndef ACLRT_IMPL_TASK_TASK_H
#define ACLRT_IMPL_TASK_TASK_H

#include "../core/base.h"

struct aclrt_stream;
struct aclrt_event;
struct aclrt_notify_object;
struct aclrt_device;
struct aclrt_hcom_group;
struct aclrt_prof_sub;

/*
 * Task kinds. Each kind is a descriptor (struct aclrt_task_kind) defined
 * next to its concept (the table below names the file), and
 * a task record points at its kind. The id names the kind in a backend's
 * table of overrides (backends/backend.h): a backend that executes a kind
 * natively (a GPU turning a copy into an asynchronous copy on its own
 * queue) supplies its own descriptor for that id.
 */
enum aclrt_task_kind_id {
    ACLRT_TASK_NOP,               /* counts as a task, does nothing (below) */
    ACLRT_TASK_HOST_FUNC,         /* aclrtLaunchHostFunc (callback.h) */
    ACLRT_TASK_CALLBACK,          /* aclrtLaunchCallback (callback.h) */
    ACLRT_TASK_HOST_KERNEL,       /* aclrtxLaunchHostKernel (host_kernel.h) */
    ACLRT_TASK_MEMCPY,            /* aclrtMemcpyAsync (memcpy.h) */
    ACLRT_TASK_MEMSET,            /* aclrtMemsetAsync (memcpy.h) */
    ACLRT_TASK_MEMCPY2D,          /* aclrtMemcpy2dAsync (memcpy2d.h) */
    ACLRT_TASK_MEMSET32,          /* aclrtMemsetD32Async */
    ACLRT_TASK_MEMCPY_INDIRECT,   /* a copy whose addresses are read from memory when it runs (memcpy_batch.h) */
    ACLRT_TASK_WAIT_STREAM,       /* until stream.completed >= target (event_wait.h) */
    ACLRT_TASK_WAIT_EVENT,        /* legacy event not recorded yet: until its next record */
    ACLRT_TASK_EVENT_STAMP,       /* timestamp an event record when the stream reaches it (event_record.h) */
    ACLRT_TASK_EVENT_RESET,       /* aclrtResetEvent, in stream order */
    ACLRT_TASK_NOTIFY_RECORD,     /* aclrtRecordNotify (notify.h) */
    ACLRT_TASK_NOTIFY_WAIT,       /* aclrtWaitAndResetNotify */
    ACLRT_TASK_CNT_NOTIFY_RECORD, /* aclrtCntNotifyRecord (cnt_notify.h) */
    ACLRT_TASK_CNT_NOTIFY_WAIT,   /* aclrtCntNotifyWaitWithTimeout */
    ACLRT_TASK_CNT_NOTIFY_RESET,  /* aclrtCntNotifyReset */
    ACLRT_TASK_VALUE_WRITE,       /* aclrtValueWrite (value.h) */
    ACLRT_TASK_VALUE_WAIT,        /* aclrtValueWait */
    ACLRT_TASK_HCOM_RECORD,       /* HCOM group record (hcom.h) */
    ACLRT_TASK_HCOM_WAIT,         /* HCOM group wait: until the group's k-th record */
    ACLRT_TASK_EXTERNAL,          /* aclrtxLaunchExternalTask: the embedder's work (external.h) */
    ACLRT_TASK_REDUCE,            /* aclrtReduceAsync (reduce.h) */
    ACLRT_TASK_RANDOM,            /* aclrtRandomNumAsync (random.h) */
    ACLRT_TASK_OVERFLOW_STATUS,   /* aclrtGetOverflowStatus: copy the overflow status (overflow.h) */
    ACLRT_TASK_OVERFLOW_RESET,    /* aclrtResetOverflowStatus */
    ACLRT_TASK_KERNEL,            /* aclrtLaunchKernel*: a function of a loaded binary (kernel_launch.h) */
    ACLRT_TASK_MODEL,             /* aclmdlRIExecuteAsync: a captured model's tasks, in order (model_replay.h) */
    ACLRT_TASK_MODEL_RECORD,      /* in a model only: an event record the replay makes (event_record.h) */
    ACLRT_TASK_MODEL_WAIT,        /* in a model only: an event wait the replay makes (event_wait.h) */
    ACLRT_TASK_IPC_RECORD,        /* a record of an object shared between processes (shared_record.h) */
    ACLRT_TASK_IPC_WAIT,          /* until a shared object's record is complete (ipc_wait.h) */
    ACLRT_TASK_LABEL,             /* in a built model only: a place a switch jumps to (label.h) */
    ACLRT_TASK_LABEL_SWITCH,      /* in a built model only: jump to a label picked by an index in memory */
    ACLRT_TASK_COND,              /* in a model only: run a branch's body, picked by a word in memory (cond.h) */
    ACLRT_TASK_STREAM_ACTIVE,     /* in a built model only: start a stream bound to it, in parallel (stream_activate.h) */
    ACLRT_TASK_STREAM_SWITCH,     /* in a built model only: if a comparison in memory holds, go on on another stream */
    ACLRT_TASK_NATIVE,            /* work a backend issues onto the stream's own queue (native.h) */
    ACLRT_TASK_KIND_COUNT
};

/* What a kind's run returns besides ACL_SUCCESS (done) and an ACL error code (the task failed). */
#define ACLRT_TASK_BLOCKED (-1) /* cannot go on yet: the block says on what; the stream parks, the task runs again */
#define ACLRT_TASK_ISSUED (-2)  /* handed off: finishes later, through aclrt_stream_complete_to (exec.h) */

struct aclrt_task;
struct aclrt_block;

struct aclrt_task_kind {
    enum aclrt_task_kind_id id;
    const char *name;
    /* Run the task on the calling thread (the stream's holder). */
    int (*run)(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk);
    /* The task is dropped without running (discarded): undo what its submission set up. NULL: nothing. */
    void (*drop)(struct aclrt_task *t);
};

/* A reference to one record of one event: valid while generation and record match. */
struct aclrt_event_ref {
    struct aclrt_event *event;
    uint32_t generation;
    uint32_t record; /* the event's record count at the time */
};

struct aclrt_report_item;
struct aclrt_random_job;
struct aclrt_binary;
struct aclrt_model_body;
struct aclrt_ipc_seg;
struct aclrt_cond;
struct aclrt_model_lanes;

/* Where a native-queue task runs (impl/exec/native.h): its stream, its number, the thread that submitted it. */
struct aclrt_native_place {
    struct aclrt_stream *stream;
    uint64_t number;
    uint32_t tid;
};
typedef aclError (*aclrt_native_issue_fn)(void *arg, void *queue, const struct aclrt_native_place *place);

struct ACLRT_ALIGNED(ACLRT_CACHELINE) aclrt_task {
    const struct aclrt_task_kind *kind;
    uint32_t u32; /* host kernel: block count; memset: byte value; memcpy: the aclrtMemcpyKind given (or
                     ACL_MEMCPY_DEFAULT); waits: timeout in seconds (0 = none);
                     callback: ACL_CALLBACK_BLOCK or _NO_BLOCK; label switch: its number of labels */
    uint32_t tid; /* the submitting thread (exception info); set by aclrt_stream_submit */
    union {
        struct {
            aclrtHostFunc fn;
            void *args;
            struct aclrt_report_item *item; /* handed to a subscribed thread, not yet back */
        } host_func;
        struct {
            aclrtCallback fn;
            void *user_data;
            struct aclrt_report_item *item; /* BLOCK: handed off, the stream waits for it */
        } callback;
        struct {
            aclrtxHostKernel fn;
            void *args;
            /* ACLRT_TASK_KERNEL only (a host kernel leaves these unset): */
            void *handle;                /* the aclrtFuncHandle launched (exception info) */
            struct aclrt_binary *binary; /* counted in flight on it until the task is done (binary.h) */
            uint32_t args_size;          /* bytes at args */
            uint32_t owned : 1;          /* args is the task's own copy, freed when it is done */
            uint32_t timeout_ms : 31;    /* the launch's timeout, rounded up; 0 = none */
        } kernel;
        struct {
            void *dst;
            const void *src;
            size_t count;
        } copy;
        struct {
            uint64_t a, b, c;  /* the marker's numbers (prof_marker.h) */
            const char *msg;   /* interned: lives for the process; NULL: none */
            const char *cat;   /* its category (a string constant) */
        } prof_marker;
        struct {
            void *dst;
            const void *src;
            size_t dpitch, spitch;
            uint32_t width, height; /* height rows of width bytes (both below 2^23: memcpy2d.h) */
        } copy2d;
        struct {
            /* u32 0: *dst + dst_offset <- *src + src_offset, count bytes; u32 1: dst is a descriptor, read whole */
            const void *dst;
            const void *src;
            size_t count, dst_offset, src_offset;
        } indirect;
        struct {
            void *dst;
            size_t count;
        } fill;
        struct {
            struct aclrt_stream *stream; /* slot pointer: stays valid for the process */
            uint64_t target;
            struct aclrt_event_ref from; /* event whose wait this is (event NULL: none) */
            uint64_t deadline_ns;        /* set when the wait starts; 0 = not started */
        } wait;
        struct aclrt_event_ref mark; /* stamp / reset */
        struct {
            struct aclrt_notify_object *notify; /* slot pointer: stays valid for the process */
            uint32_t generation;         /* the life the task belongs to */
            uint32_t parked;             /* wait: has parked before (stale notes to prune) */
            uint64_t deadline_ns;        /* wait: set when it starts; 0 = not started */
            uint32_t backoff_ns;         /* wait on an exported notify: the next poll interval */
        } notify;
        struct {
            struct aclrt_notify_object *cnt; /* slot pointer */
            uint32_t generation;
            uint32_t mode;  /* aclrtCntNotifyRecordMode / aclrtCntNotifyWaitMode */
            uint32_t value;
            uint8_t clear;  /* wait: isClear */
            uint8_t parked; /* wait: has parked before */
            uint64_t deadline_ns;
            uint64_t seen_version; /* wait: the notify's version when it last looked */
        } cnt;
        struct {
            _Atomic uint64_t *word;     /* the 64-bit word written or watched */
            uint64_t value;
            struct aclrt_device *device; /* the device whose memory holds the word */
            uint64_t seen_writes;        /* wait: the device's value_writes when it last looked */
            uint64_t backoff_ns;         /* wait: the next poll interval; 0 = not parked yet */
        } value;
        struct {
            struct aclrt_hcom_group *group; /* lives until aclFinalize */
            uint64_t ticket;                /* wait: released by the group's ticket-th record */
        } hcom;
        struct {
            aclrtxExternalStart start;
            void *user_data;
        } external;
        struct {
            aclrt_native_issue_fn issue; /* called once, when the stream reaches the task */
            void (*drop)(void *arg);                   /* ... or this, if it never does */
            void *arg;
        } native;
        struct {
            void *dst;
            const void *src;
            size_t count;  /* bytes */
            uint32_t kind; /* aclrtReduceKind */
            int32_t type;  /* aclDataType */
        } reduce;
        struct {
            struct aclrt_ipc_seg *seg; /* a reference the task holds until it runs or is dropped */
            uint32_t target;           /* the record it marks complete (record) or waits for (wait) */
            uint32_t backoff_ns;       /* wait: the next poll interval; 0 = not parked yet */
            uint64_t deadline_ns;      /* wait: set when it starts; 0 = not started */
        } ipc;
        struct {
            struct aclrt_random_job *job; /* owned by the task: freed when it runs or is dropped */
        } random;
        struct {
            struct aclrt_model_body *body; /* counted: the replay's reference (model.h) */
            struct aclrt_task *resume;     /* the captured task that blocked, to run again; NULL: none */
            uint32_t next;                 /* the captured task to run next */
            uint32_t epoch;                /* the model's abort count at submission */
            struct aclrt_model_lanes *lanes; /* a built body with activated streams: their runs (model_replay.h) */
            struct aclrt_prof_sub *prof_sub; /* a reference to its subscription (prof_subscribe.h); NULL: none */
        } model;
        struct {
            void *handle; /* the aclrtLabel */
        } label;
        struct {
            struct aclrt_cond *cond; /* a reference the task holds (cond.h) */
        } cond;
        struct {
            const void *ptr; /* the uint32_t index, read at each replay */
            uintptr_t *to;   /* `u32` entries, owned: label handles, then (built) the labels' step numbers */
        } label_switch;
        struct {
            const void *left, *right;   /* switch: the values compared, read at each replay */
            struct aclrt_stream *target; /* the stream activated (until aclmdlRIBuildEnd resolves it) */
            uint32_t lane;               /* built: the target's lane in the body; UINT32_MAX: it has no tasks */
            uint32_t cond;               /* switch: aclrtCondition (u32: aclrtCompareDataType) */
        } activate;
    } u;
};

_Static_assert(sizeof(struct aclrt_task) == 64, "a task record is one cache line");

static int aclrt_task_nop_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)t, (void)blk;
    return ACL_SUCCESS;
}

/* A task that only takes its place in the stream (a reserved slot whose purpose went away). */
static const struct aclrt_task_kind aclrt_kind_nop = {ACLRT_TASK_NOP, "no-op", aclrt_task_nop_run, NULL};

#endif /* ACLRT_IMPL_TASK_TASK_H */
