/*
 * impl/shm/ipc.h - what processes share: segments of shared memory named by a
 * key, their pid allow-lists, a record count and a completion word that
 * other processes wait on, and the IPC event state built on them.
 *
 * A segment is a memory file (memfd_create, close-on-exec) whose first page
 * is a header (struct aclrt_ipc_page) mapped MAP_SHARED by every process
 * that uses it. The exporting process keeps the file open while it exports;
 * its key (docs/SEMANTICS.md, IPC) names the file as the exporter's pid and
 * descriptor number plus 16 random bytes (getrandom) that the header holds
 * too: an importer opens /proc/<pid>/fd/<fd> (the kernel allows that to
 * processes of the same user that may inspect the exporter), maps it, and
 * accepts it only if the header's magic, kind and random bytes match the
 * key, so a key cannot be guessed and a stale one (its descriptor number
 * reused) names nothing.
 *
 * Record and completion: `records` counts the records made of the shared
 * object (by any process); the n-th record's task, when its stream reaches
 * it, raises `done` to n (never lowers it; a notify's instead adds one to
 * it, a count of completed records) and wakes the sleepers of every
 * process with a shared futex wake, if `sleepers` says there are any. A
 * wait for record n is over when done >= n (wrap-safe): record n or a later
 * one has completed. A thread that sleeps counts itself in `sleepers`
 * first (seq_cst both sides: either the marker sees the count and wakes,
 * or the sleeper sees the new `done`).
 *
 * Dead peers: a record made by a process that exited before its task ran
 * never completes. `recorder` holds the pid of the last record; a waiter
 * that finds the record incomplete and that process gone fails with
 * ACL_ERROR_RT_IPC_ERROR instead of waiting for ever (pid reuse in between
 * is not detected).
 *
 * A process's own view of a segment (struct aclrt_ipc_seg) is counted: the
 * object that holds it (an event's side entry) has one reference, and each
 * pending record or wait task another; the header is unmapped (and the
 * exporter's file closed) with the last. Side entries are read inside an
 * RCU read section (registry.h) and cleared before a grace period, so a
 * racing reader of a stale handle never touches an unmapped header.
 */
#ifndef ACLRT_IMPL_SHM_IPC_H
#define ACLRT_IMPL_SHM_IPC_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/futex.h"
#include "../core/handle.h"
#include "../core/registry.h"
#include "../core/seq.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <fcntl.h>

#define ACLRT_IPC_MAGIC 0x7470692d74726c63ull /* "clrt-ipt" */
#define ACLRT_IPC_PAGE 4096u
#define ACLRT_IPC_MAX_PIDS 256u  /* allow-list entries per segment */
#define ACLRT_IPC_KEY_LEN 58u    /* "aclrt-K-PPPPPPPP-FFFFFFFF-" + 32 hex digits */
#define ACLRT_IPC_KEY_MIN_BUF 65u /* key buffers: at least this long, as in the runtime */
#define ACLRT_IPC_POLL_MIN_NS (2 * ACLRT_NS_PER_US) /* waits in streams poll shared words from this interval ... */
#define ACLRT_IPC_POLL_MAX_NS (1 * ACLRT_NS_PER_MS) /* ... doubling up to this one */
#define ACLRT_IPC_SLEEP_SLICE_NS (100 * ACLRT_NS_PER_MS) /* a sleeper looks at the recorder this often */

enum aclrt_ipc_kind {
    ACLRT_IPC_EVENT = 'e',
    ACLRT_IPC_MEMORY = 'm',
    ACLRT_IPC_NOTIFY = 'n',
    ACLRT_IPC_PHYSICAL = 'p', /* a physical memory block's shareable handle (physmem.h) */
};

