/*
 * tests/test_ipc.c - pins "IPC" (docs/SEMANTICS.md): events, memory and
 * notifies shared between processes.
 *
 * The other process is this program again (fork, then exec of
 * /proc/self/exe with "--peer ROLE IN OUT"): a fresh process with a runtime
 * of its own, so it may start threads under every sanitizer. Parent and
 * peer talk through two pipes: handles and keys go one way, "go" and
 * results the other. Work that must not complete yet is held by a host
 * function that blocks reading a pipe until the other side writes to it (a
 * gate that the other process opens), so every "not yet" the tests check
 * is guaranteed, not timed.
 *
 * A peer runs its checks and exits with 0, or with the line of the first
 * check that failed (after printing it); the parent checks the exit status.
 */
#define _GNU_SOURCE

#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Plumbing
 * ------------------------------------------------------------------------ */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = (const char *)buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = (char *)buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

struct peer {
    pid_t pid;
    int to;   /* parent -> peer */
    int from; /* peer -> parent */
};

/* Start this program as a peer in `role`. */
static struct peer spawn_peer(const char *role)
{
    int down[2], up[2];
    CHECK_EQ(0, pipe(down));
    CHECK_EQ(0, pipe(up));
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char in[16], out[16];
        snprintf(in, sizeof in, "%d", down[0]);
        snprintf(out, sizeof out, "%d", up[1]);
        close(down[1]);
        close(up[0]);
        execl("/proc/self/exe", "test_ipc", "--peer", role, in, out, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    return (struct peer){pid, down[1], up[0]};
}

/* Wait for the peer to exit; its status (0 = every check passed). */
static int peer_finish(struct peer *p)
{
    close(p->to);
    close(p->from);
    int status = 0;
    CHECK_EQ(p->pid, waitpid(p->pid, &status, 0));
    if (WIFSIGNALED(status))
        return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static void send_bytes(int fd, const void *buf, size_t n)
{
    CHECK_EQ(0, write_all(fd, buf, n));
}

static void recv_bytes(int fd, void *buf, size_t n)
{
    CHECK_EQ(0, read_all(fd, buf, n));
}

/* A host function that holds its stream until a byte arrives on the pipe it was given. */
static void pipe_gate_fn(void *arg)
{
    char c;
    (void)read_all((int)(intptr_t)arg, &c, 1);
}

static void launch_pipe_gate(aclrtStream s, int fd)
{
    CHECK_OK(aclrtLaunchHostFunc(s, pipe_gate_fn, (void *)(intptr_t)fd));
}

/* A host function that reads a byte of memory when it runs. */
struct read_byte {
    const unsigned char *from;
    atomic_int seen;
};

static void read_byte_fn(void *arg)
{
    struct read_byte *r = (struct read_byte *)arg;
    atomic_store(&r->seen, r->from[0]);
}

static void set_flag_fn(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* The deprecated query, called in one place with the warning silenced. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static aclError query_event_deprecated(aclrtEvent e, aclrtEventStatus *st)
{
    return aclrtQueryEvent(e, st);
}
#pragma GCC diagnostic pop

static void start(void)
{
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
}

static void stop(void)
{
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

/* ------------------------------------------------------------------------
 * The peer's side
 * ------------------------------------------------------------------------ */

static int peer_in, peer_out;

#define PEER_CHECK_EQ(expected, actual)                                                                   \
    do {                                                                                                  \
        long long peer_e_ = (long long)(expected), peer_a_ = (long long)(actual);                         \
        if (peer_e_ != peer_a_) {                                                                         \
            const char *peer_msg_ = aclGetRecentErrMsg();                                                 \
            fprintf(stderr, "FAIL %s:%d [in the peer]\n  check: %s == %s\n  expected %lld, saw %lld\n"    \
                            "  runtime said: %s\n",                                                       \
                    __FILE__, __LINE__, #actual, #expected, peer_e_, peer_a_,                             \
                    peer_msg_ != NULL ? peer_msg_ : "(nothing)");                                         \
            fflush(stderr);                                                                               \
            _exit(__LINE__ % 250 + 1);                                                                    \
        }                                                                                                 \
    } while (0)

#define PEER_OK(call) PEER_CHECK_EQ(ACL_SUCCESS, (call))
#define PEER_CHECK(cond) PEER_CHECK_EQ(1, (cond) ? 1 : 0)

static void peer_send(const void *buf, size_t n)
{
    PEER_CHECK_EQ(0, write_all(peer_out, buf, n));
}

static void peer_recv(void *buf, size_t n)
{
    PEER_CHECK_EQ(0, read_all(peer_in, buf, n));
}

/*
 * "open-wait": open the handle it is sent; the record behind it is held by
 * the parent's gate. Status NOT_READY; a stream wait queued before a host
 * function holds it back; then ("queued") the parent opens its gate: the
 * event synchronizes, its status is COMPLETE, and the stream runs on.
 */
static int peer_open_wait(void)
{
    aclrtIpcEventHandle h;
    peer_recv(&h, sizeof h);
    aclrtEvent ev = NULL;
    PEER_OK(aclrtIpcOpenEventHandle(h, &ev));
    aclrtStream s;
    PEER_OK(aclrtCreateStream(&s));
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    PEER_OK(aclrtQueryEventStatus(ev, &st));
    PEER_CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    static atomic_int after_wait;
    PEER_OK(aclrtStreamWaitEvent(s, ev));
    PEER_OK(aclrtLaunchHostFunc(s, set_flag_fn, &after_wait));
    PEER_CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(ev, 20));
    PEER_CHECK_EQ(0, atomic_load(&after_wait)); /* the record cannot be complete: the parent's gate holds it */
    peer_send("q", 1);
    PEER_OK(aclrtSynchronizeEvent(ev));
    PEER_OK(aclrtQueryEventStatus(ev, &st));
    PEER_CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    PEER_OK(aclrtSynchronizeStream(s));
    PEER_CHECK_EQ(1, atomic_load(&after_wait));
    PEER_OK(aclrtDestroyStream(s));
    PEER_OK(aclrtDestroyEvent(ev));
    return 0;
}

/*
 * "export": create an IPC event, record it behind a gate this process's
 * pipe opens, send the handle; wait for "go" (which opens the gate: the
 * parent writes to the gate's pipe), then for "end", then finish.
 */
static int peer_export(void)
{
    aclrtEvent ev;
    PEER_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtStream s;
    PEER_OK(aclrtCreateStream(&s));
    PEER_OK(aclrtLaunchHostFunc(s, pipe_gate_fn, (void *)(intptr_t)peer_in)); /* the parent's next byte opens it */
    PEER_OK(aclrtRecordEvent(ev, s));
    aclrtIpcEventHandle h;
    PEER_OK(aclrtIpcGetEventHandle(ev, &h));
    peer_send(&h, sizeof h);
    PEER_OK(aclrtSynchronizeStream(s)); /* the gate opened */
    char c;
    peer_recv(&c, 1); /* "end": the parent is done with the event */
    PEER_OK(aclrtDestroyStream(s));
    PEER_OK(aclrtDestroyEvent(ev));
    return 0;
}

/*
 * "export-and-die": like "export", but after the handle is sent the process
 * waits for one byte on its main thread and exits at once, its record
 * still held by a gate nobody opens.
 */
static int peer_export_and_die(void)
{
    int never[2];
    PEER_CHECK_EQ(0, pipe(never));
    aclrtEvent ev;
    PEER_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtStream s;
    PEER_OK(aclrtCreateStream(&s));
    PEER_OK(aclrtLaunchHostFunc(s, pipe_gate_fn, (void *)(intptr_t)never[0]));
    PEER_OK(aclrtRecordEvent(ev, s));
    aclrtIpcEventHandle h;
    PEER_OK(aclrtIpcGetEventHandle(ev, &h));
    peer_send(&h, sizeof h);
    char c;
    peer_recv(&c, 1);
    _exit(0);
}

/* "record": open the handle it is sent and record it on an idle stream, then report. */
static int peer_record(void)
{
    aclrtIpcEventHandle h;
    peer_recv(&h, sizeof h);
    aclrtEvent ev = NULL;
    PEER_OK(aclrtIpcOpenEventHandle(h, &ev));
    aclrtStream s;
    PEER_OK(aclrtCreateStream(&s));
    PEER_OK(aclrtRecordEvent(ev, s));
    PEER_OK(aclrtSynchronizeStream(s));
    peer_send("r", 1);
    PEER_OK(aclrtDestroyStream(s));
    PEER_OK(aclrtDestroyEvent(ev));
    return 0;
}

/*
 * "mem-import": send this process's pid; then for each key received (an
 * empty one ends it): import it and send the code; if imported, send the
 * first word seen there, write a word at +8 (aclrtMemcpy) and bytes at +16
 * (aclrtMemsetAsync), send "w", and close the import when told ("c"),
 * sending that code too. On the way it checks what is refused on every
 * backend: a second import of the key, aclrtFree and an export of the
 * import, a second close.
 */
static int peer_mem_import(void)
{
    int32_t pid = 0;
    PEER_OK(aclrtDeviceGetBareTgid(&pid));
    peer_send(&pid, sizeof pid);
    aclrtStream s;
    PEER_OK(aclrtCreateStream(&s));
    for (;;) {
        char key[65];
        peer_recv(key, sizeof key);
        if (key[0] == '\0')
            break;
        void *p = NULL;
        int32_t rc = aclrtIpcMemImportByKey(&p, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT);
        peer_send(&rc, sizeof rc);
        if (rc != ACL_SUCCESS)
            continue;
        uint64_t first;
        PEER_OK(aclrtMemcpy(&first, sizeof first, p, sizeof first, ACL_MEMCPY_DEVICE_TO_HOST));
        peer_send(&first, sizeof first);
        uint64_t word = 0x1122334455667788ull;
        PEER_OK(aclrtMemcpy((char *)p + 8, 8, &word, sizeof word, ACL_MEMCPY_HOST_TO_DEVICE));
        PEER_OK(aclrtMemsetAsync((char *)p + 16, 8, 0x5A, 8, s));
        PEER_OK(aclrtSynchronizeStream(s));
        void *again = NULL;
        char other[65];
        PEER_CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&again, key, 0)); /* imported already */
        PEER_CHECK(again == NULL);
        PEER_CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(p));
        PEER_CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemGetExportKey(p, 8, other, sizeof other, 0));
        peer_send("w", 1);
        char c;
        peer_recv(&c, 1);
        rc = aclrtIpcMemClose(key);
        peer_send(&rc, sizeof rc);
        PEER_CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key)); /* closed already */
    }
    PEER_OK(aclrtDestroyStream(s));
    return 0;
}

