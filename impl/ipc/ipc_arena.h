/*
 * impl/ipc/ipc_arena.h - the memory file that small shareable allocations
 * come from, so that an aclrtMalloc block of any size can be exported.
 *
 * The host backend's allocations of up to ACLRT_IPC_ARENA_MAX bytes are
 * blocks of one memory file (a memfd of ACLRT_IPC_ARENA_SIZE bytes, mapped
 * MAP_SHARED once; only the pages used take memory). The file is cut into
 * slabs of ACLRT_IPC_SLAB bytes, each holding blocks of one size class (a
 * power of two from 64 bytes); a freed block goes on its class's free list
 * (the link is in the block itself). Sharing a small block shares the pages
 * it lies on, as a device shares the granule an allocation lies in: an
 * importer maps those pages. When the file is full, or cannot be made, the
 * caller falls back (a memory file of its own, or the heap).
 *
 * Under AddressSanitizer a slab is poisoned when a class takes it, and a
 * block is unpoisoned for the bytes asked (the rest up to its class's size
 * stays poisoned) and poisoned again when freed, as the heap's would be.
 * One mutex: allocation is not a hot path beside the copies it feeds.
 */
#ifndef ACLRT_IMPL_IPC_IPC_ARENA_H
#define ACLRT_IMPL_IPC_IPC_ARENA_H

#include "../core/base.h"

#include <fcntl.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define ACLRT_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACLRT_ARENA_ASAN 1
#endif
#endif
#ifdef ACLRT_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ACLRT_ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ACLRT_ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ACLRT_ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ACLRT_ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ACLRT_IPC_ARENA_SIZE ((size_t)1 << 30) /* addresses; memory only for the pages in use */
#define ACLRT_IPC_SLAB ((size_t)256 << 10)
#define ACLRT_IPC_ARENA_MIN_SHIFT 6             /* 64 bytes: the smallest class */
#define ACLRT_IPC_ARENA_CLASSES 11              /* 64 B .. 64 KiB */
#define ACLRT_IPC_ARENA_MAX ((size_t)1 << (ACLRT_IPC_ARENA_MIN_SHIFT + ACLRT_IPC_ARENA_CLASSES - 1))
#define ACLRT_IPC_ARENA_FORKS 8                 /* generations of forked children that free inherited blocks */

static struct {
    pthread_mutex_t lock;
    int memfd;                                    /* -1: not made yet (or could not be: `failed`) */
    bool failed;
    uintptr_t base;
    size_t slabs_used;                            /* slabs handed to a class, from the start */
    uint8_t *slab_class;                          /* per slab: its class */
    void *free_list[ACLRT_IPC_ARENA_CLASSES];     /* freed blocks of each class */
    uintptr_t bump[ACLRT_IPC_ARENA_CLASSES];      /* the next unused block of the class's newest slab, */
    uintptr_t bump_end[ACLRT_IPC_ARENA_CLASSES];  /* up to its end */
    uintptr_t inherited[ACLRT_IPC_ARENA_FORKS];   /* forked child: the bases of its ancestors' files */
    unsigned forks;
} aclrt_ipc_arena = {.lock = PTHREAD_MUTEX_INITIALIZER, .memfd = -1};

static pthread_once_t aclrt_ipc_arena_once = PTHREAD_ONCE_INIT;

/*
 * fork(): the child's mapping of the file is the parent's memory, and its
 * copy of the free lists and slabs would hand out the blocks the parent
 * hands out. The child keeps the mapping (its inherited blocks stay
 * readable, and shared, as inherited memory files are) but allocates from a
 * file of its own; freeing an inherited block does nothing.
 */
