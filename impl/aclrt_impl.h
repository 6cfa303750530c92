/*
 * impl/aclrt_impl.h - the implementation, in dependency order. Included once,
 * by aclrt.h, when ACLRT_IMPLEMENTATION is defined. Each file is one concept;
 * see the comment at its top.
 */
#ifndef ACLRT_IMPL_ACLRT_IMPL_H
#define ACLRT_IMPL_ACLRT_IMPL_H

#include "base.h"      /* compiler glue, ThreadSanitizer annotations */
#include "fp_status.h" /* the CPU's floating-point exception flags */
#include "clock.h"     /* monotonic nanoseconds, deadlines */
#include "futex.h"     /* sleeping on a word */
#include "thread.h"    /* per-thread state */
#include "error.h"     /* the one place errors are recorded */
#include "seq.h"       /* sequence counters (ck_ec64): read, advance, wait */
#include "handle.h"    /* handle tables with generations */
#include "config.h"    /* defaults, aclInit JSON, environment */
#include "task.h"      /* the 64-byte task record */
#include "capture.h"   /* a stream's capture: the tasks recorded for a model */
#include "ring.h"      /* a stream's task ring (MPSC, independent commits) */
#include "mpmc.h"      /* bounded MPMC queue (ready queues) */
#include "park.h"      /* parking blocked streams */
#include "registry.h"  /* name -> object maps (liburcu rculfhash) */
#include "runtime.h"   /* devices, contexts, the runtime object */
#include "progress.h"  /* aclrtxDeviceProgress: embedders run the streams */
#include "hooks.h"     /* user callbacks on state changes (stream/device state, exceptions) */
#include "backend_registry.h" /* built-in and registered backends, selection by name */
#include "runtime_start.h" /* starting the runtime: configuration, backend, devices */
#include "stream.h"    /* streams: state, the ring's reservation and publication, completion */
#include "stream_capture.h" /* a capturing stream: its calls recorded, marked, joined or refused */
#include "stream_submit.h" /* submitting a task: the launch fast path */
#include "report_thread.h" /* report threads and the streams they serve */
#include "stream_wait.h" /* waiting for a stream's work */
#include "stream_life.h" /* a stream's creation and destruction */
#include "context.h"   /* devices and contexts: aclrtSetDevice, the current context */
#include "stream_api.h" /* the stream calls of the API */
#include "stream_control.h" /* aclrtStreamAbort, aclrtStreamStop */
#include "ipc.h"       /* what processes share: keyed segments, allow-lists, shared records */
#include "ipc_watch.h" /* a thread that sleeps on shared records for parked stream waits */
#include "event.h"     /* events: captures, create, destroy, record, reset */
#include "event_query.h" /* events: status, synchronize, timestamps */
#include "block.h"     /* why a task cannot run yet (parking conditions) */
#include "exception.h" /* exception callbacks, task ids */
#include "task_wait.h" /* what wait tasks share: deadlines and timers, spinning, stale notes */
#include "ipc_event.h" /* IPC events: handles, opening, stream waits on shared records */
#include "event_wait.h" /* stream waits on events */
#include "report.h"    /* callbacks and host functions handed to report threads */
#include "notify_object.h" /* what notifies and counting notifies share: handles, lives, quota */
#include "notify.h"    /* notifies: one record releases one wait */
#include "cnt_notify.h" /* counting notifies */
#include "peer.h"      /* peer access between devices */
#include "memory.h"    /* device and pinned host memory: allocation, the registry, frees */
#include "memcpy.h"    /* copies and memsets, synchronous and in stream order */
#include "physmem.h"   /* physical memory, reserved address ranges, mappings */
#include "ipc_mem.h"   /* device memory shared between processes: shareable allocations, keys, imports */
#include "allocator.h" /* custom memory allocators: descriptors, per-stream registrations */
#include "value.h"     /* aclrtValueWrite / aclrtValueWait */
#include "builtin_task.h" /* built-in tasks: reduce, random numbers */
#include "hcom.h"      /* HCOM group record/wait tasks (aclrtx) */
#include "overflow.h"  /* overflow detection: saturation mode, overflow switch and status */
#include "launch.h"    /* host functions and host kernels */
#include "binary.h"    /* kernel binaries and their functions: load, look up, unload */
#include "kernel_args.h" /* a function's argument builder (aclrtKernelArgs*) */
#include "kernel_launch.h" /* launching a binary's functions (aclrtLaunchKernel*) */
#include "exec.h"      /* running a stream's tasks: the entry points backends call */
#include "external.h"  /* external tasks (aclrtx): an embedder's work in a stream */
#include "label.h"     /* labels: places and jumps in a model built explicitly */
#include "model.h"     /* models (aclmdlRI) captured from a stream, and their replay */
#include "model_build.h" /* building a model explicitly: bind streams, end tasks, build end */
#include "model_update.h" /* task groups of a capture and their update */
#include "model_query.h"  /* a model's abort, name and id */
#include "model_tasks.h"  /* a model's streams and tasks */
#include "model_cond.h"   /* conditional tasks and their branches */
#include "model_params.h" /* a captured model's tasks read and changed */
#include "model_debug.h"  /* a model described for people */
#include "error_detail.h" /* hardware fault details, the kernel behind an exception */
#include "sysinfo.h"   /* versions, CANN attributes, SoC name, half precision, data type sizes */
#include "device_info.h" /* device attributes, capabilities, status, resource limits */
#include "init.h"      /* aclInit / aclFinalize, teardown */

#endif /* ACLRT_IMPL_ACLRT_IMPL_H */
