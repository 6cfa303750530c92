/*
 * backends/backend.h - the contract between the core (impl/) and a backend.
 *
 * The core owns the objects and their semantics: handles, each stream's task
 * ring and completed counter, event captures, parking. A backend owns
 * execution: it is told when a stream has work (schedule), and it runs
 * streams by calling the core's aclrt_stream_run(), which pops, runs and
 * completes tasks and parks the stream when a wait cannot be met yet. It also
 * supplies device memory.
 *
 * Rules for a backend:
 *   - aclrt_stream_run() on a given stream is called by one thread at a time:
 *     only after the core moved it to READY and called schedule(). The core
 *     never calls schedule() twice for one READY period.
 *   - has_other_work() is a hint used for fairness (a stream yields its
 *     thread after a budget of tasks when others are waiting) and to decide
 *     whether a wait may spin before parking.
 *   - timers_changed() is called when a parked stream's deadline became the
 *     earliest: some thread must call aclrt_device_fire_timers() by then.
 *   - run_kernel() runs the blocks of a host kernel and returns the first
 *     failing block's code; it may spread blocks over idle threads. NULL:
 *     the core runs them in order on the calling thread.
 */
#ifndef ACLRT_BACKENDS_BACKEND_H
#define ACLRT_BACKENDS_BACKEND_H

struct aclrt_device;
struct aclrt_stream;
struct aclrt_config;
struct aclrt_task_kind;

struct aclrt_backend {
    const char *name;
    /* Check that the backend can run here; report how many devices it has. */
    aclError (*open)(const struct aclrt_config *config, uint32_t *device_count);
    void (*close)(void);
    /* Bring a device up (threads, driver context) and down. */
    aclError (*device_start)(struct aclrt_device *dev);
    void (*device_stop)(struct aclrt_device *dev);
    /* A stream has become READY: run it soon. */
    void (*schedule)(struct aclrt_device *dev, struct aclrt_stream *s);
    bool (*has_other_work)(struct aclrt_device *dev);
    void (*timers_changed)(struct aclrt_device *dev);
    aclError (*run_kernel)(struct aclrt_device *dev, aclrtxHostKernel fn, uint32_t blocks, void *args);
    /*
     * Task kinds the backend runs itself, indexed by enum aclrt_task_kind_id
     * (NULL, or a NULL entry: the core's descriptor).
     */
    const struct aclrt_task_kind *const *kinds;
    /* Device memory. */
    aclError (*mem_alloc)(struct aclrt_device *dev, size_t size, void **out);
    void (*mem_free)(struct aclrt_device *dev, void *ptr);
};

#endif /* ACLRT_BACKENDS_BACKEND_H */