/* The shared header, at offset 0 of the segment's file. */
struct aclrt_ipc_page {
    uint64_t magic;
    uint32_t kind;               /* enum aclrt_ipc_kind */
    int32_t owner;               /* the exporting process */
    uint8_t nonce[16];           /* the key's random part */
    _Atomic uint32_t records;    /* records made so far */
    _Atomic uint32_t done;       /* the highest record whose work completed (futex word) */
    _Atomic uint32_t sleepers;   /* threads of any process sleeping on `done` */
    _Atomic int32_t recorder;    /* the process that made the last record */
    _Atomic uint32_t closed;     /* the exporter closed the key: no more imports */
    _Atomic uint32_t check_pids; /* imports only from the allow-list */
    _Atomic uint32_t pid_count;
    _Atomic int32_t pids[ACLRT_IPC_MAX_PIDS];
    /* memory: where the exported bytes are */
    int32_t data_fd;             /* the allocation's file in the exporter */
    uint32_t reserved;
    uint64_t data_offset;        /* of the exported range in that file */
    uint64_t data_size;
    uint64_t attr_link;          /* aclrtIpcMemSetAttr's ACCESS_LINK (recorded, no effect) */
    /* physical memory: the block's file as the exporter's fstat sees it (an importer opens only that
     * file, never a later one given the same descriptor number), its granularity and where it lives */
    uint64_t data_dev, data_ino;
    uint64_t data_granularity;
    uint32_t data_host;          /* 1: host memory; 0: device memory */
};

_Static_assert(sizeof(struct aclrt_ipc_page) <= ACLRT_IPC_PAGE, "the header fits in its page");

/* A process's view of a segment. */
struct aclrt_ipc_seg {
    struct aclrt_ipc_page *page;
    _Atomic uint32_t refs;
    bool exporter;   /* made by this process (its file is named by the key), or opened from a key */
    _Atomic int fd;  /* the exporter's open file until the exporting object lets go of it; -1 then, and in an importer */
    int data_fd;     /* memory, exporter: its own descriptor of the allocation's file (-1: none) */
    int32_t peer;    /* the exporter (getpid() in the exporter itself) */
    _Atomic uint32_t pulled; /* notify, exporter: the completed records of importers already added to its count */
    char key[ACLRT_IPC_KEY_LEN + 1];
    /* memory: the mapping of the exported range in this process (importer), or the exported range (exporter) */
    void *data;
    size_t data_size;
};

/* ------------------------------------------------------------------------
 * Segments
 * ------------------------------------------------------------------------ */

static void aclrt_ipc_format_key(char *out, char kind, int32_t pid, int fd, const uint8_t nonce[16])
{
    static const char hex[] = "0123456789abcdef";
    int n = snprintf(out, ACLRT_IPC_KEY_LEN + 1, "aclrt-%c-%08x-%08x-", kind, (unsigned)pid, (unsigned)fd);
    for (int i = 0; i < 16; i++) {
        out[n + 2 * i] = hex[nonce[i] >> 4];
        out[n + 2 * i + 1] = hex[nonce[i] & 15];
    }
    out[n + 32] = '\0';
}

static int aclrt_ipc_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Parse a key of `kind` (at most `max` bytes are read); false: not such a key. */
static bool aclrt_ipc_parse_key(const char *key, size_t max, char kind, int32_t *pid, int *fd, uint8_t nonce[16])
{
    size_t len = strnlen(key, max);
    if (len != ACLRT_IPC_KEY_LEN || strncmp(key, "aclrt-", 6) != 0 || key[6] != kind || key[7] != '-' ||
        key[16] != '-' || key[25] != '-')
        return false;
    uint32_t v[2] = {0, 0};
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 8; i++) {
            int h = aclrt_ipc_hex(key[8 + 9 * f + i]);
            if (h < 0)
                return false;
            v[f] = v[f] << 4 | (uint32_t)h;
        }
    for (int i = 0; i < 16; i++) {
        int hi = aclrt_ipc_hex(key[26 + 2 * i]), lo = aclrt_ipc_hex(key[27 + 2 * i]);
        if (hi < 0 || lo < 0)
            return false;
        nonce[i] = (uint8_t)(hi << 4 | lo);
    }
    *pid = (int32_t)v[0];
    *fd = (int)v[1];
    return *pid > 0 && *fd >= 0;
}

static bool aclrt_ipc_random(uint8_t *out, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        got += (size_t)r;
    }
    return true;
}

