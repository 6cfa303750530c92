/*
 * tests/soak/soak.h - what the soak's files share: the run's configuration,
 * the stop flag, the violation log, operation counters, the watchdog's
 * per-thread stamps around every blocking call, and the devices each concern
 * works on.
 *
 * The soak is one program (the files of tests/soak/, linked with tests/impl.c). main.c
 * starts one thread (or a few) per concern and a watchdog, runs for
 * SOAK_SECONDS, stops them, drains, checks and prints a summary; the exit
 * status is non-zero on any violation.
 *
 * Devices (ACLRT_DEVICES=4), so that concerns do not disturb each other's
 * invariants through device-wide calls (aclrtSynchronizeDevice returns any
 * context's pending failure; quotas are per device):
 *   0  the mixed workload (invariants.c) and the lifetime races (lifetime.c)
 *   1  the API fuzzer (fuzz.c) and exhaustion (exhaustion.c)
 *   2  failure-mode scenarios (lifetime.c: stop-on-failure contexts)
 *   3  timeout accuracy (timeouts.c): streams parked for good
 */
#ifndef ACLRT_TESTS_SOAK_H
#define ACLRT_TESTS_SOAK_H

#include "acl/acl.h"

#include <pthread.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SOAK_SANITIZED 1
#else
#define SOAK_SANITIZED 0
#endif

#define SOAK_DEV_WORK 0
#define SOAK_DEV_FUZZ 1
#define SOAK_DEV_FAIL 2
#define SOAK_DEV_TIME 3
#define SOAK_DEVICES 4

/* The code failing host kernels return (a device kernel fault). */
#define SOAK_FAIL_CODE ACL_ERROR_RT_AICORE_EXCEPTION

struct soak_config {
    double seconds;         /* SOAK_SECONDS: length of the random phase */
    uint64_t seed;          /* SOAK_SEED */
    int workers;            /* SOAK_WORKERS: workload threads */
    int noise;              /* SOAK_NOISE: CPU-burning threads (preemption at unlucky points) */
    int streams;            /* SOAK_STREAMS: workload streams */
    int events;             /* SOAK_EVENTS: workload events */
    uint64_t bound_ms;      /* SOAK_BOUND_MS: how long one blocking call may take */
    const char *skip;       /* SOAK_SKIP: comma-separated scenario names not to run */
    const char *only;       /* SOAK_ONLY: comma-separated concerns to run (workload,fuzz,lifetime,...) */
    int verbose;            /* SOAK_VERBOSE */
};
extern struct soak_config soak_cfg;

/* The random phase runs until this is set; every loop checks it. */
extern atomic_int soak_stopping;
static inline bool soak_running(void)
{
    return !atomic_load_explicit(&soak_stopping, memory_order_relaxed);
}

uint64_t soak_now_ns(void);
void soak_sleep_us(unsigned us); /* pacing of background concerns, never synchronization */

/* splitmix64 */
static inline uint64_t soak_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline uint64_t soak_pick(uint64_t *state, uint64_t n)
{
    return soak_rng(state) % n;
}

/* Is scenario `name` skipped (SOAK_SKIP), is concern `name` on (SOAK_ONLY)? */
bool soak_skipped(const char *name);
bool soak_concern_on(const char *name);

/* ------------------------------------------------------------------------
 * Violations: counted by kind; the first few of each kind are printed.
 * ------------------------------------------------------------------------ */