static void aclrt_ipc_arena_fork_child(void)
{
    pthread_mutex_init(&aclrt_ipc_arena.lock, NULL); /* another thread may have held it */
    if (aclrt_ipc_arena.memfd < 0)
        return;
    close(aclrt_ipc_arena.memfd);
    unsigned k = aclrt_ipc_arena.forks < ACLRT_IPC_ARENA_FORKS ? aclrt_ipc_arena.forks++ : ACLRT_IPC_ARENA_FORKS - 1;
    aclrt_ipc_arena.inherited[k] = aclrt_ipc_arena.base;
    aclrt_ipc_arena.memfd = -1;
    aclrt_ipc_arena.base = 0;
    aclrt_ipc_arena.slabs_used = 0;
    memset(aclrt_ipc_arena.slab_class, 0, ACLRT_IPC_ARENA_SIZE / ACLRT_IPC_SLAB);
    memset(aclrt_ipc_arena.free_list, 0, sizeof aclrt_ipc_arena.free_list);
    memset(aclrt_ipc_arena.bump, 0, sizeof aclrt_ipc_arena.bump);
    memset(aclrt_ipc_arena.bump_end, 0, sizeof aclrt_ipc_arena.bump_end);
}

static void aclrt_ipc_arena_atfork(void)
{
    pthread_atfork(NULL, NULL, aclrt_ipc_arena_fork_child);
}

static unsigned aclrt_ipc_arena_class(size_t bytes)
{
    unsigned c = 0;
    while (((size_t)1 << (ACLRT_IPC_ARENA_MIN_SHIFT + c)) < bytes)
        c++;
    return c;
}

/* Make the file and its mapping (the lock held); false: none, and none will be tried again. */
static bool aclrt_ipc_arena_open(void)
{
    if (aclrt_ipc_arena.memfd >= 0)
        return true;
    if (aclrt_ipc_arena.failed)
        return false;
    aclrt_ipc_arena.failed = true;
    pthread_once(&aclrt_ipc_arena_once, aclrt_ipc_arena_atfork);
    uint8_t *classes = aclrt_ipc_arena.slab_class != NULL ? aclrt_ipc_arena.slab_class /* a forked child's */
                                                           : (uint8_t *)calloc(ACLRT_IPC_ARENA_SIZE / ACLRT_IPC_SLAB, 1);
    int fd = classes != NULL ? memfd_create("aclrt-device-memory-small", MFD_CLOEXEC) : -1;
    aclrt_ipc_arena.slab_class = classes;
    if (fd < 0)
        return false;
    void *p = ftruncate(fd, (off_t)ACLRT_IPC_ARENA_SIZE) == 0
                  ? mmap(NULL, ACLRT_IPC_ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)
                  : MAP_FAILED;
    if (p == MAP_FAILED) {
        close(fd);
        return false; /* `failed` stays set: no later try */
    }
    aclrt_ipc_arena.memfd = fd;
    aclrt_ipc_arena.base = (uintptr_t)p;
    aclrt_ipc_arena.failed = false;
    return true;
}

/* A block of at least `bytes` (at most ACLRT_IPC_ARENA_MAX), aligned to its class; false: none. */
ACLRT_INTERNAL bool aclrt_ipc_arena_alloc(size_t bytes, void **out)
{
    if (bytes == 0 || bytes > ACLRT_IPC_ARENA_MAX)
        return false;
    unsigned c = aclrt_ipc_arena_class(bytes);
    size_t block = (size_t)1 << (ACLRT_IPC_ARENA_MIN_SHIFT + c);
    void *p = NULL;
    pthread_mutex_lock(&aclrt_ipc_arena.lock);
    if (aclrt_ipc_arena_open()) {
        if (aclrt_ipc_arena.free_list[c] != NULL) {
            p = aclrt_ipc_arena.free_list[c];
            ACLRT_ARENA_UNPOISON(p, sizeof(void *));
            memcpy(&aclrt_ipc_arena.free_list[c], p, sizeof(void *));
        } else {
            if (aclrt_ipc_arena.bump[c] == aclrt_ipc_arena.bump_end[c] &&
                aclrt_ipc_arena.slabs_used < ACLRT_IPC_ARENA_SIZE / ACLRT_IPC_SLAB) {
                size_t s = aclrt_ipc_arena.slabs_used++;
                aclrt_ipc_arena.slab_class[s] = (uint8_t)c;
                aclrt_ipc_arena.bump[c] = aclrt_ipc_arena.base + s * ACLRT_IPC_SLAB;
                aclrt_ipc_arena.bump_end[c] = aclrt_ipc_arena.bump[c] + ACLRT_IPC_SLAB;
                ACLRT_ARENA_POISON((void *)aclrt_ipc_arena.bump[c], ACLRT_IPC_SLAB);
            }
            if (aclrt_ipc_arena.bump[c] < aclrt_ipc_arena.bump_end[c]) {
                p = (void *)aclrt_ipc_arena.bump[c];
                aclrt_ipc_arena.bump[c] += block;
            }
        }
    }
    pthread_mutex_unlock(&aclrt_ipc_arena.lock);
    if (p == NULL)
        return false;
    ACLRT_ARENA_UNPOISON(p, bytes);
    *out = p;
    return true;
}