/* A new exported segment of `kind` (refs 1), or NULL with errno's message recorded. */
ACLRT_INTERNAL aclError aclrt_ipc_seg_create(char kind, struct aclrt_ipc_seg **out)
{
    *out = NULL;
    struct aclrt_ipc_seg *seg = (struct aclrt_ipc_seg *)calloc(1, sizeof *seg);
    if (seg == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a shared object");
    uint8_t nonce[16];
    if (!aclrt_ipc_random(nonce, sizeof nonce)) {
        free(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "no random bytes for a key (getrandom: %s)", strerror(errno));
    }
    int fd = memfd_create("aclrt-ipc", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, ACLRT_IPC_PAGE) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        free(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "no shared memory for a shared object (%s)", strerror(err));
    }
    void *p = mmap(NULL, ACLRT_IPC_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        close(fd);
        free(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot map shared memory (%s)", strerror(err));
    }
    struct aclrt_ipc_page *page = (struct aclrt_ipc_page *)p; /* zero-filled by the kernel */
    page->magic = ACLRT_IPC_MAGIC;
    page->kind = (uint32_t)kind;
    page->owner = (int32_t)getpid();
    page->data_fd = -1;
    memcpy(page->nonce, nonce, sizeof nonce);
    seg->page = page;
    seg->exporter = true;
    atomic_init(&seg->fd, fd);
    seg->data_fd = -1;
    seg->peer = page->owner;
    atomic_init(&seg->refs, 1);
    aclrt_ipc_format_key(seg->key, kind, page->owner, fd, nonce);
    *out = seg;
    return ACL_SUCCESS;
}

/*
 * Open the segment of `kind` that process `pid` exports as descriptor `fd`
 * (refs 1), if its header's random bytes begin with the `nonce_len` bytes
 * given. Fails with ACL_ERROR_RT_IPC_ERROR when there is no such segment
 * (its process exited, or it closed or destroyed it, or it never was).
 */
ACLRT_INTERNAL aclError aclrt_ipc_seg_attach(int32_t pid, int fd, char kind, const uint8_t *nonce, size_t nonce_len,
                                     struct aclrt_ipc_seg **out)
{
    *out = NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    int mine = open(path, O_RDWR | O_CLOEXEC);
    if (mine < 0)
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR,
                          "the shared object is gone (process %d exited, or closed or destroyed it): %s", (int)pid,
                          strerror(errno));
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(mine, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == ACLRT_IPC_PAGE)
        p = mmap(NULL, ACLRT_IPC_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
    close(mine);
    struct aclrt_ipc_page *page = (struct aclrt_ipc_page *)p;
    if (p == MAP_FAILED || page->magic != ACLRT_IPC_MAGIC || page->kind != (uint32_t)kind || page->owner != pid ||
        memcmp(page->nonce, nonce, nonce_len) != 0) {
        if (p != MAP_FAILED)
            munmap(p, ACLRT_IPC_PAGE);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the shared object is gone (process %d closed or destroyed it)",
                          (int)pid);
    }
    struct aclrt_ipc_seg *seg = (struct aclrt_ipc_seg *)calloc(1, sizeof *seg);
    if (seg == NULL) {
        munmap(p, ACLRT_IPC_PAGE);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for an imported object");
    }
    seg->page = page;
    seg->exporter = false;
    atomic_init(&seg->fd, -1);
    seg->data_fd = -1;
    seg->peer = pid;
    atomic_init(&seg->refs, 1);
    *out = seg;
    return ACL_SUCCESS;
}

/*
 * Open the segment a key of `kind` names (refs 1). Fails with
 * ACL_ERROR_RT_PARAM_INVALID for text that is not such a key, and with
 * ACL_ERROR_RT_IPC_ERROR for a key whose object is gone (its process
 * exited, or it closed the key or destroyed the object).
 */
ACLRT_INTERNAL aclError aclrt_ipc_seg_open(const char *key, size_t max, char kind, struct aclrt_ipc_seg **out)
{
    *out = NULL;
    int32_t pid;
    int fd;
    uint8_t nonce[16];
    if (!aclrt_ipc_parse_key(key, max, kind, &pid, &fd, nonce))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the key is not one this runtime exported for a%s",
                          kind == ACLRT_IPC_EVENT ? "n event" : kind == ACLRT_IPC_MEMORY ? " memory range" : " notify");
    aclError rc = aclrt_ipc_seg_attach(pid, fd, kind, nonce, sizeof nonce, out);
    if (rc == ACL_SUCCESS)
        memcpy((*out)->key, key, ACLRT_IPC_KEY_LEN);
    return rc;
}

