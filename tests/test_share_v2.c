/*
 * tests/test_share_v2.c - pins "Shareable handles V2, fabric handles,
 * physical-memory extras" (docs/SEMANTICS.md): V2 shareable handles of
 * both kinds imported by another process (the handle carried by a pipe, and
 * a fabric handle carried by a file), what a handle and a mapping say,
 * links, aclrtMemP2PMap and aclrtReserveMemAddressNoUCMemory.
 *
 * The other process is this program again (fork, then exec of
 * /proc/self/exe with "--peer IN OUT"), as in test_ipc.c: a runtime of its
 * own; parent and peer talk through two pipes.
 */
#define _GNU_SOURCE
#include "check.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PHYS_SIZE ((size_t)2 << 20)

/* ------------------------------------------------------------------------
 * Plumbing
 * ------------------------------------------------------------------------ */

static int io_all(int fd, void *buf, size_t n, int writing)
{
    char *p = (char *)buf;
    while (n > 0) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
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
    int to, from;
};

static struct peer spawn_peer(void)
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
        execl("/proc/self/exe", "test_share_v2", "--peer", in, out, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    return (struct peer){pid, down[1], up[0]};
}

static int peer_finish(struct peer *p)
{
    close(p->to);
    close(p->from);
    int status = 0;
    CHECK_EQ(p->pid, waitpid(p->pid, &status, 0));
    return WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* What the parent asks of the peer: import the handle in `data` (or the fabric handle in the file it names). */
enum { MSG_END = 0, MSG_DEFAULT = 1, MSG_FABRIC = 2, MSG_FABRIC_FILE = 3 };
struct msg {
    int32_t kind;
    uint8_t data[128];
};

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

static aclrtPhysicalMemProp phys_prop(aclrtMemAttr attr)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.memAttr = attr;
    return prop;
}

static aclrtDrvMemHandle phys_alloc(void)
{
    aclrtPhysicalMemProp prop = phys_prop(ACL_HBM_MEM_NORMAL);
    aclrtDrvMemHandle h = NULL;
    return aclrtMallocPhysical(&h, PHYS_SIZE, &prop, 0) == ACL_SUCCESS ? h : NULL;
}

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

/* ------------------------------------------------------------------------
 * The peer: for each message, import (V2, on its current device 0), send
 * the code; if imported, map, send the first word, write word 1, send 'w',
 * unmap and free.
 * ------------------------------------------------------------------------ */

static int peer_in, peer_out;

#define PEER_CHECK(cond)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "PEER FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
            return __LINE__;                                                      \
        }                                                                         \
    } while (0)

static int peer_main(char **argv)
{
    peer_in = atoi(argv[2]);
    peer_out = atoi(argv[3]);
    PEER_CHECK(aclInit(NULL) == ACL_SUCCESS);
    aclrtDrvMemHandle h = NULL;
    struct msg m;
    /* Before any device is current: the V2 import has no device to import to. */
    PEER_CHECK(io_all(peer_in, &m, sizeof m, 0) == 0);
    int32_t rc = aclrtMemImportFromShareableHandleV2(m.data, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h);
    PEER_CHECK(io_all(peer_out, &rc, sizeof rc, 1) == 0);
    PEER_CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    for (;;) {
        PEER_CHECK(io_all(peer_in, &m, sizeof m, 0) == 0);
        if (m.kind == MSG_END)
            break;
        aclrtMemSharedHandleType type =
            m.kind == MSG_DEFAULT ? ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT : ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
        aclrtMemFabricHandle fabric;
        memcpy(fabric.data, m.data, sizeof fabric.data);
        if (m.kind == MSG_FABRIC_FILE) { /* the message names a file that holds the handle */
            FILE *f = fopen((const char *)m.data, "rb");
            PEER_CHECK(f != NULL);
            PEER_CHECK(fread(&fabric, sizeof fabric, 1, f) == 1);
            fclose(f);
        }
        rc = aclrtMemImportFromShareableHandleV2(&fabric, type, 0, &h);
        PEER_CHECK(io_all(peer_out, &rc, sizeof rc, 1) == 0);
        if (rc != ACL_SUCCESS)
            continue;
        aclrtDrvMemHandle again = NULL;
        PEER_CHECK(aclrtMemImportFromShareableHandleV2(&fabric, type, 0, &again) == ACL_ERROR_RT_PARAM_INVALID);
        aclrtPhysicalMemProp prop;
        PEER_CHECK(aclrtMemGetAllocationPropertiesFromHandle(h, &prop) == ACL_SUCCESS);
        PEER_CHECK(prop.memAttr == ACL_HBM_MEM_NORMAL && prop.location.type == ACL_MEM_LOCATION_TYPE_DEVICE);
        volatile uint64_t *w = phys_map(h);
        PEER_CHECK(w != NULL);
        uint64_t first = w[0];
        PEER_CHECK(io_all(peer_out, &first, sizeof first, 1) == 0);
        w[1] = 0x1122334455667788ull;
        PEER_CHECK(io_all(peer_out, "w", 1, 1) == 0);
        PEER_CHECK(phys_unmap(w) == ACL_SUCCESS);
        PEER_CHECK(aclrtFreePhysical(h) == ACL_SUCCESS);
    }
    PEER_CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    PEER_CHECK(aclFinalize() == ACL_SUCCESS);
    return 0;
}