/* "mem-export-exit": export 64 KiB holding 0x77 bytes, send the key, exit (finalizing) after one byte comes. */
static int peer_mem_export_exit(void)
{
    void *p;
    PEER_OK(aclrtMalloc(&p, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
    PEER_OK(aclrtMemset(p, 65536, 0x77, 65536));
    char key[65];
    PEER_OK(aclrtIpcMemGetExportKey(p, 65536, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    peer_send(key, sizeof key);
    char c;
    peer_recv(&c, 1);
    return 0; /* aclFinalize frees the memory and ends the export */
}

/*
 * "notify-import": send this process's pid; for each key received (an
 * empty one ends it): import it and send the code; if imported, check that
 * a wait here is refused, then record as many times as each count byte
 * received says (0 ends the key) and send "d" when those records completed.
 */
static int peer_notify_import(void)
{
    int32_t pid = 0;
    PEER_OK(aclrtDeviceGetBareTgid(&pid));
    peer_send(&pid, sizeof pid);
    aclrtStream s;
    PEER_OK(aclrtCreateStream(&s));
    for (;;) {
        char key[65];
        peer_recv(key, sizeof key);
        if (key[0] == '\0')
            break;
        aclrtNotify n = NULL;
        int32_t rc = aclrtNotifyImportByKey(&n, key, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT);
        peer_send(&rc, sizeof rc);
        if (rc != ACL_SUCCESS)
            continue;
        PEER_CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtWaitAndResetNotify(n, s, 0));
        for (;;) {
            unsigned char count;
            peer_recv(&count, 1);
            if (count == 0)
                break;
            for (unsigned i = 0; i < count; i++)
                PEER_OK(aclrtRecordNotify(n, s));
            PEER_OK(aclrtSynchronizeStream(s));
            peer_send("d", 1);
        }
        PEER_OK(aclrtDestroyNotify(n));
    }
    PEER_OK(aclrtDestroyStream(s));
    return 0;
}

/*
 * "fd-limit": with this process's descriptor limit 24 above what it has
 * open, 32 allocations of 64 KiB all succeed (those past the runtime's
 * share of the limit are ordinary memory) and the program can still open a
 * file; with the limit restored, the early ones export and the
 * late ones are refused as not shareable. Sends the two counts.
 */
static int peer_fd_limit(void)
{
    struct rlimit saved, low;
    PEER_CHECK_EQ(0, getrlimit(RLIMIT_NOFILE, &saved));
    int open_fds = 0;
    DIR *d = opendir("/proc/self/fd");
    PEER_CHECK(d != NULL);
    while (readdir(d) != NULL)
        open_fds++;
    closedir(d);
    low = saved;
    low.rlim_cur = (rlim_t)open_fds + 24; /* the runtime may keep a quarter of it: fewer than 24 while a few are open */
    PEER_CHECK_EQ(0, setrlimit(RLIMIT_NOFILE, &low));
    void *p[32];
    for (int i = 0; i < 32; i++)
        PEER_OK(aclrtMalloc(&p[i], 65536, ACL_MEM_MALLOC_HUGE_FIRST));
    /* The runtime kept at most a quarter of the limit: the program can still open a file of its own. */
    int own = open("/dev/null", O_RDONLY | O_CLOEXEC);
    PEER_CHECK(own >= 0);
    close(own);
    PEER_CHECK_EQ(0, setrlimit(RLIMIT_NOFILE, &saved));
    int32_t shared = 0, refused = 0;
    for (int i = 0; i < 32; i++) {
        char key[65];
        aclError rc = aclrtIpcMemGetExportKey(p[i], 65536, key, sizeof key, 0);
        if (rc == ACL_SUCCESS) {
            shared++;
            PEER_OK(aclrtIpcMemClose(key));
        } else {
            PEER_CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, rc);
            refused++;
        }
    }
    for (int i = 0; i < 32; i++)
        PEER_OK(aclrtFree(p[i]));
    peer_send(&shared, sizeof shared);
    peer_send(&refused, sizeof refused);
    return 0;
}

#define PHYS_SIZE ((size_t)2 << 20) /* one block of ACL_HBM_MEM_NORMAL: its granularity */

static aclrtDrvMemHandle phys_alloc(aclrtPhysicalMemProp *prop_out)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    if (prop_out != NULL)
        *prop_out = prop;
    aclrtDrvMemHandle h = NULL;
    if (aclrtMallocPhysical(&h, PHYS_SIZE, &prop, 0) != ACL_SUCCESS)
        return NULL;
    return h;
}

/* Reserve a range for one block and map h there; NULL if either fails. */
static volatile uint64_t *phys_map(aclrtDrvMemHandle h)
{
    void *va = NULL;
    if (aclrtReserveMemAddress(&va, PHYS_SIZE, 0, NULL, 0) != ACL_SUCCESS)
        return NULL;
    if (aclrtMapMem(va, PHYS_SIZE, 0, h, 0) != ACL_SUCCESS) {
        (void)aclrtReleaseMemAddress(va);
        return NULL;
    }
    return (volatile uint64_t *)va;
}

static aclError phys_unmap(volatile uint64_t *w)
{
    aclError rc = aclrtUnmapMem((void *)w);
    return rc != ACL_SUCCESS ? rc : aclrtReleaseMemAddress((void *)w);
}

/*
 * "phys-import": send this process's pid; then for each shareable handle
 * received (0 ends it): import it on device 0 and send the code; if
 * imported, check that a second import is refused, map the block, send the
 * first word seen there, write 0x1122334455667788 at word 1 and send "w";
 * when a byte comes, send word 2 (the exporter wrote it meanwhile), unmap,
 * free the handle and send "f".
 */
static int peer_phys_import(void)
{
    int32_t pid = 0;
    PEER_OK(aclrtDeviceGetBareTgid(&pid));
    peer_send(&pid, sizeof pid);
    for (;;) {
        uint64_t shareable = 0;
        peer_recv(&shareable, sizeof shareable);
        if (shareable == 0)
            break;
        aclrtDrvMemHandle h = NULL;
        int32_t rc = aclrtMemImportFromShareableHandle(shareable, 0, &h);
        peer_send(&rc, sizeof rc);
        if (rc != ACL_SUCCESS)
            continue;
        aclrtDrvMemHandle again = NULL;
        PEER_CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(shareable, 0, &again));
        PEER_CHECK(again == NULL);
        volatile uint64_t *w = phys_map(h);
        PEER_CHECK(w != NULL);
        uint64_t first = w[0];
        peer_send(&first, sizeof first);
        w[1] = 0x1122334455667788ull;
        peer_send("w", 1);
        char c;
        peer_recv(&c, 1);
        uint64_t third = w[2];
        peer_send(&third, sizeof third);
        PEER_OK(phys_unmap(w));
        PEER_OK(aclrtFreePhysical(h));
        peer_send("f", 1);
    }
    return 0;
}