ACLRT_INLINE void aclrt_ipc_seg_ref(struct aclrt_ipc_seg *seg)
{
    atomic_fetch_add_explicit(&seg->refs, 1, memory_order_relaxed);
}

/*
 * The exporting object (event, notify, memory export) lets go: its key
 * names nothing from now on, whatever references tasks still hold (they
 * need only the mapping). Once per segment; the last reference does it if
 * nobody did.
 */
ACLRT_INTERNAL void aclrt_ipc_seg_close_key(struct aclrt_ipc_seg *seg)
{
    /* Relaxed: the exchange only decides who closes the file; it publishes nothing. */
    int fd = atomic_exchange_explicit(&seg->fd, -1, memory_order_relaxed);
    if (fd < 0)
        return;
    if (seg->page->owner == (int32_t)getpid()) /* not in a forked child that inherited the export */
        atomic_store_explicit(&seg->page->closed, 1, memory_order_relaxed); /* a flag; the file closes next */
    close(fd);
}

/* Drop a reference; the last unmaps the header (and the data of an import) and closes the exporter's file. */
ACLRT_INTERNAL void aclrt_ipc_seg_unref(struct aclrt_ipc_seg *seg)
{
    /* Acq_rel: the last one sees every use made under the other references (pairs with their release). */
    if (atomic_fetch_sub_explicit(&seg->refs, 1, memory_order_acq_rel) != 1)
        return;
    aclrt_ipc_seg_close_key(seg);
    if (!seg->exporter && seg->data != NULL)
        munmap(seg->data, seg->data_size);
    if (seg->data_fd >= 0)
        close(seg->data_fd);
    munmap(seg->page, ACLRT_IPC_PAGE);
    free(seg);
}

/* Has process `pid` exited (or become a zombie)? Never for this process. */
static bool aclrt_ipc_pid_gone(int32_t pid)
{
    if (pid <= 0 || pid == (int32_t)getpid())
        return false;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return true;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return paren != NULL && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The pid allow-list: may this process import? */
ACLRT_INTERNAL bool aclrt_ipc_pid_allowed(const struct aclrt_ipc_page *page)
{
    /* Acquire: pairs with the exporter's release store of the flag (after the header was filled). */
    if (!atomic_load_explicit(&page->check_pids, memory_order_acquire))
        return true;
    int32_t me = (int32_t)getpid();
    /* Acquire: pairs with the release that published the count after its entries (aclrt_ipc_allow). */
    uint32_t n = atomic_load_explicit(&page->pid_count, memory_order_acquire);
    for (uint32_t i = 0; i < n && i < ACLRT_IPC_MAX_PIDS; i++)
        if (atomic_load_explicit(&page->pids[i], memory_order_relaxed) == me)
            return true;
    return false;
}

/* Serializes additions to allow-lists (aclrt_ipc_allow). */
static pthread_mutex_t aclrt_ipc_allow_lock = PTHREAD_MUTEX_INITIALIZER;

/* Add pids to a segment's allow-list (the exporter's). */
ACLRT_INTERNAL aclError aclrt_ipc_allow(struct aclrt_ipc_seg *seg, const int32_t *pid, size_t num)
{
    if (num > ACLRT_IPC_MAX_PIDS) /* before reading them: the array may be shorter than a wrong count */
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the allow-list takes at most %u process ids (%zu given)",
                          ACLRT_IPC_MAX_PIDS, num);
    for (size_t i = 0; i < num; i++)
        if (pid[i] <= 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "pid[%zu] = %d is not a process id", i, (int)pid[i]);
    struct aclrt_ipc_page *page = seg->page;
    pthread_mutex_lock(&aclrt_ipc_allow_lock);
    uint32_t n = atomic_load_explicit(&page->pid_count, memory_order_relaxed);
    if (num > ACLRT_IPC_MAX_PIDS - n) {
        pthread_mutex_unlock(&aclrt_ipc_allow_lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the allow-list takes at most %u process ids (%u already, %zu more)",
                          ACLRT_IPC_MAX_PIDS, n, num);
    }
    for (size_t i = 0; i < num; i++)
        atomic_store_explicit(&page->pids[n + i], pid[i], memory_order_relaxed);
    /* Release: pairs with the importer's acquire of the count (aclrt_ipc_pid_allowed). */
    atomic_store_explicit(&page->pid_count, n + (uint32_t)num, memory_order_release);
    pthread_mutex_unlock(&aclrt_ipc_allow_lock);
    return ACL_SUCCESS;
}

