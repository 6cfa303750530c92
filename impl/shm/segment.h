/*
 * impl/shm/segment.h - segments: pages of shared memory that processes
 * find by a key, and a process's counted view of one.
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
 * The header holds what every kind of shared object needs: the record
 * count and completion word (shared_record.h), the pid allow-list
 * (allow_list.h), and where the bytes of shared memory are (ipc_mem.h,
 * ipc_physmem.h).
 *
 * A process's own view of a segment (struct aclrt_ipc_seg) is counted: the
 * object that holds it (an event's side entry, side_table.h) has one
 * reference, and each pending record or wait task another; the header is
 * unmapped (and the exporter's file closed) with the last.
 */
#ifndef ACLRT_IMPL_SHM_SEGMENT_H
#define ACLRT_IMPL_SHM_SEGMENT_H

#include "../core/base.h"
#include "../core/error.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <fcntl.h>

struct aclrt_device;

#define ACLRT_IPC_MAGIC 0x7470692d74726c63ull /* "clrt-ipt" */
#define ACLRT_IPC_PAGE 4096u
#define ACLRT_IPC_MAX_PIDS 256u  /* allow-list entries per segment */
#define ACLRT_IPC_KEY_LEN 58u    /* "aclrt-K-PPPPPPPP-FFFFFFFF-" + 32 hex digits */
#define ACLRT_IPC_KEY_MIN_BUF 65u /* key buffers: at least this long, as in the runtime */

enum aclrt_ipc_kind {
    ACLRT_IPC_EVENT = 'e',
    ACLRT_IPC_MEMORY = 'm',
    ACLRT_IPC_NOTIFY = 'n',
    ACLRT_IPC_PHYSICAL = 'p', /* a physical memory block's shareable handle (ipc_physmem.h) */
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
    uint32_t data_attr;          /* physical memory: its aclrtMemAttr */
    uint64_t data_offset;        /* of the exported range in that file */
    uint64_t data_size;
    uint64_t attr_link;          /* aclrtIpcMemSetAttr's ACCESS_LINK (recorded, no effect) */
    /* physical memory: the block's file as the exporter's fstat sees it (an importer opens only that
     * file, never a later one given the same descriptor number), its granularity and where it lives */
    uint64_t data_dev, data_ino;
    uint64_t data_granularity;
    uint32_t data_host;          /* 1: host memory; 0: device memory */
    /* memory shared through a backend's driver (ipc_mem.h): its handle of the allocation, the offset of the
     * range in it in data_offset; data_fd is then -1 */
    uint32_t data_handle_kind;   /* 0: none (the bytes are data_fd's); else the ACLRT_IPC_HANDLE_* of the backend */
    uint8_t data_handle[64];
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
    /* memory, importer, through a backend's driver (ipc_mem.h): the device it was opened on (NULL: a mapping of a
     * memory file), and in data the allocation's address here */
    struct aclrt_device *data_device;
};

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

/* Open descriptor `fd` of process `pid` for reading and writing: -1 (errno) if it has none, or may not be opened. */
ACLRT_INTERNAL int aclrt_ipc_open_peer_fd(int32_t pid, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
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
    int mine = aclrt_ipc_open_peer_fd(pid, fd);
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

#endif /* ACLRT_IMPL_SHM_SEGMENT_H */