/*
 * "phys-export-exit": a block of 0x77 bytes (written through a mapping),
 * exported without pid validation; send the shareable handle, exit
 * (finalizing, which frees the block and ends the export) after one byte.
 */
static int peer_phys_export_exit(void)
{
    aclrtDrvMemHandle h = phys_alloc(NULL);
    PEER_CHECK(h != NULL);
    volatile uint64_t *w = phys_map(h);
    PEER_CHECK(w != NULL);
    memset((void *)w, 0x77, PHYS_SIZE);
    uint64_t shareable = 0;
    PEER_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                            &shareable));
    peer_send(&shareable, sizeof shareable);
    char c;
    peer_recv(&c, 1);
    return 0;
}

static int peer_main(int argc, char **argv)
{
    if (argc != 5)
        return 120;
    peer_in = atoi(argv[3]);
    peer_out = atoi(argv[4]);
    PEER_OK(aclInit(NULL));
    PEER_OK(aclrtSetDevice(0));
    int rc = 121;
    if (strcmp(argv[2], "open-wait") == 0)
        rc = peer_open_wait();
    else if (strcmp(argv[2], "export") == 0)
        rc = peer_export();
    else if (strcmp(argv[2], "export-and-die") == 0)
        rc = peer_export_and_die();
    else if (strcmp(argv[2], "record") == 0)
        rc = peer_record();
    else if (strcmp(argv[2], "fd-limit") == 0)
        rc = peer_fd_limit();
    else if (strcmp(argv[2], "notify-import") == 0)
        rc = peer_notify_import();
    else if (strcmp(argv[2], "mem-import") == 0)
        rc = peer_mem_import();
    else if (strcmp(argv[2], "mem-export-exit") == 0)
        rc = peer_mem_export_exit();
    else if (strcmp(argv[2], "phys-import") == 0)
        rc = peer_phys_import();
    else if (strcmp(argv[2], "phys-export-exit") == 0)
        rc = peer_phys_export_exit();
    PEER_OK(aclrtResetDevice(0));
    PEER_OK(aclFinalize());
    return rc;
}

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

TEST(a_record_in_this_process_releases_status_synchronize_and_stream_wait_in_another)
{
    start();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    int gate[2];
    CHECK_EQ(0, pipe(gate));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    launch_pipe_gate(s, gate[0]);
    CHECK_OK(aclrtRecordEvent(ev, s));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);

    struct peer p = spawn_peer("open-wait");
    send_bytes(p.to, &h, sizeof h);
    char c;
    recv_bytes(p.from, &c, 1); /* the peer queued its wait and saw the record pending */
    CHECK_EQ('q', c);
    send_bytes(gate[1], "g", 1);
    CHECK_OK(aclrtSynchronizeEvent(ev));
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK_EQ(0, peer_finish(&p));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyEvent(ev));
    close(gate[0]);
    close(gate[1]);
    stop();
}

TEST(a_record_in_another_process_releases_status_synchronize_and_stream_wait_here)
{
    start();
    struct peer p = spawn_peer("export");
    aclrtIpcEventHandle h;
    recv_bytes(p.from, &h, sizeof h);
    aclrtEvent ev;
    CHECK_OK(aclrtIpcOpenEventHandle(h, &ev));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st); /* the peer's gate holds its record */
    CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(ev, 20));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int after_wait;
    CHECK_OK(aclrtStreamWaitEvent(s, ev));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag_fn, &after_wait));
    CHECK_EQ(0, atomic_load(&after_wait));
    send_bytes(p.to, "g", 1); /* opens the peer's gate */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&after_wait));
    CHECK_OK(aclrtSynchronizeEvent(ev));
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    send_bytes(p.to, "e", 1);
    CHECK_EQ(0, peer_finish(&p));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyEvent(ev));
    stop();
}

