/*
 * tests/test_snapshot.c - pins the snapshots of the process (docs/SEMANTICS.md,
 * Snapshots of the process): the order of the stages and their callbacks
 * (with their user data, once per set device, a failing one failing its
 * stage), the device memory a restore writes back, Lock waiting for the
 * work launched before it and holding launches until Unlock, the calls out
 * of order and the bad arguments.
 *
 * Ordering is proven with gates, never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static aclrtContext main_context;

/* The stages seen, in order, with the device and user data of each call. */
#define LOG_MAX 32
static struct {
    int stage;
    int32_t device;
    void *args;
} seen[LOG_MAX];
static atomic_int seen_count;
static uint32_t fail_with; /* what the callbacks return */

static void log_stage(int stage, int32_t device, void *args)
{
    int i = atomic_fetch_add(&seen_count, 1);
    if (i < LOG_MAX) {
        seen[i].stage = stage;
        seen[i].device = device;
        seen[i].args = args;
    }
}

#define STAGE_CB(name, stage)                       \
    static uint32_t name(int32_t device, void *args) \
    {                                                \
        log_stage(stage, device, args);              \
        return fail_with;                            \
    }
STAGE_CB(on_lock_pre, ACL_RT_SNAPSHOT_LOCK_PRE)
STAGE_CB(on_backup_pre, ACL_RT_SNAPSHOT_BACKUP_PRE)
STAGE_CB(on_backup_post, ACL_RT_SNAPSHOT_BACKUP_POST)
STAGE_CB(on_restore_pre, ACL_RT_SNAPSHOT_RESTORE_PRE)
STAGE_CB(on_restore_post, ACL_RT_SNAPSHOT_RESTORE_POST)
STAGE_CB(on_unlock_post, ACL_RT_SNAPSHOT_UNLOCK_POST)

static const aclrtSnapShotCallBack stage_cbs[] = {on_lock_pre,    on_backup_pre,   on_backup_post,
                                                  on_restore_pre, on_restore_post, on_unlock_post};
static int user_data[6];

static void case_cleanup(void)
{
    gates_open_all();
    /* Leave the process RUNNING and without callbacks, whatever a failed case left. */
    fail_with = 0;
    (void)aclrtSnapShotProcessUnlock(getpid(), NULL);
    for (int s = 0; s < 6; s++)
        (void)aclrtSnapShotCallbackUnregister((aclrtSnapShotStage)s, stage_cbs[s]);
    aclrtSetCurrentContext(main_context);
    atomic_store(&seen_count, 0);
}

TEST(stages_run_in_order_and_call_their_callbacks_with_their_data)
{
    for (int s = 0; s < 6; s++)
        CHECK_OK(aclrtSnapShotCallbackRegister((aclrtSnapShotStage)s, stage_cbs[s], &user_data[s]));
    int pid = getpid();
    CHECK_OK(aclrtSnapShotProcessLock(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessBackup(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessRestore(pid, NULL));
    aclrtSnapShotBackupArgs bargs;
    memset(&bargs, 0, sizeof bargs); /* a zeroed argument struct reads as NULL */
    CHECK_OK(aclrtSnapShotProcessBackup(pid, &bargs));
    CHECK_OK(aclrtSnapShotProcessUnlock(pid, NULL));
    static const int order[] = {ACL_RT_SNAPSHOT_LOCK_PRE,     ACL_RT_SNAPSHOT_BACKUP_PRE, ACL_RT_SNAPSHOT_BACKUP_POST,
                                ACL_RT_SNAPSHOT_RESTORE_PRE,  ACL_RT_SNAPSHOT_RESTORE_POST,
                                ACL_RT_SNAPSHOT_BACKUP_PRE,   ACL_RT_SNAPSHOT_BACKUP_POST,
                                ACL_RT_SNAPSHOT_UNLOCK_POST};
    int n = (int)(sizeof order / sizeof order[0]);
    CHECK_EQ(n, atomic_load(&seen_count)); /* one set device: one call per stage */
    for (int i = 0; i < n; i++) {
        CHECK_EQ(order[i], seen[i].stage);
        CHECK_EQ(0, seen[i].device);
        CHECK(seen[i].args == &user_data[order[i]]);
    }
    /* Unregistered: no longer called. */
    CHECK_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, on_lock_pre));
    atomic_store(&seen_count, 0);
    CHECK_OK(aclrtSnapShotProcessLock(pid, NULL));
    CHECK_EQ(0, atomic_load(&seen_count));
    CHECK_OK(aclrtSnapShotProcessUnlock(pid, NULL));
    CHECK_EQ(1, atomic_load(&seen_count));
    CHECK_EQ(ACL_RT_SNAPSHOT_UNLOCK_POST, seen[0].stage);
}