/*
 * The InterServer form: every server's pids join the allow-list (one host:
 * the server id is not checked). The whole list is checked first.
 */
ACLRT_INTERNAL aclError aclrt_ipc_allow_servers(struct aclrt_ipc_seg *seg, const aclrtServerPid *servers, size_t num)
{
    for (size_t i = 0; i < num; i++)
        if (servers[i].pid == NULL || servers[i].num == 0)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "serverPids[%zu] has no pids (pid NULL or num 0)", i);
    for (size_t i = 0; i < num; i++) {
        aclError rc = aclrt_ipc_allow(seg, servers[i].pid, servers[i].num);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Records and their completion
 * ------------------------------------------------------------------------ */

/*
 * In this process: every mark advances this count, which this process's
 * stream waits on shared records park on besides their poll, so a record
 * completed here releases them at once (ipc_event.h).
 */
static struct aclrt_seq aclrt_ipc_marks;
static struct aclrt_park_list aclrt_ipc_mark_waiters = {{NULL}, UINT64_MAX};

ACLRT_INLINE bool aclrt_ipc_reached(const struct aclrt_ipc_page *page, uint32_t target)
{
    /* Acquire: pairs with the marker's seq_cst CAS; the recorded work's effects come with it. */
    return (int32_t)(atomic_load_explicit(&page->done, memory_order_acquire) - target) >= 0;
}

/* Record n's work is complete: raise `done` to n and wake the sleepers of every process. */
static void aclrt_ipc_mark(struct aclrt_ipc_page *page, uint32_t n)
{
    uint32_t d = atomic_load_explicit(&page->done, memory_order_relaxed);
    /* Seq_cst: pairs with a sleeper's seq_cst count-then-load (aclrt_ipc_wait_host). */
    if (page->kind == ACLRT_IPC_NOTIFY) /* a notify counts its completed records: each releases one wait */
        atomic_fetch_add_explicit(&page->done, 1, memory_order_seq_cst);
    else
        while ((int32_t)(n - d) > 0 &&
               !atomic_compare_exchange_weak_explicit(&page->done, &d, n, memory_order_seq_cst, memory_order_relaxed)) {
        }
    /* Seq_cst fence and load: the `done` update above comes before this look at `sleepers` (Dekker with
     * the sleeper's add to `sleepers` then load of `done`), also when the CAS loop stored nothing. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&page->sleepers, memory_order_seq_cst) != 0)
        aclrt_futex_wake_shared(&page->done, INT_MAX);
    /* Release (seq.h): a wait that reads the new count sees `done` above. */
    aclrt_counter_advance(&aclrt_ipc_marks, &aclrt_ipc_mark_waiters, 1);
}

/* A new record: its number (the target a wait for it uses). */
ACLRT_INLINE uint32_t aclrt_ipc_record_number(struct aclrt_ipc_page *page)
{
    /* Relaxed: the recorder is a hint for dead-peer checks; a record number orders nothing (the mark does). */
    atomic_store_explicit(&page->recorder, (int32_t)getpid(), memory_order_relaxed);
    return atomic_fetch_add_explicit(&page->records, 1, memory_order_relaxed) + 1;
}

/* The record a wait made now waits for (0 and done >= 0: nothing recorded, nothing to wait for). */
ACLRT_INLINE uint32_t aclrt_ipc_latest(const struct aclrt_ipc_page *page)
{
    return atomic_load_explicit(&page->records, memory_order_relaxed);
}

/* Has the last recorder exited with record `target` incomplete? */
ACLRT_INTERNAL bool aclrt_ipc_abandoned(const struct aclrt_ipc_page *page, uint32_t target)
{
    if (aclrt_ipc_reached(page, target))
        return false;
    int32_t pid = atomic_load_explicit(&page->recorder, memory_order_relaxed);
    return aclrt_ipc_pid_gone(pid) && !aclrt_ipc_reached(page, target);
}

/*
 * Wait on this thread until record `target` is complete: spin for the
 * configured spin time, then sleep on the shared word. Returns ACL_SUCCESS,
 * `timeout_code` past the deadline, or ACL_ERROR_RT_IPC_ERROR when the
 * recording process exited with it incomplete (no message).
 */
ACLRT_INTERNAL aclError aclrt_ipc_wait_host(struct aclrt_ipc_page *page, uint32_t target, uint64_t deadline,
                                    aclError timeout_code)
{
    uint64_t spin_end = aclrt_min_u64(aclrt_now_ns() + aclrt_rt.config.spin_ns, deadline);
    for (unsigned i = 1; !aclrt_ipc_reached(page, target); i++) {
        aclrt_cpu_relax();
        if ((i & 255) == 0 && aclrt_now_ns() >= spin_end)
            break;
    }
    for (;;) {
        if (aclrt_ipc_reached(page, target))
            return ACL_SUCCESS;
        uint64_t now = aclrt_now_ns();
        if (now >= deadline)
            return timeout_code;
        if (aclrt_ipc_abandoned(page, target))
            return ACL_ERROR_RT_IPC_ERROR;
        /* Seq_cst: pairs with the marker's CAS then load of the count (aclrt_ipc_mark). */
        atomic_fetch_add_explicit(&page->sleepers, 1, memory_order_seq_cst);
        uint32_t d = atomic_load_explicit(&page->done, memory_order_seq_cst);
        if ((int32_t)(d - target) < 0)
            aclrt_futex_wait_shared(&page->done, d, aclrt_min_u64(deadline, now + ACLRT_IPC_SLEEP_SLICE_NS));
        atomic_fetch_sub_explicit(&page->sleepers, 1, memory_order_relaxed); /* a count: at worst one wake too many */
    }
}

/* ACLRT_TASK_IPC_RECORD: the work before it is complete; raise the shared word. */
static int aclrt_ipc_record_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_ipc_mark(t->u.ipc.seg->page, t->u.ipc.target);
    aclrt_ipc_seg_unref(t->u.ipc.seg);
    return ACL_SUCCESS;
}