TEST(aclfinalize_returns_with_a_stream_wait_pending_on_another_process)
{
    start();
    struct peer p = spawn_peer("export");
    aclrtIpcEventHandle h;
    recv_bytes(p.from, &h, sizeof h);
    aclrtEvent ev;
    CHECK_OK(aclrtIpcOpenEventHandle(h, &ev));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int after_wait;
    CHECK_OK(aclrtStreamWaitEvent(s, ev)); /* the peer's gate holds the record */
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag_fn, &after_wait));
    stop(); /* the parked wait is discarded (docs/SEMANTICS.md, Teardown) */
    CHECK_EQ(0, atomic_load(&after_wait));
    send_bytes(p.to, "g", 1);
    send_bytes(p.to, "e", 1);
    CHECK_EQ(0, peer_finish(&p));
}

TEST(a_record_through_the_opened_event_completes_the_exporting_one)
{
    start();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    /* A record here, held by a gate: the exporter's event is not complete. */
    int gate[2];
    CHECK_EQ(0, pipe(gate));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    launch_pipe_gate(s, gate[0]);
    CHECK_OK(aclrtRecordEvent(ev, s));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    /* The peer's later record completes: the latest record is complete, so is the event. */
    struct peer p = spawn_peer("record");
    send_bytes(p.to, &h, sizeof h);
    char c;
    recv_bytes(p.from, &c, 1);
    CHECK_EQ('r', c);
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK_OK(aclrtSynchronizeEvent(ev));
    CHECK_EQ(0, peer_finish(&p));
    send_bytes(gate[1], "g", 1);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyEvent(ev));
    close(gate[0]);
    close(gate[1]);
    stop();
}

TEST(an_ipc_event_opened_in_its_own_process_shares_its_records)
{
    start();
    aclrtEvent ev, opened;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    CHECK_OK(aclrtIpcOpenEventHandle(h, &opened));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(opened, &st)); /* nothing recorded: complete, like any Ex event */
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    int gate[2];
    CHECK_EQ(0, pipe(gate));
    aclrtStream s, w;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&w));
    launch_pipe_gate(s, gate[0]);
    CHECK_OK(aclrtRecordEvent(opened, s));
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    static atomic_int after_wait;
    CHECK_OK(aclrtStreamWaitEvent(w, ev));
    CHECK_OK(aclrtLaunchHostFunc(w, set_flag_fn, &after_wait));
    CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(ev, 10));
    CHECK_EQ(0, atomic_load(&after_wait));
    /* The exporter destroyed: the opened event and the pending wait go on. */
    CHECK_OK(aclrtDestroyEvent(ev));
    send_bytes(gate[1], "g", 1);
    CHECK_OK(aclrtSynchronizeEvent(opened));
    CHECK_OK(aclrtSynchronizeStream(w));
    CHECK_EQ(1, atomic_load(&after_wait));
    CHECK_OK(aclrtQueryEventStatus(opened, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    /* Its handle names nothing now. */
    aclrtEvent again = NULL;
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcOpenEventHandle(h, &again));
    CHECK(again == NULL);
    CHECK_OK(aclrtDestroyEvent(opened));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(w));
    close(gate[0]);
    close(gate[1]);
    stop();
}

TEST(a_record_whose_process_exited_fails_synchronize_and_stream_wait_with_ipc_error)
{
    start();
    struct peer p = spawn_peer("export-and-die");
    aclrtIpcEventHandle h;
    recv_bytes(p.from, &h, sizeof h);
    aclrtEvent ev;
    CHECK_OK(aclrtIpcOpenEventHandle(h, &ev));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtStreamWaitEvent(s, ev)); /* queued while the peer lives */
    send_bytes(p.to, "x", 1);
    CHECK_EQ(0, peer_finish(&p)); /* exited, reaped: its record will never complete */
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtSynchronizeEvent(ev));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "exited");
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    stop();
}

TEST(ipc_event_calls_reject_bad_input_with_the_documented_codes)
{
    start();
    aclrtEvent ev, plain;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    CHECK_OK(aclrtCreateEventExWithFlag(&plain, ACL_EVENT_SYNC));
    aclrtIpcEventHandle h;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(ev, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(NULL, &h));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(plain, &h));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not an IPC event");
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcGetEventHandle((aclrtEvent)(uintptr_t)0x1234, &h));
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(h, NULL));

    /* Not a handle of ours: zeros, random bytes, a key of another kind, a key with its random part changed. */
    aclrtIpcEventHandle bad;
    aclrtEvent out = NULL;
    memset(&bad, 0, sizeof bad);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(bad, &out));
    for (size_t i = 0; i < sizeof bad.reserved; i++)
        bad.reserved[i] = (char)(i * 37 + 11);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(bad, &out));
    bad = h;
    bad.reserved[6] = 'm';
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(bad, &out));
    bad = h;
    bad.reserved[40] = bad.reserved[40] == '0' ? '1' : '0';
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcOpenEventHandle(bad, &out));
    bad = h;
    memcpy(bad.reserved + 8, "7ffffff0", 8); /* a process that does not exist */
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcOpenEventHandle(bad, &out));
    CHECK(out == NULL);

    /* What IPC events do not take. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint64_t ts;
    uint32_t id;
    float ms;
    aclrtEventStatus es;
    aclrtEventWaitStatus ws;
    CHECK_OK(aclrtRecordEvent(ev, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventGetTimestamp(ev, &ts));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventElapsedTime(&ms, ev, ev));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetEventId(ev, &id));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ev, s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, query_event_deprecated(ev, &es));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(ev, &ws));

    /* A destroyed IPC event's handle gets the stale-handle code, and its key opens nothing. */
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcGetEventHandle(ev, &h));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(ev, s));
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcOpenEventHandle(h, &out));
    CHECK_OK(aclrtDestroyEvent(plain));
    CHECK_OK(aclrtDestroyStream(s));
    stop();
}

TEST(many_records_and_waits_across_streams_end_complete)
{
    start();
    aclrtEvent ev, opened;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    CHECK_OK(aclrtIpcOpenEventHandle(h, &opened));
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    static atomic_int count;
    for (int i = 0; i < 200; i++) {
        CHECK_OK(aclrtRecordEvent(ev, a));
        CHECK_OK(aclrtStreamWaitEvent(b, opened));
        CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &count));
    }
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeEvent(opened));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK_EQ(200, atomic_load(&count));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyEvent(opened));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    stop();
}

TEST(a_record_dropped_with_its_stream_counts_as_complete_and_a_wait_past_its_timeout_fails)
{
    start();
    aclrtEvent ev, opened;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    CHECK_OK(aclrtIpcOpenEventHandle(h, &opened));
    aclrtNotify never;
    CHECK_OK(aclrtCreateNotify(&never, ACL_NOTIFY_DEFAULT));
    aclrtStream s, w;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&w));
    CHECK_OK(aclrtWaitAndResetNotify(never, s, 0)); /* holds the record below until the stream goes */
    CHECK_OK(aclrtRecordEvent(ev, s));
    /* A stream wait with a 1 s timeout on the pending record fails with the timeout code. */
    CHECK_OK(aclrtStreamWaitEventWithTimeout(w, opened, 1));
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(w));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(opened, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    /* The record is discarded with its stream: the opened event completes. */
    CHECK_OK(aclrtDestroyStreamForce(s));
    CHECK_OK(aclrtSynchronizeEvent(opened));
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK_OK(aclrtDestroyEvent(opened));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyNotify(never));
    CHECK_OK(aclrtDestroyStream(w));
    stop();
}