/* Send one message; the peer's code, and (on success) the first word it saw once it wrote word 1. */
static int32_t peer_import(struct peer *p, int32_t kind, const void *data, size_t n, uint64_t *first)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    memcpy(m.data, data, n);
    CHECK_EQ(0, io_all(p->to, &m, sizeof m, 1));
    int32_t rc = -1;
    CHECK_EQ(0, io_all(p->from, &rc, sizeof rc, 0));
    if (rc == ACL_SUCCESS) {
        CHECK_EQ(0, io_all(p->from, first, sizeof *first, 0));
        char c = 0;
        CHECK_EQ(0, io_all(p->from, &c, 1, 0));
        CHECK_EQ('w', c);
    }
    return rc;
}

static void peer_end(struct peer *p)
{
    struct msg m;
    memset(&m, 0, sizeof m);
    CHECK_EQ(0, io_all(p->to, &m, sizeof m, 1));
}

/* ------------------------------------------------------------------------
 * Across processes
 * ------------------------------------------------------------------------ */

TEST(a_fabric_handle_imports_in_another_process_by_pipe_and_by_file)
{
    start();
    aclrtDrvMemHandle h = phys_alloc();
    CHECK(h != NULL);
    volatile uint64_t *w = phys_map(h);
    CHECK(w != NULL);
    w[0] = 0xA5A5A5A5A5A5A5A5ull;
    aclrtMemFabricHandle fabric;
    memset(&fabric, 0xEE, sizeof fabric);
    CHECK_OK(aclrtMemExportToShareableHandleV2(h, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
                                               &fabric));
    CHECK_EQ(0, memcmp(fabric.data, "ACLRTFAB", 8));
    CHECK_EQ(0, fabric.data[127]); /* every byte written */
    /* One shareable handle per block, of either kind; importing here is for other processes only. */
    uint64_t v1 = 0;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &v1));
    aclrtDrvMemHandle mine = NULL;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtMemImportFromShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &mine));
    struct peer pr = spawn_peer();
    uint64_t first = 0;
    /* The peer has no current device yet. */
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, peer_import(&pr, MSG_FABRIC, &fabric, sizeof fabric, &first));
    /* Pid validation: the peer is not on the whitelist until it is added. */
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, peer_import(&pr, MSG_FABRIC, &fabric, sizeof fabric, &first));
    int32_t pid = pr.pid;
    CHECK_OK(aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &pid, 1));
    CHECK_EQ(ACL_SUCCESS, peer_import(&pr, MSG_FABRIC, &fabric, sizeof fabric, &first));
    CHECK_EQ((long long)0xA5A5A5A5A5A5A5A5ull, (long long)first);    /* written here, seen there */
    CHECK_EQ((long long)0x1122334455667788ull, (long long)w[1]);     /* written there, seen here */
    /* Through a file: the bytes are all an importer needs. */
    w[1] = 0;
    char path[] = "/tmp/aclrt-fabric-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(0, io_all(fd, &fabric, sizeof fabric, 1));
    close(fd);
    CHECK_EQ(ACL_SUCCESS, peer_import(&pr, MSG_FABRIC_FILE, path, sizeof path, &first));
    unlink(path);
    CHECK_EQ((long long)0xA5A5A5A5A5A5A5A5ull, (long long)first);
    CHECK_EQ((long long)0x1122334455667788ull, (long long)w[1]);
    /* A handle from another machine (another boot id), and bytes that are no fabric handle. */
    aclrtMemFabricHandle other = fabric;
    other.data[20] ^= 0xFF;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, peer_import(&pr, MSG_FABRIC, &other, sizeof other, &first));
    other = fabric;
    other.data[0] = 'X';
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, peer_import(&pr, MSG_FABRIC, &other, sizeof other, &first));
    /* The export ends with the exporter's handle. */
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, peer_import(&pr, MSG_FABRIC, &fabric, sizeof fabric, &first));
    peer_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(phys_unmap(w));
    stop();
}

