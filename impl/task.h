/*
 * impl/task.h - the task record: one 64-byte, cache-line-sized entry of a
 * stream's ring. A record holds everything its execution needs by value, so
 * a task never points back at the API call that made it.
 *
 * Wait tasks hold a *copy* of what an event captured (stream slot + target
 * count), so re-recording or destroying the event does not change what a
 * pending wait waits for.
 */
#ifndef ACLRT_IMPL_TASK_H
#define ACLRT_IMPL_TASK_H

#include "base.h"

struct aclrt_stream;
struct aclrt_event;

enum aclrt_task_kind {
    ACLRT_TASK_NOP = 0,      /* counts as a task, does nothing */
    ACLRT_TASK_HOST_FUNC,    /* aclrtLaunchHostFunc */
    ACLRT_TASK_HOST_KERNEL,  /* aclrtxLaunchHostKernel */
    ACLRT_TASK_MEMCPY,       /* aclrtMemcpyAsync */
    ACLRT_TASK_MEMSET,       /* aclrtMemsetAsync */
    ACLRT_TASK_WAIT_STREAM,  /* until stream.completed >= target (event waits) */
    ACLRT_TASK_WAIT_EVENT,   /* legacy event not recorded yet: until its next record */
    ACLRT_TASK_EVENT_STAMP,  /* timestamp an event record when the stream reaches it */
    ACLRT_TASK_EVENT_RESET,  /* aclrtResetEvent, in stream order */
    ACLRT_TASK_CALLBACK,     /* aclrtLaunchCallback: hand fn to the stream's report thread */
    ACLRT_TASK_KIND_COUNT
};

/* A reference to one record of one event: valid while generation and record match. */
struct aclrt_event_ref {
    struct aclrt_event *event;
    uint32_t generation;
    uint32_t record; /* the event's record count at the time */
};

struct aclrt_report_item;

struct ACLRT_ALIGNED(ACLRT_CACHELINE) aclrt_task {
    uint8_t kind;
    uint8_t reserved[3];
    uint32_t u32; /* host kernel: block count; memset: byte value; waits: timeout in seconds (0 = none);
                     callback: ACL_CALLBACK_BLOCK or _NO_BLOCK */
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
        } kernel;
        struct {
            void *dst;
            const void *src;
            size_t count;
        } copy;
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
    } u;
};

_Static_assert(sizeof(struct aclrt_task) == 64, "a task record is one cache line");

#endif /* ACLRT_IMPL_TASK_H */