TEST(aclfinalize_frees_ipc_events_left_alive_and_their_handles_then_open_nothing)
{
    start();
    aclrtEvent ev, opened;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    CHECK_OK(aclrtIpcOpenEventHandle(h, &opened));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtRecordEvent(opened, s));
    stop(); /* the events, the stream and the shared page go (ASan's leak check sees what is left) */
    start();
    aclrtEvent again = NULL;
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcOpenEventHandle(h, &again));
    CHECK(again == NULL);
    stop();
}

/* ------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------ */

/*
 * Is aclrtMalloc memory shared as memory files here (the host backend)?
 * Otherwise (the cuda backend) its driver shares it: CUDA's handles, which
 * open only in another process and only while the exporter keeps the
 * allocation. Device memory is reached through copies on every backend
 * (a GPU's is not the host's).
 */
static int memory_in_files(void)
{
    const char *backend = aclrtxGetBackendName();
    return backend != NULL && strcmp(backend, "host") == 0;
}

/* Word i of device memory p, read with a copy. */
static uint64_t dev_word(const void *p, size_t i)
{
    uint64_t w = 0;
    CHECK_OK(aclrtMemcpy(&w, sizeof w, (const uint64_t *)p + i, sizeof w, ACL_MEMCPY_DEVICE_TO_HOST));
    return w;
}