TEST(a_default_v2_handle_is_the_v1_handle_and_imports_in_another_process)
{
    start();
    aclrtDrvMemHandle h = phys_alloc();
    CHECK(h != NULL);
    volatile uint64_t *w = phys_map(h);
    CHECK(w != NULL);
    w[0] = 77;
    uint64_t shareable = 0;
    CHECK_OK(aclrtMemExportToShareableHandleV2(h, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                               ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &shareable));
    CHECK_EQ((long long)getpid(), (long long)(shareable >> 42)); /* V1's layout: the exporter's pid leads */
    int32_t self = (int32_t)getpid();
    CHECK_OK(aclrtMemSetPidToShareableHandle(shareable, &self, 1)); /* the V1 calls take it */
    struct peer pr = spawn_peer();
    uint64_t first = 0;
    aclrtMemFabricHandle unused;
    memset(&unused, 0, sizeof unused);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, peer_import(&pr, MSG_FABRIC, &unused, sizeof unused, &first));
    CHECK_EQ(ACL_SUCCESS, peer_import(&pr, MSG_DEFAULT, &shareable, sizeof shareable, &first));
    CHECK_EQ(77, (long long)first);
    CHECK_EQ((long long)0x1122334455667788ull, (long long)w[1]);
    peer_end(&pr);
    CHECK_EQ(0, peer_finish(&pr));
    CHECK_OK(phys_unmap(w));
    CHECK_OK(aclrtFreePhysical(h));
    stop();
}

TEST(v2_sharing_rejects_bad_input_with_the_documented_codes)
{
    start();
    aclrtDrvMemHandle h = phys_alloc();
    CHECK(h != NULL);
    aclrtMemFabricHandle fabric;
    aclrtDrvMemHandle out = NULL;
    int32_t pid = (int32_t)getpid();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(NULL, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fabric));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(h, 0, (aclrtMemSharedHandleType)3, &fabric));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(h, 2, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fabric));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtMemExportToShareableHandleV2((aclrtDrvMemHandle)(uintptr_t)0x1234, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
                                               &fabric));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &out));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 1, &out));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(&fabric, (aclrtMemSharedHandleType)0, 0, &out));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &pid, 1));
    CHECK_OK(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fabric));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, NULL, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &pid, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(&fabric, (aclrtMemSharedHandleType)7, &pid, 1));
    CHECK_OK(aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &pid, 1));
    aclrtMemFabricHandle other = fabric;
    other.data[8] = 9; /* another version */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&other, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &pid, 1));
    uint64_t none = 12345;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&none, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &pid, 1));
    stop();
}

/* ------------------------------------------------------------------------
 * Handles, mappings, links
 * ------------------------------------------------------------------------ */