TEST(a_failing_callback_fails_its_stage_and_the_state_stays)
{
    int pid = getpid();
    CHECK_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, on_lock_pre, NULL));
    fail_with = 7;
    CHECK_EQ(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessLock(pid, NULL));
    /* Still RUNNING: Unlock is out of order. */
    CHECK_EQ(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(pid, NULL));
    fail_with = 0;
    CHECK_OK(aclrtSnapShotProcessLock(pid, NULL));
    CHECK_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_BACKUP_POST, on_backup_post, NULL));
    fail_with = 1;
    CHECK_EQ(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessBackup(pid, NULL));
    /* Not BACKED_UP: a restore is out of order. */
    CHECK_EQ(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(pid, NULL));
    fail_with = 0;
    CHECK_OK(aclrtSnapShotProcessUnlock(pid, NULL));
}

TEST(calls_out_of_order_get_their_stages_codes)
{
    int pid = getpid();
    CHECK_EQ(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(pid, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, aclrtSnapShotProcessBackup(pid, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessLock(pid, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_LOCK_FAILED, aclrtSnapShotProcessLock(pid, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(pid, NULL)); /* LOCKED, no backup */
    CHECK_OK(aclrtSnapShotProcessBackup(pid, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, aclrtSnapShotProcessBackup(pid, NULL)); /* BACKED_UP */
    CHECK_EQ(ACL_ERROR_SNAPSHOT_LOCK_FAILED, aclrtSnapShotProcessLock(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessUnlock(pid, NULL)); /* from BACKED_UP */
    CHECK_EQ(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(pid, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(pid, NULL));
}

TEST(bad_arguments_are_refused)
{
    int pid = getpid();
    int dummy;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(pid + 1, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(-1, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(pid, &dummy));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessUnlock(pid + 1, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessUnlock(pid, &dummy));
    aclrtSnapShotBackupArgs b;
    memset(&b, 0, sizeof b);
    b.backupFlags = 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessBackup(pid, &b));
    b.backupFlags = 0;
    b.reserved[59] = 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessBackup(pid, &b));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessBackup(0, NULL));
    aclrtSnapShotRestoreArgs r;
    memset(&r, 0, sizeof r);
    r.restoreFlags = 2;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessRestore(pid, &r));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessRestore(pid + 1, NULL));
    /* The bad calls changed nothing: still RUNNING. */
    CHECK_EQ(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(pid, NULL));

    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackRegister((aclrtSnapShotStage)6, on_lock_pre, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackRegister((aclrtSnapShotStage)-1, on_lock_pre, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, NULL, NULL));
    CHECK_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, on_lock_pre, NULL));
    CHECK_EQ(ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED,
             aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, on_lock_pre, &dummy));
    /* The same function at another stage is another registration. */
    CHECK_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_UNLOCK_POST, on_lock_pre, NULL));
    CHECK_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_UNLOCK_POST, on_lock_pre));
    CHECK_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, on_lock_pre));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, on_lock_pre));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister((aclrtSnapShotStage)6, on_lock_pre));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, NULL));
}