/* Words 0, 1, 2 of device memory p: first, 0, 0 (a copy). */
static void dev_words_init(void *p, uint64_t first)
{
    uint64_t w[3] = {first, 0, 0};
    CHECK_OK(aclrtMemcpy(p, sizeof w, w, sizeof w, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* Drive a "mem-import" peer through one import of key; returns the import's code (0: it wrote its marks). */
static int32_t peer_import_once(struct peer *p, const char *key, uint64_t *first)
{
    char buf[65] = {0};
    strncpy(buf, key, sizeof buf - 1);
    send_bytes(p->to, buf, sizeof buf);
    int32_t rc = -1;
    recv_bytes(p->from, &rc, sizeof rc);
    if (rc != ACL_SUCCESS)
        return rc;
    recv_bytes(p->from, first, sizeof *first);
    char c;
    recv_bytes(p->from, &c, 1);
    CHECK_EQ('w', c);
    return rc;
}

static void peer_close_import(struct peer *p)
{
    send_bytes(p->to, "c", 1);
    int32_t rc = -1;
    recv_bytes(p->from, &rc, sizeof rc);
    CHECK_EQ(ACL_SUCCESS, rc);
}

static void peer_imports_end(struct peer *p)
{
    char none[65] = {0};
    send_bytes(p->to, none, sizeof none);
}

TEST(exported_memory_is_the_same_bytes_in_the_importing_process)
{
    start();
    uint64_t *p;
    CHECK_OK(aclrtMalloc((void **)&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    dev_words_init(p, 0xA5A5A5A5A5A5A5A5ull);
    char key[65];
    CHECK_OK(aclrtIpcMemGetExportKey(p, 1 << 20, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK_EQ(58, (long long)strlen(key));
    /* A value wait here on the word the other process will write (value waits also poll for foreign writes). */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int seen_write;
    CHECK_OK(aclrtValueWait(&p[1], 0x1122334455667788ull, ACL_STREAM_WAIT_VALUE_EQ, s));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag_fn, &seen_write));
    struct peer pr = spawn_peer("mem-import");
    int32_t pid;
    recv_bytes(pr.from, &pid, sizeof pid);
    uint64_t first = 0;
    CHECK_EQ(0, atomic_load(&seen_write));
    CHECK_EQ(ACL_SUCCESS, peer_import_once(&pr, key, &first));
    CHECK_EQ((long long)0xA5A5A5A5A5A5A5A5ull, (long long)first);
    CHECK_EQ((long long)0x1122334455667788ull, (long long)dev_word(p, 1)); /* written there, seen here */
    CHECK_EQ((long long)0x5A5A5A5A5A5A5A5Aull, (long long)dev_word(p, 2));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&seen_write));
    CHECK_OK(aclrtDestroyStream(s));
    peer_close_import(&pr);
    peer_imports_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(aclrtIpcMemClose(key));
    CHECK_OK(aclrtFree(p));
    stop();
}

TEST(a_small_block_off_a_page_start_is_the_same_bytes_in_the_importing_process)
{
    start();
    /*
     * Blocks of a few bytes: on the host backend the second is not where a
     * page starts (each class's blocks follow each other); where each
     * allocation starts a page (the cuda backend), 40 bytes 64 bytes into a
     * third one: a range off the start of its allocation.
     */
    uint64_t *a, *b, *c;
    CHECK_OK(aclrtMalloc((void **)&a, 40, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&b, 40, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&c, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    uint64_t *p = (uintptr_t)b % 4096 != 0 ? b : (uintptr_t)a % 4096 != 0 ? a : c + 8;
    CHECK((uintptr_t)p % 4096 != 0);
    dev_words_init(p, 0xA5A5A5A5A5A5A5A5ull);
    char key[65];
    CHECK_OK(aclrtIpcMemGetExportKey(p, 40, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    struct peer pr = spawn_peer("mem-import");
    int32_t pid;
    recv_bytes(pr.from, &pid, sizeof pid);
    uint64_t first = 0;
    CHECK_EQ(ACL_SUCCESS, peer_import_once(&pr, key, &first));
    CHECK_EQ((long long)0xA5A5A5A5A5A5A5A5ull, (long long)first);   /* the block's own first word */
    CHECK_EQ((long long)0x1122334455667788ull, (long long)dev_word(p, 1)); /* written there, seen here */
    CHECK_EQ((long long)0x5A5A5A5A5A5A5A5Aull, (long long)dev_word(p, 2));
    CHECK_EQ(0, (long long)dev_word(p, 3)); /* past the range: untouched */
    peer_close_import(&pr);
    peer_imports_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(aclrtIpcMemClose(key));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtFree(c));
    stop();
}

TEST(an_import_from_a_process_not_on_the_allow_list_is_refused_until_it_is_added)
{
    start();
    void *p;
    CHECK_OK(aclrtMalloc(&p, 65536, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(p, 65536, 0x11, 65536));
    char key[65];
    CHECK_OK(aclrtIpcMemGetExportKey(p, 65536, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    struct peer pr = spawn_peer("mem-import");
    int32_t pid;
    recv_bytes(pr.from, &pid, sizeof pid);
    uint64_t first = 0;
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, peer_import_once(&pr, key, &first)); /* empty list */
    int32_t self = (int32_t)getpid();
    CHECK_OK(aclrtIpcMemSetImportPid(key, &self, 1));
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, peer_import_once(&pr, key, &first)); /* a list without it */
    aclrtServerPid server = {7, &pid, 1}; /* the InterServer form: its pids join the list */
    CHECK_OK(aclrtIpcMemImportPidInterServer(key, &server, 1));
    CHECK_EQ(ACL_SUCCESS, peer_import_once(&pr, key, &first));
    CHECK_EQ((long long)0x1111111111111111ull, (long long)first);
    peer_close_import(&pr);
    /* Closed by the exporter: no import any more. */
    CHECK_OK(aclrtIpcMemClose(key));
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, peer_import_once(&pr, key, &first));
    peer_imports_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(aclrtFree(p));
    stop();
}

TEST(an_import_stays_valid_after_the_exporting_process_exits)
{
    start();
    if (!memory_in_files()) { /* CUDA: an import is valid only while the exporter keeps the allocation */
        stop();
        return;
    }
    struct peer pr = spawn_peer("mem-export-exit");
    char key[65];
    recv_bytes(pr.from, key, sizeof key);
    unsigned char *q;
    CHECK_OK(aclrtIpcMemImportByKey((void **)&q, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
    CHECK_EQ(0x77, q[0]);
    send_bytes(pr.to, "x", 1);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_EQ(0x77, q[65535]);
    CHECK_OK(aclrtMemset(q, 65536, 0x33, 16)); /* still device memory of this process */
    CHECK_EQ(0x33, q[15]);
    void *again = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&again, key, 0)); /* imported here already */
    /* Work launched before the close still reads the import: the mapping goes once it is done. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int gate[2];
    CHECK_EQ(0, pipe(gate));
    launch_pipe_gate(s, gate[0]);
    static struct read_byte rb;
    rb.from = q;
    atomic_store(&rb.seen, -1);
    CHECK_OK(aclrtLaunchHostFunc(s, read_byte_fn, &rb));
    CHECK_OK(aclrtIpcMemClose(key));
    send_bytes(gate[1], "x", 1);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0x33, atomic_load(&rb.seen));
    CHECK_OK(aclrtDestroyStream(s));
    close(gate[0]);
    close(gate[1]);
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcMemImportByKey(&again, key, 0)); /* its process is gone */
    CHECK(again == NULL);
    stop();
}

TEST(allocations_past_the_descriptor_limit_succeed_as_memory_that_is_not_shareable)
{
    start();
    if (!memory_in_files()) { /* the driver shares device memory: no descriptor per allocation */
        stop();
        return;
    }
    struct peer pr = spawn_peer("fd-limit");
    int32_t shared = -1, refused = -1;
    recv_bytes(pr.from, &shared, sizeof shared);
    recv_bytes(pr.from, &refused, sizeof refused);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK(shared >= 1);  /* the first ones got a memory file */
    CHECK(refused >= 1); /* the later ones could not, and are ordinary memory */
    CHECK_EQ(32, shared + refused);
    stop();
}

TEST(ipc_memory_calls_reject_bad_input_with_the_documented_codes)
{
    start();
    void *big, *small;
    CHECK_OK(aclrtMalloc(&big, 3 * 65536, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&small, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    char key[65], other[65];
    void *out = NULL;
    int32_t pid = (int32_t)getpid(), bad_pid = -1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(NULL, 65536, key, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(big, 65536, NULL, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(big, 0, key, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(big, 65536, key, 64, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(big, 65536, key, sizeof key, 2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(key, 16, other, sizeof other, 0)); /* host memory */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(big, 4 * 65536, key, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(NULL, "aclrt", 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&out, NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&out, "not a key", 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&out, "", 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(NULL, &pid, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid("not a key", &pid, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose("not a key"));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr("not a key", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0));
    {
        /* Any block, whatever its size, and any range inside one (off its pages' starts too). */
        CHECK_OK(aclrtIpcMemGetExportKey(small, 4096, key, sizeof key, 0));
        CHECK_OK(aclrtIpcMemClose(key));
        CHECK_OK(aclrtIpcMemGetExportKey((char *)big + 64, 4096, key, sizeof key, 0));
        CHECK_OK(aclrtIpcMemClose(key));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(small, 4097, key, sizeof key, 0));
        CHECK_OK(aclrtIpcMemGetExportKey((char *)big + 65536, 65536, key, sizeof key, 0));
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, NULL, 1));
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, &pid, 0));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, &bad_pid, 1));
        CHECK_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
        aclrtServerPid servers[2] = {{1, &pid, 1}, {2, NULL, 1}};
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportPidInterServer(key, NULL, 1));
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportPidInterServer(key, servers, 0));
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportPidInterServer(key, servers, 2)); /* one has no pids */
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer("not a key", servers, 1));
        CHECK_OK(aclrtIpcMemImportPidInterServer(key, servers, 1));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr(key, (aclrtIpcMemAttrType)1, 0));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 4));
        CHECK_OK(aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&out, key, 2));
        /* A key of another kind, and a key whose random part was changed. */
        aclrtEvent ev;
        aclrtIpcEventHandle h;
        CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
        CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&out, h.reserved, 0));
        CHECK_OK(aclrtDestroyEvent(ev));
        memcpy(other, key, sizeof other);
        other[50] = other[50] == 'a' ? 'b' : 'a';
        CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcMemImportByKey(&out, other, 0));
        /*
         * Imported in its own process: other addresses, the same bytes;
         * aclrtFree refuses the import. CUDA opens a handle only in another
         * process: there the import is refused as not supported.
         */
        unsigned char *q = NULL;
        if (memory_in_files()) {
            CHECK_OK(aclrtIpcMemImportByKey((void **)&q, key, 0));
            CHECK(q != (unsigned char *)big + 65536);
            CHECK_OK(aclrtMemset((char *)big + 65536, 65536, 0x42, 65536));
            CHECK_EQ(0x42, q[0]);
            CHECK_EQ(0x42, q[65535]);
            CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(q));
            CHECK_OK(aclrtIpcMemClose(key)); /* the import */
        } else {
            CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportByKey((void **)&q, key, 0));
            CHECK(q == NULL);
        }
        CHECK_OK(aclrtIpcMemClose(key)); /* the export */
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key));
        CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtIpcMemImportByKey(&out, key, 0));
        /* Exports and imports left open are ended by aclFinalize (ASan's leak check sees what is left). */
        CHECK_OK(aclrtIpcMemGetExportKey(big, 65536, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
        if (memory_in_files())
            CHECK_OK(aclrtIpcMemImportByKey((void **)&q, key, 0));
    }
    CHECK(out == NULL);
    CHECK_OK(aclrtFree(small));
    CHECK_OK(aclrtFree(big));
    stop();
}

/* ------------------------------------------------------------------------
 * Physical memory (shareable handles)
 * ------------------------------------------------------------------------ */

/* Send a "phys-import" peer a shareable handle; the code of its import. */
static int32_t peer_phys_import_code(struct peer *p, uint64_t shareable)
{
    send_bytes(p->to, &shareable, sizeof shareable);
    int32_t rc = -1;
    recv_bytes(p->from, &rc, sizeof rc);
    return rc;
}

/* After a successful import: the first word the peer saw; it has written its word 1 when this returns. */
static uint64_t peer_phys_first_word(struct peer *p)
{
    uint64_t first = 0;
    recv_bytes(p->from, &first, sizeof first);
    char c = 0;
    recv_bytes(p->from, &c, 1);
    CHECK_EQ('w', c);
    return first;
}