/* Is p a block of the arena? */
ACLRT_INLINE bool aclrt_ipc_arena_owns(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    /* base is set once, under the lock, before any block exists: a block's owner has seen it. */
    pthread_mutex_lock(&aclrt_ipc_arena.lock);
    bool in = aclrt_ipc_arena.memfd >= 0 && a >= aclrt_ipc_arena.base && a - aclrt_ipc_arena.base < ACLRT_IPC_ARENA_SIZE;
    pthread_mutex_unlock(&aclrt_ipc_arena.lock);
    return in;
}

/* Is p a block of a file a forked child inherited? */
static bool aclrt_ipc_arena_inherited(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&aclrt_ipc_arena.lock);
    bool in = false;
    for (unsigned i = 0; i < aclrt_ipc_arena.forks && !in; i++)
        in = a >= aclrt_ipc_arena.inherited[i] && a - aclrt_ipc_arena.inherited[i] < ACLRT_IPC_ARENA_SIZE;
    pthread_mutex_unlock(&aclrt_ipc_arena.lock);
    return in;
}

/* Free p if it is a block of the arena (or an inherited one, which stays); false: it is not. */
ACLRT_INTERNAL bool aclrt_ipc_arena_free(void *p)
{
    if (aclrt_ipc_arena.forks != 0 && aclrt_ipc_arena_inherited(p))
        return true;
    if (!aclrt_ipc_arena_owns(p))
        return false;
    pthread_mutex_lock(&aclrt_ipc_arena.lock);
    size_t s = ((uintptr_t)p - aclrt_ipc_arena.base) / ACLRT_IPC_SLAB;
    unsigned c = aclrt_ipc_arena.slab_class[s];
    ACLRT_ARENA_UNPOISON(p, sizeof(void *));
    memcpy(p, &aclrt_ipc_arena.free_list[c], sizeof(void *));
    aclrt_ipc_arena.free_list[c] = p;
    ACLRT_ARENA_POISON(p, (size_t)1 << (ACLRT_IPC_ARENA_MIN_SHIFT + c));
    pthread_mutex_unlock(&aclrt_ipc_arena.lock);
    return true;
}

/* The arena's file (a descriptor of the caller's own) and p's offset in it; 0, 1: not the arena's, -1: no descriptor. */
ACLRT_INTERNAL int aclrt_ipc_arena_find(const void *p, int *fd, size_t *offset)
{
    if (!aclrt_ipc_arena_owns(p))
        return 1;
    pthread_mutex_lock(&aclrt_ipc_arena.lock);
    *offset = (uintptr_t)p - aclrt_ipc_arena.base;
    *fd = fcntl(aclrt_ipc_arena.memfd, F_DUPFD_CLOEXEC, 0);
    pthread_mutex_unlock(&aclrt_ipc_arena.lock);
    return *fd >= 0 ? 0 : -1;
}

#endif /* ACLRT_IMPL_IPC_IPC_ARENA_H */