TEST(a_retained_handle_names_the_mapped_block_and_lives_until_freed)
{
    start();
    aclrtDrvMemHandle h = phys_alloc();
    CHECK(h != NULL);
    volatile uint64_t *w = phys_map(h);
    CHECK(w != NULL);
    w[0] = 5;
    aclrtDrvMemHandle r1 = NULL, r2 = NULL;
    CHECK_OK(aclrtMemRetainAllocationHandle((void *)w, &r1));
    CHECK_OK(aclrtMemRetainAllocationHandle((void *)w, &r2));
    CHECK(r1 != h && r2 != h && r1 != r2); /* each retain is a handle to free */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle((char *)w + 4096, &r1));
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_OK(phys_unmap(w));
    /* The block lives on through the retained handles: mapped again, it holds what it held. */
    volatile uint64_t *again = phys_map(r1);
    CHECK(again != NULL);
    CHECK_EQ(5, (long long)again[0]);
    CHECK_OK(phys_unmap(again));
    CHECK_OK(aclrtFreePhysical(r1));
    CHECK_OK(aclrtFreePhysical(r2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(r2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(NULL, &r1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle((void *)w, NULL));
    stop();
}

TEST(properties_from_a_handle_are_those_it_was_allocated_with)
{
    start();
    aclrtPhysicalMemProp want = phys_prop(ACL_HBM_MEM_HUGE);
    aclrtDrvMemHandle h = NULL;
    CHECK_OK(aclrtMallocPhysical(&h, PHYS_SIZE, &want, 0));
    aclrtPhysicalMemProp got;
    memset(&got, 0xFF, sizeof got);
    CHECK_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &got));
    CHECK_EQ(ACL_MEM_HANDLE_TYPE_NONE, got.handleType);
    CHECK_EQ(ACL_MEM_ALLOCATION_TYPE_PINNED, got.allocationType);
    CHECK_EQ(ACL_HBM_MEM_HUGE, got.memAttr);
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, got.location.type);
    CHECK_EQ(0, got.location.id);
    CHECK_EQ(0, (long long)got.reserve);
    aclrtPhysicalMemProp host = phys_prop(ACL_MEM_NORMAL);
    host.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    aclrtDrvMemHandle hh = NULL;
    CHECK_OK(aclrtMallocPhysical(&hh, 4096, &host, 0));
    CHECK_OK(aclrtMemGetAllocationPropertiesFromHandle(hh, &got));
    CHECK_EQ(ACL_MEM_NORMAL, got.memAttr);
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_HOST, got.location.type);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(NULL, &got));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(h, NULL));
    CHECK_OK(aclrtFreePhysical(hh));
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemGetAllocationPropertiesFromHandle(h, &got));
    stop();
}

TEST(a_mapping_through_a_selected_link_is_the_same_memory)
{
    start();
    aclrtDrvMemHandle h = phys_alloc();
    CHECK(h != NULL);
    CHECK_OK(aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_HCCS));
    CHECK_OK(aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH));
    CHECK_EQ(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, aclrtMemMapSetLink(h, (aclrtMemLinkType)4));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemMapSetLink(NULL, ACL_RT_MEM_ACCESS_LINK_SIO));
    volatile uint64_t *src = phys_map(h);
    CHECK(src != NULL);
    void *dst = NULL;
    CHECK_OK(aclrtReserveMemAddress(&dst, PHYS_SIZE, 0, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dst, PHYS_SIZE, (void *)src, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(NULL, PHYS_SIZE, (void *)src, ACL_RT_MEM_LINK_IDX_0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dst, PHYS_SIZE / 2, (void *)src, ACL_RT_MEM_LINK_IDX_0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemMapSelectedLink((char *)dst + 4096, PHYS_SIZE, (void *)src, ACL_RT_MEM_LINK_IDX_0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dst, PHYS_SIZE, dst, ACL_RT_MEM_LINK_IDX_0));
    CHECK_OK(aclrtMemMapSelectedLink(dst, PHYS_SIZE, (void *)src, ACL_RT_MEM_LINK_IDX_1));
    volatile uint64_t *d = (volatile uint64_t *)dst;
    src[3] = 0xBEEF;
    CHECK_EQ(0xBEEF, (long long)d[3]);
    d[4] = 0xCAFE;
    CHECK_EQ(0xCAFE, (long long)src[4]);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dst, PHYS_SIZE, (void *)src, ACL_RT_MEM_LINK_IDX_1));
    CHECK_OK(aclrtUnmapMem(dst)); /* undone as any mapping */
    CHECK_OK(aclrtReleaseMemAddress(dst));
    CHECK_OK(phys_unmap(src));
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_SIO));
    stop();
}