/* Let the peer read word 2 (returned), unmap and free its import. */
static uint64_t peer_phys_finish_import(struct peer *p)
{
    send_bytes(p->to, "r", 1);
    uint64_t third = 0;
    recv_bytes(p->from, &third, sizeof third);
    char c = 0;
    recv_bytes(p->from, &c, 1);
    CHECK_EQ('f', c);
    return third;
}

static void peer_phys_end(struct peer *p)
{
    uint64_t none = 0;
    send_bytes(p->to, &none, sizeof none);
}

TEST(a_physical_block_is_the_same_bytes_through_mappings_in_the_exporting_and_importing_process)
{
    start();
    aclrtDrvMemHandle h = phys_alloc(NULL);
    CHECK(h != NULL);
    volatile uint64_t *w = phys_map(h);
    CHECK(w != NULL);
    w[0] = 0xA5A5A5A5A5A5A5A5ull;
    uint64_t shareable = 0;
    CHECK_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                             &shareable));
    CHECK_EQ((long long)getpid(), (long long)(shareable >> 42)); /* the exporter's pid leads the handle */
    struct peer pr = spawn_peer("phys-import");
    int32_t pid = 0;
    recv_bytes(pr.from, &pid, sizeof pid);
    CHECK_EQ(0, w[1]);
    CHECK_EQ(ACL_SUCCESS, peer_phys_import_code(&pr, shareable));
    CHECK_EQ((long long)0xA5A5A5A5A5A5A5A5ull, (long long)peer_phys_first_word(&pr)); /* written here, seen there */
    CHECK_EQ((long long)0x1122334455667788ull, (long long)w[1]);                        /* written there, seen here */
    w[2] = 0xC3C3C3C3C3C3C3C3ull;
    CHECK_EQ((long long)0xC3C3C3C3C3C3C3C3ull, (long long)peer_phys_finish_import(&pr));
    /* The peer freed its import: this process's block and mapping are untouched. */
    CHECK_EQ((long long)0x1122334455667788ull, (long long)w[1]);
    peer_phys_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(phys_unmap(w));
    CHECK_OK(aclrtFreePhysical(h));
    stop();
}

TEST(a_physical_import_needs_the_whitelist_a_live_export_and_a_handle_that_names_it)
{
    start();
    aclrtDrvMemHandle h = phys_alloc(NULL);
    CHECK(h != NULL);
    volatile uint64_t *w = phys_map(h);
    CHECK(w != NULL);
    w[0] = 42;
    uint64_t shareable = 0;
    CHECK_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable));
    struct peer pr = spawn_peer("phys-import");
    int32_t pid = 0;
    recv_bytes(pr.from, &pid, sizeof pid);
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, peer_phys_import_code(&pr, shareable)); /* an empty whitelist */
    int32_t self = (int32_t)getpid();
    CHECK_OK(aclrtMemSetPidToShareableHandle(shareable, &self, 1));
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, peer_phys_import_code(&pr, shareable)); /* a whitelist without it */
    CHECK_OK(aclrtMemSetPidToShareableHandle(shareable, &pid, 1));
    /* Handles that name no export: another random part, another descriptor. */
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, peer_phys_import_code(&pr, shareable ^ 1));
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, peer_phys_import_code(&pr, shareable ^ (1ull << 22)));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, peer_phys_import_code(&pr, shareable & ((1ull << 42) - 1))); /* no pid */
    CHECK_EQ(ACL_SUCCESS, peer_phys_import_code(&pr, shareable));
    CHECK_EQ(42, (long long)peer_phys_first_word(&pr));
    CHECK_EQ(0, (long long)peer_phys_finish_import(&pr));
    /* The exporter frees its handle (its mapping keeps the memory here): the export is over. */
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, peer_phys_import_code(&pr, shareable));
    peer_phys_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_EQ((long long)0x1122334455667788ull, (long long)w[1]); /* what the import wrote */
    CHECK_OK(phys_unmap(w));
    stop();
}

TEST(a_physical_import_stays_valid_after_the_exporting_process_exits)
{
    start();
    struct peer pr = spawn_peer("phys-export-exit");
    uint64_t shareable = 0;
    recv_bytes(pr.from, &shareable, sizeof shareable);
    aclrtDrvMemHandle h = NULL;
    CHECK_OK(aclrtMemImportFromShareableHandle(shareable, 0, &h));
    volatile uint64_t *w = phys_map(h);
    CHECK(w != NULL);
    CHECK_EQ((long long)0x7777777777777777ull, (long long)w[0]);
    send_bytes(pr.to, "x", 1);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_EQ((long long)0x7777777777777777ull, (long long)w[PHYS_SIZE / 8 - 1]);
    w[3] = 5;
    CHECK_EQ(5, (long long)w[3]);
    aclrtDrvMemHandle again = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(shareable, 0, &again)); /* imported here */
    uint64_t exported = 0; /* an imported handle is not exported again */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &exported));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(shareable, &(int32_t){1}, 1));
    CHECK_OK(aclrtFreePhysical(h)); /* the mapping keeps the memory */
    CHECK_EQ(5, (long long)w[3]);
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtMemImportFromShareableHandle(shareable, 0, &again)); /* its process is gone */
    CHECK(again == NULL);
    CHECK_OK(phys_unmap(w));
    stop();
}

/* ------------------------------------------------------------------------
 * Notifies
 * ------------------------------------------------------------------------ */

static int32_t peer_notify_import_key(struct peer *p, const char *key)
{
    char buf[65] = {0};
    strncpy(buf, key, sizeof buf - 1);
    send_bytes(p->to, buf, sizeof buf);
    int32_t rc = -1;
    recv_bytes(p->from, &rc, sizeof rc);
    return rc;
}

static void peer_notify_records(struct peer *p, unsigned char count)
{
    send_bytes(p->to, &count, 1);
    if (count == 0)
        return;
    char c;
    recv_bytes(p->from, &c, 1);
    CHECK_EQ('d', c);
}

TEST(each_record_in_the_importing_process_releases_one_wait_in_the_exporting_one)
{
    start();
    aclrtNotify n;
    CHECK_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    char key[65];
    CHECK_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    aclrtStream w;
    CHECK_OK(aclrtCreateStream(&w));
    static atomic_int first, second;
    aclrtEvent after_first;
    CHECK_OK(aclrtCreateEvent(&after_first));
    CHECK_OK(aclrtWaitAndResetNotify(n, w, 0));
    CHECK_OK(aclrtLaunchHostFunc(w, set_flag_fn, &first));
    CHECK_OK(aclrtRecordEvent(after_first, w));
    CHECK_OK(aclrtWaitAndResetNotify(n, w, 0));
    CHECK_OK(aclrtLaunchHostFunc(w, set_flag_fn, &second));

    struct peer pr = spawn_peer("notify-import");
    int32_t pid;
    recv_bytes(pr.from, &pid, sizeof pid);
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, peer_notify_import_key(&pr, key)); /* not on the allow-list yet */
    CHECK_OK(aclrtNotifySetImportPid(n, &pid, 1));
    CHECK_EQ(ACL_SUCCESS, peer_notify_import_key(&pr, key));
    CHECK_EQ(0, atomic_load(&first));
    peer_notify_records(&pr, 1);
    CHECK_OK(aclrtSynchronizeEvent(after_first)); /* the first wait took the record */
    CHECK_EQ(1, atomic_load(&first));
    CHECK_EQ(0, atomic_load(&second)); /* one record, one wait */
    peer_notify_records(&pr, 1);
    CHECK_OK(aclrtSynchronizeStream(w));
    CHECK_EQ(1, atomic_load(&second));
    peer_notify_records(&pr, 0);
    char none[65] = {0};
    send_bytes(pr.to, none, sizeof none);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(aclrtDestroyEvent(after_first));
    CHECK_OK(aclrtDestroyStream(w));
    CHECK_OK(aclrtDestroyNotify(n));
    stop();
}

