/*
 * impl/aclrt_impl.h - the implementation: the index of its folders. aclrt.h
 * includes it once, in the translation unit that defines
 * ACLRT_IMPLEMENTATION, and the backends after it (backends/).
 *
 * One folder per concept. A folder uses only the folders listed above it
 * (make check-layering holds every file to this order), and every header
 * includes what it uses, so each one compiles on its own (make
 * check-headers).
 *
 *   core/     compiler glue, time, futexes, per-thread state, errors,
 *             sequence counters, handle tables, configuration, registries
 *   task/     the 64-byte task record, a stream's ring, bounded queues,
 *             parking and blocking, a capture's task list
 *   backends/backend.h   the contract between the core and a backend
 *   runtime/  the runtime object, its start, backend selection, state
 *             hooks, external progress
 *   stream/   streams: submission, capture hooks, waits, life, wait tasks,
 *             the threads their callbacks go to
 *   context/  devices and contexts, the current context, the stream calls
 *   shm/      what processes share: keyed segments, allow-lists, shared
 *             records and their watcher
 *   memory/   allocations, copies, peers, physical memory, allocators
 *   sync/     events, notifies, counting notifies, value waits, HCOM tasks
 *   prof/     profiling: sessions, the tasks and markers they record, Chrome traces, op subscription
 *   exec/     running a stream's tasks, exceptions, callbacks, host
 *             functions, external tasks
 *   kernel/   binaries, arguments, launches, host kernels, overflow,
 *             built-in tasks, the dump configuration
 *   model/    capture and replay (aclmdlRI), labels, conditions
 *   ipc/      the IPC calls: events, notifies and memory shared
 *   queue/    shared buffers (mbufs) and the queues of acl/acl_tdt_queue.h,
 *             shared by threads and processes, and routes between them
 *   system/   versions, device information, error details, aclInit and
 *             aclFinalize, snapshots of the process
 *   hccl/     HCCL: communicators and collectives on streams, ranks in one
 *             process or across processes through MPI
 *   sanitize/ the stream-ordering sanitizer: happens-before clocks, the
 *             bytes each task touches, reports (ACLRT_SANITIZE)
 *   tdt/      tensor data transfer: data items, datasets, channels
 *             between threads (acltdt*)
 *
 * The files included here are the ones no other file includes; they reach
 * every other header of the folders above (checked by make check-layering).
 */
#ifndef ACLRT_IMPL_ACLRT_IMPL_H
#define ACLRT_IMPL_ACLRT_IMPL_H

#include "context/device.h"
#include "context/stream_control.h"
#include "memory/alloc_variants.h"
#include "memory/cmo.h"
#include "memory/managed.h"
#include "memory/mem_info.h"
#include "memory/memcpy.h"
#include "memory/memcpy2d.h"
#include "memory/memcpy_batch.h"
#include "memory/vmm.h"
#include "sync/event_query.h"
#include "sync/event_record.h"
#include "sync/event_wait.h"
#include "prof/prof.h"
#include "prof/prof_step.h"
#include "prof/prof_tx.h"
#include "exec/external.h"
#include "exec/native.h"
#include "kernel/binary_data.h"
#include "kernel/binary_query.h"
#include "kernel/random.h"
#include "kernel/reduce.h"
#include "kernel/op_timeout.h"
#include "kernel/symbol.h"
#include "kernel/dump.h"
#include "model/model_build.h"
#include "model/model_cond.h"
#include "model/model_debug.h"
#include "model/model_params.h"
#include "model/model_query.h"
#include "model/model_replay.h"
#include "model/model_update.h"
#include "ipc/ipc_event.h"
#include "ipc/ipc_notify.h"
#include "ipc/ipc_fabric.h"
#include "queue/queue_route.h"
#include "system/device_id.h"
#include "system/device_abort.h"
#include "system/device_info.h"
#include "system/device_limits.h"
#include "system/fault.h"
#include "system/groups.h"
#include "system/sysinfo.h"
#include "system/data_buffer.h"
#include "system/app_log.h"
#include "system/platform.h"
#include "system/sys_param.h"
#include "system/init.h"
#include "system/snapshot.h"
#include "hccl/hccl_coll.h"
#include "hccl/hccl_init.h"
#include "hccl/hccl_destroy.h"
#include "hccl/hccl_memory.h"
#include "sanitize/sanitize.h"
#include "tdt/tdt_channel.h"

#endif /* ACLRT_IMPL_ACLRT_IMPL_H */