TEST(a_reservation_without_uncached_memory_is_at_the_address_asked_in_gibibytes)
{
    start();
    /* A free place for 1 GiB: reserve with the system's choice, release, ask for it. */
    void *probe = mmap(NULL, (size_t)2 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(probe != MAP_FAILED);
    void *want = (void *)(((uintptr_t)probe + ((size_t)1 << 30) - 1) & ~(((uintptr_t)1 << 30) - 1));
    CHECK_EQ(0, munmap(probe, (size_t)2 << 30));
    void *va = NULL;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReserveMemAddressNoUCMemory(&va, (size_t)1 << 30, 0, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&va, PHYS_SIZE, 0, want, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&va, 0, 0, want, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(NULL, (size_t)1 << 30, 0, want, 0));
    CHECK_OK(aclrtReserveMemAddressNoUCMemory(&va, (size_t)1 << 30, 0, want, 0));
    CHECK(va == want);
    aclrtDrvMemHandle h = phys_alloc();
    CHECK(h != NULL);
    CHECK_OK(aclrtMapMem(va, PHYS_SIZE, 0, h, 0)); /* an ordinary reservation for every call */
    ((volatile uint64_t *)va)[0] = 9;
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
    stop();
}

TEST(p2p_map_needs_device_memory_another_device_and_its_peer_access)
{
    CHECK_OK(aclInit(NULL));
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    CHECK_OK(aclrtSetDevice(0));
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    char host[16];
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(NULL, 4096, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(p, 0, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(p, 4096, 0, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(p, 4096, 0, 0)); /* its own device */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(host, sizeof host, 0, 0));
    CHECK(aclrtMemP2PMap(p, 4096, (int32_t)count, 0) != ACL_SUCCESS); /* no such device */
    if (count >= 2) {
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(p, 4096, 1, 0)); /* device 1 has no access yet */
        CHECK_OK(aclrtSetDevice(1));
        CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
        CHECK_OK(aclrtMemP2PMap(p, 4096, 1, 0));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(p, 8192, 1, 0)); /* past the allocation */
        CHECK_OK(aclrtDeviceDisablePeerAccess(0));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(p, 4096, 1, 0));
        CHECK_OK(aclrtResetDevice(1));
        CHECK_OK(aclrtSetDevice(0));
    }
    CHECK_OK(aclrtFree(p));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

#define RUN_CASE(name)        \
    do {                      \
        RUN(name);            \
        (void)aclFinalize();  \
        aclGetRecentErrMsg(); \
    } while (0)

int main(int argc, char **argv)
{
    if (argc > 3 && strcmp(argv[1], "--peer") == 0)
        return peer_main(argv);
    signal(SIGPIPE, SIG_IGN);
    setenv("ACLRT_DEVICES", "2", 1); /* aclrtMemP2PMap's second device (the cuda double has two as well) */
    RUN_CASE(a_fabric_handle_imports_in_another_process_by_pipe_and_by_file);
    RUN_CASE(a_default_v2_handle_is_the_v1_handle_and_imports_in_another_process);
    RUN_CASE(v2_sharing_rejects_bad_input_with_the_documented_codes);
    RUN_CASE(a_retained_handle_names_the_mapped_block_and_lives_until_freed);
    RUN_CASE(properties_from_a_handle_are_those_it_was_allocated_with);
    RUN_CASE(a_mapping_through_a_selected_link_is_the_same_memory);
    RUN_CASE(a_reservation_without_uncached_memory_is_at_the_address_asked_in_gibibytes);
    RUN_CASE(p2p_map_needs_device_memory_another_device_and_its_peer_access);
    return check_report("share_v2");
}