TEST(a_notify_imported_in_its_own_process_records_for_the_exporter)
{
    start();
    aclrtNotify n, imported;
    CHECK_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    char key[65], again[65];
    CHECK_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK_OK(aclrtNotifyGetExportKey(n, again, sizeof again, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK_EQ(0, strcmp(key, again)); /* one key per notify */
    CHECK_OK(aclrtNotifyImportByKey(&imported, key, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT));
    aclrtStream w, r;
    CHECK_OK(aclrtCreateStream(&w));
    CHECK_OK(aclrtCreateStream(&r));
    static atomic_int count;
    for (int i = 0; i < 50; i++) {
        CHECK_OK(aclrtWaitAndResetNotify(n, w, 0));
        CHECK_OK(aclrtLaunchHostFunc(w, count_fn, &count));
    }
    for (int i = 0; i < 50; i++)
        CHECK_OK(aclrtRecordNotify(imported, r));
    CHECK_OK(aclrtSynchronizeStream(w));
    CHECK_EQ(50, atomic_load(&count));
    /* A local record still works too. */
    CHECK_OK(aclrtWaitAndResetNotify(n, w, 0));
    CHECK_OK(aclrtRecordNotify(n, r));
    CHECK_OK(aclrtSynchronizeStream(w));
    /* The exporter destroyed: its key imports nothing; the imported notify can still be recorded and destroyed. */
    CHECK_OK(aclrtDestroyNotify(n));
    aclrtNotify late = NULL;
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtNotifyImportByKey(&late, key, 0));
    CHECK(late == NULL);
    CHECK_OK(aclrtRecordNotify(imported, r));
    CHECK_OK(aclrtSynchronizeStream(r));
    CHECK_OK(aclrtDestroyNotify(imported));
    CHECK_OK(aclrtDestroyStream(w));
    CHECK_OK(aclrtDestroyStream(r));
    stop();
}

TEST(ipc_notify_calls_reject_bad_input_with_the_documented_codes)
{
    start();
    aclrtNotify n, imported, out = NULL;
    CHECK_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    char key[65];
    int32_t pid = (int32_t)getpid(), bad_pid = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(NULL, key, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifyGetExportKey((aclrtNotify)(uintptr_t)0x999, key, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(n, NULL, sizeof key, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, 64, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, sizeof key, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, &pid, 1)); /* not exported */
    CHECK_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(n, NULL, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(n, &pid, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, &bad_pid, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(NULL, &pid, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(NULL, key, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&out, NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&out, key, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&out, "garbage", 0));
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&out, key, 0)); /* this process is not on the list */
    aclrtServerPid servers[2] = {{1, &pid, 1}, {2, &pid, 0}};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPidInterServer(NULL, servers, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPidInterServer(n, NULL, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPidInterServer(n, servers, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPidInterServer(n, servers, 2)); /* one has no pids */
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&out, key, 0)); /* nothing was added */
    CHECK_OK(aclrtNotifySetImportPidInterServer(n, servers, 1));
    CHECK_OK(aclrtNotifyImportByKey(&imported, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    char key2[65];
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(imported, key2, sizeof key2, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(imported, &pid, 1));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtWaitAndResetNotify(imported, s, 0));
    /* A key of another kind, and one with its random part changed. */
    aclrtEvent ev;
    aclrtIpcEventHandle h;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    CHECK_OK(aclrtIpcGetEventHandle(ev, &h));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&out, h.reserved, 0));
    CHECK_OK(aclrtDestroyEvent(ev));
    key[57] = key[57] == 'f' ? 'e' : 'f';
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtNotifyImportByKey(&out, key, 0));
    CHECK(out == NULL);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyNotify(imported));
    /* Left exported at aclFinalize: freed with the notify (ASan's leak check sees what is left). */
    stop();
}

/* A case that failed half way leaves its runtime up: the next case starts from none. */
#define RUN_CASE(name)         \
    do {                       \
        RUN(name);             \
        (void)aclFinalize();   \
        aclGetRecentErrMsg();  \
    } while (0)

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--peer") == 0)
        return peer_main(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    RUN_CASE(a_record_in_this_process_releases_status_synchronize_and_stream_wait_in_another);
    RUN_CASE(a_record_in_another_process_releases_status_synchronize_and_stream_wait_here);
    RUN_CASE(aclfinalize_returns_with_a_stream_wait_pending_on_another_process);
    RUN_CASE(a_record_through_the_opened_event_completes_the_exporting_one);
    RUN_CASE(an_ipc_event_opened_in_its_own_process_shares_its_records);
    RUN_CASE(a_record_whose_process_exited_fails_synchronize_and_stream_wait_with_ipc_error);
    RUN_CASE(ipc_event_calls_reject_bad_input_with_the_documented_codes);
    RUN_CASE(many_records_and_waits_across_streams_end_complete);
    RUN_CASE(a_record_dropped_with_its_stream_counts_as_complete_and_a_wait_past_its_timeout_fails);
    RUN_CASE(aclfinalize_frees_ipc_events_left_alive_and_their_handles_then_open_nothing);
    RUN_CASE(exported_memory_is_the_same_bytes_in_the_importing_process);
    RUN_CASE(a_small_block_off_a_page_start_is_the_same_bytes_in_the_importing_process);
    RUN_CASE(an_import_from_a_process_not_on_the_allow_list_is_refused_until_it_is_added);
    RUN_CASE(an_import_stays_valid_after_the_exporting_process_exits);
    RUN_CASE(allocations_past_the_descriptor_limit_succeed_as_memory_that_is_not_shareable);
    RUN_CASE(ipc_memory_calls_reject_bad_input_with_the_documented_codes);
    RUN_CASE(a_physical_block_is_the_same_bytes_through_mappings_in_the_exporting_and_importing_process);
    RUN_CASE(a_physical_import_needs_the_whitelist_a_live_export_and_a_handle_that_names_it);
    RUN_CASE(a_physical_import_stays_valid_after_the_exporting_process_exits);
    RUN_CASE(each_record_in_the_importing_process_releases_one_wait_in_the_exporting_one);
    RUN_CASE(a_notify_imported_in_its_own_process_records_for_the_exporter);
    RUN_CASE(ipc_notify_calls_reject_bad_input_with_the_documented_codes);
    return check_report("ipc");
}