/* Dropped (its stream aborted or destroyed with it pending): it counts as done, so no process waits for ever. */
static void aclrt_ipc_record_drop(struct aclrt_task *t)
{
    aclrt_ipc_mark(t->u.ipc.seg->page, t->u.ipc.target);
    aclrt_ipc_seg_unref(t->u.ipc.seg);
}

static const struct aclrt_task_kind aclrt_kind_ipc_record = {ACLRT_TASK_IPC_RECORD, "IPC record", aclrt_ipc_record_run,
                                                             aclrt_ipc_record_drop};

/* Record on s: a task that marks the record complete when s reaches it (at once on an idle stream). */
ACLRT_INTERNAL aclError aclrt_ipc_record(struct aclrt_stream *s, struct aclrt_ipc_seg *seg)
{
    uint32_t n = aclrt_ipc_record_number(seg->page);
    if (aclrt_stream_acts_now(s) && aclrt_kind_is_core(ACLRT_TASK_IPC_RECORD)) {
        aclrt_ipc_mark(seg->page, n);
        return ACL_SUCCESS;
    }
    struct aclrt_task t = {.kind = &aclrt_kind_ipc_record, .u.ipc.seg = seg, .u.ipc.target = n};
    aclrt_ipc_seg_ref(seg);
    aclError rc = aclrt_stream_submit(s, &t, NULL);
    if (rc != ACL_SUCCESS) { /* the record is not made: do not leave it pending for the other processes */
        aclrt_ipc_mark(seg->page, n);
        aclrt_ipc_seg_unref(seg);
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Side entries: the segment an object (an event or notify slot) uses
 * ------------------------------------------------------------------------ */

struct aclrt_ipc_side {
    _Atomic(_Atomic(struct aclrt_ipc_seg *) *) chunks[ACLRT_TABLE_MAX_CHUNKS];
};

static struct aclrt_ipc_side aclrt_ipc_events;

/* The entry of slot `index` (made on first use); NULL: out of memory. */
static _Atomic(struct aclrt_ipc_seg *) *aclrt_ipc_side_entry(struct aclrt_ipc_side *side, uint32_t index, bool make)
{
    uint32_t c = index >> ACLRT_TABLE_CHUNK_SHIFT;
    if (c >= ACLRT_TABLE_MAX_CHUNKS)
        return NULL;
    /* Acquire: pairs with the release CAS that installed the chunk (zeroed). */
    _Atomic(struct aclrt_ipc_seg *) *chunk = atomic_load_explicit(&side->chunks[c], memory_order_acquire);
    if (chunk == NULL) {
        if (!make)
            return NULL;
        _Atomic(struct aclrt_ipc_seg *) *fresh =
            (_Atomic(struct aclrt_ipc_seg *) *)calloc(ACLRT_TABLE_CHUNK, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        /* Release: pairs with the acquire load above. */
        if (atomic_compare_exchange_strong_explicit(&side->chunks[c], &chunk, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            chunk = fresh;
        else
            free(fresh);
    }
    return &chunk[index & (ACLRT_TABLE_CHUNK - 1)];
}

/* Attach seg to slot `index` (its reference moves to the entry). False: out of memory. */
ACLRT_INTERNAL bool aclrt_ipc_side_set(struct aclrt_ipc_side *side, uint32_t index, struct aclrt_ipc_seg *seg)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, true);
    if (e == NULL)
        return false;
    /* Release: pairs with aclrt_ipc_side_get's acquire; the segment is set up before it is seen. */
    atomic_store_explicit(e, seg, memory_order_release);
    return true;
}

/*
 * The segment an entry holds, with a reference of the caller's, or NULL.
 * The caller checks afterwards that the object is still the life it meant
 * (a stale handle may find a later life's segment) and drops the reference.
 */
ACLRT_INTERNAL struct aclrt_ipc_seg *aclrt_ipc_entry_get(_Atomic(struct aclrt_ipc_seg *) *e)
{
    aclrt_rcu_read_lock();
    /* Acquire: pairs with the release store of aclrt_ipc_side_set. */
    struct aclrt_ipc_seg *seg = atomic_load_explicit(e, memory_order_acquire);
    if (seg != NULL)
        aclrt_ipc_seg_ref(seg); /* the entry's reference is held until a grace period after it is cleared */
    aclrt_rcu_read_unlock();
    return seg;
}

/* Detach an entry's segment and drop its reference: after a grace period (no reader is still taking one), or at once. */
ACLRT_INTERNAL void aclrt_ipc_entry_clear(_Atomic(struct aclrt_ipc_seg *) *e, bool grace)
{
    /* Acq_rel: acquires the setter's release (the segment's fields), and no reader takes it after this. */
    struct aclrt_ipc_seg *seg = atomic_exchange_explicit(e, NULL, memory_order_acq_rel);
    if (seg == NULL)
        return;
    aclrt_ipc_seg_close_key(seg); /* the object is gone: its key opens nothing, even while tasks hold the segment */
    if (grace) {
        urcu_bp_synchronize_rcu();
        ACLRT_TSAN_ACQUIRE(&aclrt_rcu_tsan_token); /* pairs with aclrt_rcu_read_unlock's release (registry.h) */
    }
    aclrt_ipc_seg_unref(seg);
}

/* The segment of slot `index` (see aclrt_ipc_entry_get). */
ACLRT_INTERNAL struct aclrt_ipc_seg *aclrt_ipc_side_get(struct aclrt_ipc_side *side, uint32_t index)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, false);
    return e != NULL ? aclrt_ipc_entry_get(e) : NULL;
}

/* Detach slot `index`'s segment and drop the entry's reference at once (aclFinalize: no reader is left). */
ACLRT_INTERNAL void aclrt_ipc_side_drop(struct aclrt_ipc_side *side, uint32_t index)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, false);
    if (e != NULL)
        aclrt_ipc_entry_clear(e, false);
}

/* Detach slot `index`'s segment and drop the entry's reference once no reader can still be taking one. */
ACLRT_INTERNAL void aclrt_ipc_side_clear(struct aclrt_ipc_side *side, uint32_t index)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, false);
    if (e != NULL)
        aclrt_ipc_entry_clear(e, true);
}

#endif /* ACLRT_IMPL_SHM_IPC_H */