enum soak_violation_kind {
    SV_LOST,          /* a task never ran and nothing that may discard it happened */
    SV_TWICE,         /* a task (or a block of a host kernel) ran more than once */
    SV_ORDER,         /* tasks of a stream ran out of submission order */
    SV_LATE,          /* a task ran after the abort / destroy that discarded it had returned */
    SV_EARLY_WAIT,    /* a stream wait was released before its target's work ran */
    SV_EARLY_SYNC,    /* a synchronize or query said "done" before the work it covers ran */
    SV_CODE,          /* a call returned a code it may not return there */
    SV_BLOCKED,       /* a blocking call exceeded its bound (the run aborts) */
    SV_TIMEOUT_EARLY, /* a ...WithTimeout call gave up before its timeout */
    SV_FORK,          /* a forked child hung, crashed or got success where an error was due */
    SV_CHILD,         /* a child process (rlimit, lifecycle order) hung or crashed */
    SV_RSS,           /* resident memory grew */
    SV_LIFETIME,      /* a lifetime race broke an ordering or lost work */
    SV_EXHAUSTION,    /* an exhaustion scenario lost work or got an undocumented code */
    SV_FUZZ,          /* the fuzzer: undocumented code, or a failure without its message line */
    SV_COUNT
};
extern const char *const soak_violation_names[SV_COUNT];
void soak_violation(enum soak_violation_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
long soak_violations_total(void);
/* SOAK_GDB=1: print every thread's stack of process pid (this one or a child), by gdb. */
void soak_gdb_stacks(int pid);

/* ------------------------------------------------------------------------
 * Operation counters (for the summary).
 * ------------------------------------------------------------------------ */
enum soak_op {
    SO_LAUNCH, SO_KERNEL, SO_RECORD, SO_WAIT, SO_SYNC_STREAM, SO_SYNC_EVENT, SO_SYNC_DEVICE, SO_QUERY,
    SO_ABORT, SO_STOP, SO_FUZZ_CALL, SO_LIFETIME, SO_EXHAUSTION, SO_TIMEOUT_CALL, SO_SIGNAL, SO_FORK,
    SO_CALLBACK, SO_COUNT
};
extern const char *const soak_op_names[SO_COUNT];
extern atomic_long soak_ops[SO_COUNT];
static inline void soak_count(enum soak_op op)
{
    atomic_fetch_add_explicit(&soak_ops[op], 1, memory_order_relaxed);
}
extern atomic_long soak_tasks_launched, soak_tasks_ran, soak_tasks_discarded;

/* ------------------------------------------------------------------------
 * Threads and the watchdog.
 *
 * Every soak thread registers (a name, for reports and for the signal
 * sender). A blocking call is bracketed by soak_block_begin/end (or the
 * SOAK_BLOCKING macro), which stamps the op, the stream index and the
 * time; the watchdog reports a call still in progress past its bound as
 * SV_BLOCKED, with every thread's current call, and ends the run.
 * ------------------------------------------------------------------------ */
struct soak_thread {
    char name[40];
    pthread_t self;
    _Atomic(const char *) op; /* NULL: not in a blocking call */
    atomic_int stream;        /* the stream (index in the concern) or -1 */
    _Atomic uint64_t since_ns;
    _Atomic uint64_t bound_ns;
    atomic_int signals_caught;
    atomic_int signalable; /* the signal sender may target it */
};
#define SOAK_MAX_THREADS 96
extern struct soak_thread soak_threads[SOAK_MAX_THREADS];
extern atomic_int soak_nthreads;

struct soak_thread *soak_thread_register(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct soak_thread *soak_self(void);
/* A short-lived thread takes over a slot a predecessor registered (the registry is never emptied). */
void soak_thread_adopt(struct soak_thread *t);
void soak_block_begin(const char *op, int stream, uint64_t bound_ms);
void soak_block_end(void);
/* The default bound of one blocking call, in ms (scaled under sanitizers). */
uint64_t soak_bound_ms(void);

#define SOAK_BLOCKING(op, stream, call)                                                                   \
    ({                                                                                                    \
        soak_block_begin((op), (stream), soak_bound_ms());                                                \
        aclError soak_rc_ = (call);                                                                       \
        soak_block_end();                                                                                 \
        soak_rc_;                                                                                         \
    })

/* The newest line of the calling thread's recent-error text (clears the text); "(none)" if there is none. */
const char *soak_error_line(void);

/* Code checks: `rc` must be one of the listed codes (ACL_SUCCESS is always allowed), -1 ends the list. */
bool soak_code_in(aclError rc, const int *codes);
#define SOAK_CODES_END INT_MIN /* not -1: ACL_ERROR_INVALID_EXCEPTION_INFO is -1 */
#define SOAK_CODES(...) ((const int[]){__VA_ARGS__, SOAK_CODES_END})

/* ------------------------------------------------------------------------
 * The control counters: aborts and stops of streams on device 0 (any
 * concern) bump these, so that synchronizers of device 0 can tell whether
 * ACL_ERROR_RT_STREAM_ABORT / ACL_ERROR_RT_TASK_ABORT_STOP was legitimate.
 * ------------------------------------------------------------------------ */
extern atomic_long soak_dev0_ctl_begin, soak_dev0_ctl_end;
/* Failing kernels launched on device 0 (any concern): device synchronizes there may return the code. */
extern atomic_long soak_dev0_fail_launched;

/* ------------------------------------------------------------------------
 * The concerns (one file each).
 * ------------------------------------------------------------------------ */
/* invariants.c */
int workload_setup(void);
void *workload_thread(void *arg);
void workload_drain_and_check(void);
void workload_summary(void);
void workload_dump_state(FILE *f); /* for the watchdog's report */

/* fuzz.c */
int fuzz_setup(void);
void *fuzz_thread(void *arg);
void fuzz_finish(void);
void fuzz_summary(void);
int fuzz_lifecycle_child(uint64_t seed); /* in a fresh process: wrong call orders of init/finalize/device/context */
void fuzz_note_lifecycle_ran(void);

/* lifetime.c */
int lifetime_setup(void);
void *lifetime_thread(void *arg);
void lifetime_summary(void);

/* exhaustion.c */
int exhaustion_setup(void);
void *exhaustion_thread(void *arg);
void exhaustion_summary(void);
int exhaustion_rlimit_child(void); /* in a fresh process: allocation failure under RLIMIT_AS */

/* fork_signals.c */
void signals_install(void);
void *signal_thread(void *arg);
void *fork_thread(void *arg);
void fork_signals_summary(void);

/* timeouts.c */
int timeouts_setup(void);
void timeouts_measure_idle(double seconds);
void *timeouts_thread(void *arg);
void timeouts_finish(void);
void timeouts_summary(void);

/* main.c: run this program again as a child in `mode` (a fresh process, not a fork), bounded. */
int soak_run_child(const char *mode, uint64_t seed, double bound_s, char *why, size_t why_len);

#endif /* ACLRT_TESTS_SOAK_H */