TEST(restore_writes_back_the_device_memory_of_the_backup)
{
    enum { N = 4096 };
    int pid = getpid();
    unsigned char *host = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N);
    CHECK(host != NULL && back != NULL);
    for (int i = 0; i < N; i++)
        host[i] = (unsigned char)(i * 7 + 3);
    void *dev, *other;
    CHECK_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&other, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dev, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemset(other, 100, 0x5A, 100));
    CHECK_OK(aclrtSnapShotProcessLock(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessBackup(pid, NULL));
    /*
     * The memory changes after the backup. On the host backend device memory is the host's: change it
     * in place (the calls that would are held while the process is locked). Elsewhere the restore must
     * leave the contents as they are.
     */
    const char *backend = aclrtxGetBackendName();
    bool in_place = backend != NULL && strcmp(backend, "host") == 0;
    if (in_place) {
        memset(dev, 0xEE, N);
        memset(other, 0, 100);
    }
    CHECK_OK(aclrtSnapShotProcessRestore(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessUnlock(pid, NULL));
    CHECK_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0, memcmp(host, back, N));
    CHECK_OK(aclrtMemcpy(back, 100, other, 100, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 100; i++)
        CHECK_EQ(0x5A, back[i]);
    /* A later backup replaces the first: what it restores is the memory as it was then. */
    memset(host, 0x11, N);
    CHECK_OK(aclrtMemcpy(dev, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtSnapShotProcessLock(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessBackup(pid, NULL));
    if (in_place)
        memset(dev, 0x22, N);
    CHECK_OK(aclrtSnapShotProcessRestore(pid, NULL));
    CHECK_OK(aclrtSnapShotProcessUnlock(pid, NULL));
    CHECK_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0, memcmp(host, back, N));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFree(other));
    free(host);
    free(back);
}

static aclrtContext thread_context;

struct locker {
    struct gate *g;
    aclError rc;
    int gate_done_at_return;
    atomic_int returned;
};

static void *locker_main(void *arg)
{
    struct locker *l = (struct locker *)arg;
    l->rc = aclrtSnapShotProcessLock(getpid(), NULL);
    l->gate_done_at_return = atomic_load(&l->g->done);
    atomic_store(&l->returned, 1);
    return NULL;
}

TEST(lock_returns_after_the_work_launched_before_it)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct locker l = {.g = launch_gate(s)};
    CHECK(gate_wait_entered(l.g));
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, locker_main, &l));
    for (int i = 0; i < 2000; i++)
        sched_yield(); /* not synchronization: a wider window for a Lock that does not wait to be caught */
    CHECK_EQ(0, atomic_load(&l.returned));
    gate_open(l.g);
    pthread_join(t, NULL);
    CHECK_OK(l.rc);
    CHECK_EQ(1, l.gate_done_at_return);
    CHECK_OK(aclrtSnapShotProcessUnlock(getpid(), NULL));
    CHECK_OK(aclrtDestroyStream(s));
}

struct launcher {
    aclrtStream s;
    atomic_int started, returned, unlocked_seen;
    aclError rc;
};

static atomic_int ran;
static atomic_int unlocked;

static void count_fn(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void *launcher_main(void *arg)
{
    struct launcher *l = (struct launcher *)arg;
    aclrtSetCurrentContext(thread_context);
    atomic_store(&l->started, 1);
    l->rc = aclrtLaunchHostFunc(l->s, count_fn, NULL);
    atomic_store(&l->unlocked_seen, atomic_load(&unlocked));
    atomic_store(&l->returned, 1);
    return NULL;
}

TEST(launches_wait_while_the_process_is_locked)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    thread_context = main_context;
    atomic_store(&ran, 0);
    atomic_store(&unlocked, 0);
    CHECK_OK(aclrtSnapShotProcessLock(getpid(), NULL));
    struct launcher l = {.s = s};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, launcher_main, &l));
    while (!atomic_load(&l.started))
        sched_yield();
    for (int i = 0; i < 2000; i++)
        sched_yield(); /* not synchronization: a wider window for a launch that is not held to be caught */
    CHECK_EQ(0, atomic_load(&l.returned));
    CHECK_EQ(0, atomic_load(&ran));
    atomic_store(&unlocked, 1);
    CHECK_OK(aclrtSnapShotProcessUnlock(getpid(), NULL));
    pthread_join(t, NULL);
    CHECK_OK(l.rc);
    CHECK_EQ(1, atomic_load(&l.unlocked_seen)); /* it returned after the unlock */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtDestroyStream(s));
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(stages_run_in_order_and_call_their_callbacks_with_their_data);
    RUN_CASE(a_failing_callback_fails_its_stage_and_the_state_stays);
    RUN_CASE(calls_out_of_order_get_their_stages_codes);
    RUN_CASE(bad_arguments_are_refused);
    RUN_CASE(restore_writes_back_the_device_memory_of_the_backup);
    RUN_CASE(lock_returns_after_the_work_launched_before_it);
    RUN_CASE(launches_wait_while_the_process_is_locked);
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("snapshot");
}
