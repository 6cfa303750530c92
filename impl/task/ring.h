/*
 * impl/task/ring.h - a stream's task ring: a bounded multi-producer,
 * single-consumer queue of task records in which every launcher commits on
 * its own (one sequence number per slot, as in Dmitry Vyukov's bounded
 * queue; impl/task/mpmc.h is that design for pointers).
 *
 * Why not Concurrency Kit's ck_ring: its multi-producer modes publish
 * through one shared tail that producers move in the order they reserved,
 * so a launcher preempted between its reservation and its commit stops
 * every launcher behind it, and with more launching threads than CPUs they
 * all spin or yield waiting for each other (a livelock: 2,000 threads x 100
 * launches into one stream ran a few thousand tasks in 10 s on two CPUs).
 * Neither ck (ck_fifo allocates a node per entry) nor liburcu (wfcqueue:
 * unbounded lists of nodes) has a bounded queue of inline records with
 * independent commits, so this file is one.
 *
 * Positions are 32-bit counters, aligned with the stream's 64-bit task
 * numbers: ring position p holds task number n with (uint32_t)n == p + 1
 * (task numbers start at 1). The ring is created at the stream's current
 * completed count, so the alignment holds for a slot's every life.
 *
 * A slot is one cache line: the record's 56 bytes of content, then the
 * slot's sequence number, which says "position p is committed" by holding
 * p + 1. Slots are not quite in position order (aclrt_ring_index). Three
 * counters:
 *   head    the next position to reserve (launchers, CAS);
 *   tail    the next position the consumer takes;
 *   freed   positions below it are done with their slots (the consumer
 *           frees the slot of the task it runs when that task is done).
 *
 *   - reserve: position p = head is free when p - freed < capacity; CAS head
 *     to p + 1 (seq_cst; see aclrt_stream_kick for the pairing). Launchers
 *     check against `freed_seen`, a copy of `freed` on their own cache
 *     line, and read the consumer's `freed` only when the copy says full;
 *     so a launch writes the slot without reading a line the consumer
 *     wrote, and the consumer does not write the slot at all.
 *   - commit: copy the record in, release store of seq = p + 1. No launcher
 *     ever waits for another: commits land in any order.
 *   - take (one consumer, the stream's holder): the slot of tail, acquire
 *     load of seq; seq != tail + 1 means empty or "reserved, not committed
 *     yet" (a launch in progress: the consumer waits for it, and only for
 *     it). The ring is taken in reservation order, so each thread's tasks
 *     appear in its program order.
 *   - free: release store of `freed` once the consumer is done with the
 *     record; a launcher that reads it (acquire) may write the slot.
 *
 * Every access to the counters and sequence numbers is a C11 atomic, so
 * ThreadSanitizer sees every hand-off (no annotations needed).
 *
 * Room for launchers waiting on a full ring (aclrt_ring_wait_room). A
 * launcher spins briefly (not when others wait already), counts itself in
 * `room_waiters` (seq_cst), tries again, and only then sleeps on the `room`
 * futex word. The consumer frees slots right
 * before a locked RMW (the completed count's advance, stream_complete.h), then reads
 * `room_waiters`: either the launcher's second try sees the free slot, or
 * the consumer sees the launcher. So that thousands of waiting launchers
 * do not cost a wake-up call per task, the consumer wakes them in batches:
 * once per quarter of the ring taken since its last wake-up, and whenever
 * the ring runs empty or the stream parks, one launcher per
 * ACLRT_RING_ROOM_PER_WAKE free slots (a woken launcher goes on launching
 * from the fast path while there is room), or, on the consumer's one CPU,
 * per what one woken launcher filled if more; a wake-up that found nobody
 * asleep is not made again until another launcher arrives. Between
 * batches a free slot may wait; so that it never waits for long (the
 * consumer may be in a task that waits for the very launcher asleep), one
 * waiting launcher, the sentinel, sleeps at most ACLRT_RING_SENTINEL_NS at
 * a time and looks again, and a launcher that leaves while others sleep
 * and no sentinel is left wakes one of them to take the part.
 *
 * The consumer keeps the slot of the task it runs until the task is done
 * (aclrt_ring_take, aclrt_ring_free_taken), so that the free is followed by
 * that task's completion (the locked RMW) and the look for waiters. The
 * capacity therefore counts the running task.
 */
#ifndef ACLRT_IMPL_TASK_RING_H
#define ACLRT_IMPL_TASK_RING_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/futex.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "task.h"

#include <sys/mman.h>

/* The bytes of a record that carry its content: everything but the trailing padding. */
#define ACLRT_RING_RECORD_BYTES 56
_Static_assert(offsetof(struct aclrt_task, u) + sizeof(((struct aclrt_task *)0)->u) <= ACLRT_RING_RECORD_BYTES,
               "a task record's content fits in a ring slot beside its sequence number");

struct ACLRT_ALIGNED(ACLRT_CACHELINE) aclrt_ring_slot {
    unsigned char record[ACLRT_RING_RECORD_BYTES];
    _Atomic uint32_t seq; /* p + 1: position p's record is committed */
    uint32_t unused;
};
_Static_assert(sizeof(struct aclrt_ring_slot) == ACLRT_CACHELINE, "a ring slot is one cache line");

struct aclrt_ring {
    /* Set at creation, read by everyone. */
    struct aclrt_ring_slot *slots;
    uint32_t mask; /* capacity - 1; the capacity is a power of two */
    uint32_t capacity_bytes;
    /* Where a position lies (aclrt_ring_index): its page, its line in the page (0: position order). */
    uint32_t high_mask, line_mask;
    bool prefetchw; /* the CPU has PREFETCHW (aclrt_ring_prefetch_for_write) */
    /* ACLRT_RING_SIDE_BYTES beside each slot (aclrt_ring_side); NULL until a launch first asks for them. */
    _Atomic(unsigned char *) side;
    /*
     * Launchers waiting for room, the futex word they sleep on, and whether
     * one of them looks on its own. On the line above, which the consumer
     * reads anyway: written only while launchers wait for room.
     */
    _Atomic uint32_t room_waiters;
    _Atomic uint32_t room;
    _Atomic uint32_t room_sentinel;
    _Atomic uint32_t room_arrivals; /* launchers that counted themselves in room_waiters, ever */
    _Atomic bool room_beside; /* the last launcher to sleep for room shares the consumer's one CPU (a hint) */
    /* Hints: the thread that last slept for room, and how many of the sleeps before were its too (a run). */
    _Atomic uint32_t room_sleeper;
    _Atomic uint32_t room_run;
    /*
     * Slots taken between a launcher's last leaving the wait for room and
     * its next sleep there, on the consumer's one CPU: about what one woken
     * launcher fills (a hint; 0: not known).
     */
    _Atomic uint32_t room_took;
    /* Launchers: the next position to reserve, and their copy of `freed`. */
    _Atomic uint32_t head ACLRT_ALIGNED(ACLRT_CACHELINE);
    _Atomic uint32_t freed_seen;
    /* The consumer (the stream's holder): the next position to take, the slots it is done with. */
    _Atomic uint32_t tail ACLRT_ALIGNED(ACLRT_CACHELINE);
    _Atomic uint32_t freed;
    _Atomic uint32_t room_woken_at; /* tail at the consumer's last wake-up of launchers waiting for room */
    _Atomic uint32_t room_arrived_at; /* room_arrivals at the consumer's last wake-up at an empty ring */
    _Atomic uint32_t head_seen;     /* the consumer's copy of head (aclrt_ring_take's prefetch) */
    /* room_arrivals * 2 + 1 when the consumer's last wake-up found no launcher asleep, else 0 (aclrt_ring_wake_room_slow). */
    _Atomic uint64_t room_futile;
};

/*
 * Where position p lies. Two consecutive positions, p and p ^ 1, share a
 * 128-byte pair of lines; the 32 pairs of a 4 KiB page hold the page's 64
 * positions in the order pair q -> pair 7q mod 32, so the positions after
 * a pair lie 3 pairs or more away from it (until 8 pairs on), and a ring
 * of less than a page keeps position order. Pages follow position order.
 *
 * Why: a CPU's hardware prefetchers fetch lines after the ones a thread
 * reads (the next lines of a stream within a 4 KiB page). A consumer on
 * another CPU taking tasks just behind its launcher read slot p; with the
 * slots in position order its prefetchers then fetched the slots of p + 2,
 * p + 3 ..., which the launcher was about to write and had asked for
 * already (the PREFETCHW below). The launcher met a coherence miss every
 * few launches, and each launch's locked CAS waited it out. How often
 * depended on how close behind the consumer ran, which made launch costs
 * bimodal from run to run (2-CPU Xeon VM, a launcher bursting into a
 * stream its executor drains on the other CPU: p90 of 16-launch batches
 * 46 - 99 ns, p50 17 - 50; in this order p90 19 - 31, p50 17 - 19 in
 * every run). Pairs stay together and pages in order because many streams with
 * a task each (a fan-out, streams taken round-robin) get their next slot
 * from the pair's other line, and a page per 64 positions keeps each
 * stream on one page: the next position of each on a new page cost a TLB
 * miss per task (1,000 streams on one CPU: fan-out 140 -> 220 us).
 */
static const uint8_t aclrt_ring_lines[64] = {
#define ACLRT_RING_PAIR(q) (uint8_t)((((q) * 7u) & 31u) * 2u), (uint8_t)((((q) * 7u) & 31u) * 2u + 1u)
    ACLRT_RING_PAIR(0),  ACLRT_RING_PAIR(1),  ACLRT_RING_PAIR(2),  ACLRT_RING_PAIR(3),  ACLRT_RING_PAIR(4),
    ACLRT_RING_PAIR(5),  ACLRT_RING_PAIR(6),  ACLRT_RING_PAIR(7),  ACLRT_RING_PAIR(8),  ACLRT_RING_PAIR(9),
    ACLRT_RING_PAIR(10), ACLRT_RING_PAIR(11), ACLRT_RING_PAIR(12), ACLRT_RING_PAIR(13), ACLRT_RING_PAIR(14),
    ACLRT_RING_PAIR(15), ACLRT_RING_PAIR(16), ACLRT_RING_PAIR(17), ACLRT_RING_PAIR(18), ACLRT_RING_PAIR(19),
    ACLRT_RING_PAIR(20), ACLRT_RING_PAIR(21), ACLRT_RING_PAIR(22), ACLRT_RING_PAIR(23), ACLRT_RING_PAIR(24),
    ACLRT_RING_PAIR(25), ACLRT_RING_PAIR(26), ACLRT_RING_PAIR(27), ACLRT_RING_PAIR(28), ACLRT_RING_PAIR(29),
    ACLRT_RING_PAIR(30), ACLRT_RING_PAIR(31),
#undef ACLRT_RING_PAIR
};

ACLRT_INLINE uint32_t aclrt_ring_index(const struct aclrt_ring *r, uint32_t position)
{
    return (position & r->high_mask) | aclrt_ring_lines[position & r->line_mask];
}

/*
 * A launch writes its slot, which the consumer read one lap earlier: a
 * coherence miss. Each launch's CAS on head waits for the stores before it
 * to complete, so back-to-back launches would each wait out the previous
 * one's miss; asking for the line of the launch ACLRT_RING_PREFETCH_AHEAD
 * positions ahead in exclusive state (PREFETCHW) overlaps the misses (a
 * launch while the consumer drains on another CPU, launch_host_func in the
 * benchmark on a 2-CPU Xeon: p50 42 ns without, 12 ns with; 8 ahead was
 * slower again, 4 to 7 alike). Only a launch into a stream its executor
 * holds asks that far (stream_submit.h); any other asks for the next
 * position's slot, the line of the stream's next launch, which may come
 * much later: many streams with a task each (a fan-out from one thread)
 * otherwise wrote each slot from memory (1,000 streams on one CPU, launch
 * -> start p50 167 - 172 us, 115 - 125 with it). PREFETCHW is asked of
 * the CPU once per ring (not every x86 CPU has it); elsewhere the
 * compiler's write prefetch.
 */
#define ACLRT_RING_PREFETCH_AHEAD 6

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static bool aclrt_ring_cpu_prefetchw(void)
{
    unsigned int a, b, c, d;
    return __get_cpuid(0x80000001u, &a, &b, &c, &d) != 0 && (c & (1u << 8)) != 0; /* PRFCHW */
}

ACLRT_INLINE void aclrt_ring_prefetch_for_write(const struct aclrt_ring *r, const void *line)
{
    if (r->prefetchw)
        __asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)line));
}
#else
static bool aclrt_ring_cpu_prefetchw(void)
{
    return true;
}

ACLRT_INLINE void aclrt_ring_prefetch_for_write(const struct aclrt_ring *r, const void *line)
{
    (void)r;
    __builtin_prefetch(line, 1, 3);
}
#endif

/*
 * Ring memory is anonymous pages, zero until written. They are written
 * (faulted in) when the ring is made ready (aclrt_ring_init), not left to
 * the first launches: the executor looks at a slot's sequence number before
 * the launcher writes it, and a first read maps the shared zero page, so
 * the launcher's write then took a copy-on-write fault whose TLB flush
 * interrupts every CPU running the process (measured: 200,000 launches
 * round-robin over 1,000 fresh streams took 55 - 76 ms, 12 ms once the
 * pages were in). A ring costs its memory while its stream lives; a freed
 * stream's pages go back to the system (aclrt_ring_forget).
 */
static struct aclrt_ring_slot *aclrt_ring_map(uint32_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (struct aclrt_ring_slot *)p;
}

/*
 * (Re)initialise an empty ring whose next task is number `completed` + 1.
 * Its slots are zero (fresh pages, or forgotten ones), and zero is "not
 * committed" for every position of the first lap (seq == p + 1 means
 * committed), but for the position 0xFFFFFFFF, whose slot says so itself.
 */
/*
 * Bytes a task owns beside its record: ACLRT_RING_SIDE_BYTES per position,
 * in an area of the ring's capacity (a launch's copy of its kernel's
 * arguments, kernel_launch.h). Position p's bytes belong to whoever holds
 * p's slot, as the record does: written by the launcher that reserved p
 * before its commit, read by the consumer until it frees the slot. The
 * orderings that hand the record over hand them over too (the commit's
 * release, the take's acquire; the free's release, the next reservation's
 * acquire), so a copy there needs no allocation and no free. The area is
 * mapped by the first launch that asks for it (most streams never do: it
 * costs address space, and memory only as launches touch it) and kept for
 * the slot's later lives.
 */
#define ACLRT_RING_SIDE_BYTES 128u

static size_t aclrt_ring_side_size(uint32_t capacity_bytes)
{
    return (size_t)(capacity_bytes / (uint32_t)sizeof(struct aclrt_ring_slot)) * ACLRT_RING_SIDE_BYTES;
}

ACLRT_INTERNAL bool aclrt_ring_init(struct aclrt_ring *r, uint32_t bytes, uint64_t completed)
{
    if (r->slots == NULL || r->capacity_bytes != bytes) {
        /* Relaxed: a ring is (re)made while nobody launches into it. */
        unsigned char *side = atomic_load_explicit(&r->side, memory_order_relaxed);
        if (side != NULL) {
            munmap(side, aclrt_ring_side_size(r->capacity_bytes));
            atomic_store_explicit(&r->side, NULL, memory_order_relaxed);
        }
        if (r->slots != NULL)
            munmap(r->slots, r->capacity_bytes);
        r->slots = aclrt_ring_map(bytes);
        if (r->slots == NULL) {
            r->capacity_bytes = 0;
            return false;
        }
        r->capacity_bytes = bytes;
    }
    uint32_t n = bytes / (uint32_t)sizeof(struct aclrt_ring_slot);
    uint32_t start = (uint32_t)completed;
    /* Fault each page in by a write (see aclrt_ring_map); zero is what the slots hold. Relaxed: nobody uses the ring yet. */
    uint32_t per_page = (uint32_t)sysconf(_SC_PAGESIZE) / (uint32_t)sizeof(struct aclrt_ring_slot);
    for (uint32_t i = 0; i < n; i += per_page > 0 ? per_page : 1)
        atomic_store_explicit(&r->slots[i].seq, 0, memory_order_relaxed);
    r->mask = n - 1;
    r->line_mask = n >= 64u ? 63u : 0u; /* a ring of less than a page keeps position order */
    r->high_mask = r->mask & ~r->line_mask;
    r->prefetchw = aclrt_ring_cpu_prefetchw();
    if ((uint32_t)(UINT32_MAX - start) < n) /* the first lap reaches 0xFFFFFFFF, whose "committed" is seq 0 */
        atomic_store_explicit(&r->slots[aclrt_ring_index(r, UINT32_MAX)].seq, 1, memory_order_relaxed);
    atomic_store_explicit(&r->head, start, memory_order_relaxed);
    atomic_store_explicit(&r->freed_seen, start, memory_order_relaxed);
    atomic_store_explicit(&r->tail, start, memory_order_relaxed);
    atomic_store_explicit(&r->freed, start, memory_order_relaxed);
    atomic_store_explicit(&r->room_woken_at, start, memory_order_relaxed);
    atomic_store_explicit(&r->head_seen, start, memory_order_relaxed);
    atomic_store_explicit(&r->room_waiters, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_sentinel, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_arrivals, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_futile, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_beside, false, memory_order_relaxed);
    atomic_store_explicit(&r->room_sleeper, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_run, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_took, 0, memory_order_relaxed);
    atomic_store_explicit(&r->room_arrived_at, 0, memory_order_relaxed);
    return true;
}

/* The stream is freed: its ring's pages go back to the system and read zero when used again. */
ACLRT_INTERNAL void aclrt_ring_forget(struct aclrt_ring *r)
{
    if (r->slots != NULL)
        madvise(r->slots, r->capacity_bytes, MADV_DONTNEED);
    unsigned char *side = atomic_load_explicit(&r->side, memory_order_relaxed);
    if (side != NULL)
        madvise(side, aclrt_ring_side_size(r->capacity_bytes), MADV_DONTNEED);
}

/* The side area, mapped now (NULL: no memory for it). */
static ACLRT_NOINLINE unsigned char *aclrt_ring_side_map(struct aclrt_ring *r)
{
    size_t size = aclrt_ring_side_size(r->capacity_bytes);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    unsigned char *mine = (unsigned char *)p, *expected = NULL;
    /* Two launchers may map it at once: one mapping wins, the other goes (acquire: pairs with the release below). */
    if (atomic_compare_exchange_strong_explicit(&r->side, &expected, mine, memory_order_release, memory_order_acquire))
        return mine;
    munmap(p, size);
    return expected;
}

/* The side area of the ring (aclrt_ring_side_size), mapped on first use; NULL if it cannot be. */
ACLRT_INLINE unsigned char *aclrt_ring_side(struct aclrt_ring *r)
{
    /* Acquire: pairs with the release CAS that installed it. */
    unsigned char *side = atomic_load_explicit(&r->side, memory_order_acquire);
    return ACLRT_LIKELY(side != NULL) ? side : aclrt_ring_side_map(r);
}

/* Does p point into the side area? */
ACLRT_INLINE bool aclrt_ring_side_holds(const struct aclrt_ring *r, const void *p)
{
    /* Relaxed: asked by the consumer about its own task's bytes, after the acquire that handed the task over. */
    const unsigned char *side = atomic_load_explicit(&r->side, memory_order_relaxed);
    return side != NULL && (uintptr_t)p - (uintptr_t)side < aclrt_ring_side_size(r->capacity_bytes);
}

/* Position p's ACLRT_RING_SIDE_BYTES in the side area. */
ACLRT_INLINE unsigned char *aclrt_ring_side_at(const struct aclrt_ring *r, unsigned char *side, uint32_t position)
{
    return side + (size_t)aclrt_ring_index(r, position) * ACLRT_RING_SIDE_BYTES;
}

/* How many tasks fit (the running one included). */
ACLRT_INLINE uint32_t aclrt_ring_capacity(const struct aclrt_ring *r)
{
    return r->mask + 1;
}

/*
 * The launchers' copy of `freed` said that position *pos is not free: read
 * the consumer's `freed` and keep it. False if the ring is full; true to
 * try again, with *pos moved on if another launcher took it meanwhile (the
 * copy may then even be past it).
 */
static ACLRT_NOINLINE bool aclrt_ring_room_for(struct aclrt_ring *r, uint32_t *pos)
{
    /* Acquire: pairs with the consumer's release in aclrt_ring_free_taken (it is done with the slots). */
    uint32_t freed = atomic_load_explicit(&r->freed, memory_order_acquire);
    /* Release: another launcher that acquires the copy is after the consumer's frees too. */
    atomic_store_explicit(&r->freed_seen, freed, memory_order_release);
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (head != *pos) {
        *pos = head;
        return true;
    }
    return head - freed <= r->mask;
}

/*
 * Reserve the next position; NULL when the ring is full. The CAS on head is
 * seq_cst: with the launcher's later seq_cst load of the schedule word it
 * pairs with the executor's CAS to IDLE followed by its seq_cst look at
 * head (aclrt_stream_kick, aclrt_stream_release).
 */
ACLRT_INLINE struct aclrt_ring_slot *aclrt_ring_reserve(struct aclrt_ring *r, uint32_t *position)
{
    uint32_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (;;) {
        /* Acquire: pairs with the release of the copy (aclrt_ring_room_for). */
        uint32_t seen = atomic_load_explicit(&r->freed_seen, memory_order_acquire);
        if (ACLRT_UNLIKELY(pos - seen > r->mask)) {
            if (!aclrt_ring_room_for(r, &pos))
                return NULL; /* the slot's record of the previous lap is not done with */
            continue;
        }
        if (ACLRT_LIKELY(atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1, memory_order_seq_cst,
                                                               memory_order_relaxed))) {
            *position = pos;
            return &r->slots[aclrt_ring_index(r, pos)];
        }
    }
}

/*
 * A launch at `position`: ask for the slot `distance` launches ahead, if
 * the consumer is done with it (see ACLRT_RING_PREFETCH_AHEAD). A hint, no
 * effect on what anyone sees.
 */
ACLRT_INLINE void aclrt_ring_prefetch_ahead(struct aclrt_ring *r, uint32_t position, uint32_t distance)
{
    uint32_t ahead = position + distance;
    if (ahead - atomic_load_explicit(&r->freed_seen, memory_order_relaxed) <= r->mask)
        aclrt_ring_prefetch_for_write(r, &r->slots[aclrt_ring_index(r, ahead)]);
}

/*
 * Publish a record into the slot reserved for `position`, with `tid` as
 * its submitter. Release: pairs with the consumer's acquire in
 * aclrt_ring_take, which then sees the record.
 */
ACLRT_INLINE void aclrt_ring_commit(struct aclrt_ring_slot *slot, uint32_t position, const struct aclrt_task *t,
                                    uint32_t tid)
{
    memcpy(slot->record, t, ACLRT_RING_RECORD_BYTES);
    memcpy(slot->record + offsetof(struct aclrt_task, tid), &tid, sizeof tid);
    atomic_store_explicit(&slot->seq, position + 1, memory_order_release);
}

/* The slot of a position (a reservation made earlier). */
ACLRT_INLINE struct aclrt_ring_slot *aclrt_ring_slot_of(const struct aclrt_ring *r, uint32_t position)
{
    return &r->slots[aclrt_ring_index(r, position)];
}

/* The consumer: is the next record committed? */
ACLRT_INLINE bool aclrt_ring_ready(const struct aclrt_ring *r)
{
    uint32_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* Acquire: pairs with the launcher's release in aclrt_ring_commit. */
    return atomic_load_explicit(&r->slots[aclrt_ring_index(r, pos)].seq, memory_order_acquire) == pos + 1;
}

/*
 * The consumer took position `pos`: ask for the slot ACLRT_RING_TAKE_AHEAD
 * positions on, if it is reserved. Each task's completion is a locked RMW
 * (the completed count), which waits for every load before it, so the
 * consumer would meet one slot's miss per task, one after the other; a
 * prefetch is not held by a locked instruction, and overlaps the next ones.
 * Only into slots reserved already, by the consumer's copy of head: a
 * slot the launcher is about to write would be taken from it. The copy is
 * read again at most every 64 takes, as each read takes head's line from
 * the launchers' next CAS (one stream, a launcher faster than its
 * executor, 2-CPU Xeon: 16 - 18 Mtasks/s without the prefetch, 47 - 52
 * reading head every 16 takes, 56 - 62 every 64; 128 and 256 alike).
 * Relaxed: a hint.
 */
#define ACLRT_RING_TAKE_AHEAD 8

ACLRT_INLINE void aclrt_ring_take_ahead(struct aclrt_ring *r, uint32_t pos)
{
    uint32_t ahead = pos + ACLRT_RING_TAKE_AHEAD;
    uint32_t seen = atomic_load_explicit(&r->head_seen, memory_order_relaxed);
    if ((int32_t)(seen - ahead) > 0)
        __builtin_prefetch(&r->slots[aclrt_ring_index(r, ahead)], 0, 3);
    else if ((pos & 63) == 0)
        atomic_store_explicit(&r->head_seen, atomic_load_explicit(&r->head, memory_order_relaxed),
                              memory_order_relaxed);
}

/*
 * The consumer: copy out the next record, in reservation order, keeping its
 * slot until aclrt_ring_free_taken; false if the ring is empty or the next
 * position is reserved and not committed yet.
 */
ACLRT_INLINE bool aclrt_ring_take(struct aclrt_ring *r, struct aclrt_task *out)
{
    uint32_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
    struct aclrt_ring_slot *slot = &r->slots[aclrt_ring_index(r, pos)];
    /* Acquire: pairs with the launcher's release in aclrt_ring_commit. */
    if (atomic_load_explicit(&slot->seq, memory_order_acquire) != pos + 1)
        return false;
    memcpy(out, slot->record, ACLRT_RING_RECORD_BYTES);
    atomic_store_explicit(&r->tail, pos + 1, memory_order_relaxed);
    aclrt_ring_take_ahead(r, pos);
    return true;
}

/* The consumer: it is done with every record it took; their slots are free for the next lap. */
ACLRT_INLINE void aclrt_ring_free_taken(struct aclrt_ring *r)
{
    /* Release: the copies are done before a launcher that acquires `freed` writes the slots. */
    atomic_store_explicit(&r->freed, atomic_load_explicit(&r->tail, memory_order_relaxed), memory_order_release);
}

/*
 * Positions below `position` are done with their slots (a stream whose
 * device completes its tasks frees each slot when the task completes, not
 * when it is taken). Never moves `freed` back. Release: as in
 * aclrt_ring_free_taken.
 */
ACLRT_INLINE void aclrt_ring_free_to(struct aclrt_ring *r, uint32_t position)
{
    if ((int32_t)(position - atomic_load_explicit(&r->freed, memory_order_relaxed)) > 0)
        atomic_store_explicit(&r->freed, position, memory_order_release);
}

/* The consumer: take the next record and free its slot at once (a task dropped without running). */
ACLRT_INLINE bool aclrt_ring_pop(struct aclrt_ring *r, struct aclrt_task *out)
{
    if (!aclrt_ring_take(r, out))
        return false;
    aclrt_ring_free_taken(r);
    return true;
}

/* Positions, as loads (32-bit, wrap-around arithmetic). Reserved: every launch that got a slot. */
ACLRT_INLINE uint32_t aclrt_ring_reserved(const struct aclrt_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_relaxed);
}

/* Taken by the consumer. */
ACLRT_INLINE uint32_t aclrt_ring_consumed(const struct aclrt_ring *r)
{
    return atomic_load_explicit(&r->tail, memory_order_relaxed);
}

/*
 * After the caller's own seq_cst atomic (the executor's CAS to IDLE): has
 * any position been reserved that is not taken yet? Seq_cst load: the
 * other half of the pairing with aclrt_ring_reserve's CAS. Reserved, not
 * necessarily committed: its launcher is about to commit.
 */
ACLRT_INLINE bool aclrt_ring_reserved_since_atomic(const struct aclrt_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_seq_cst) != aclrt_ring_consumed(r);
}

#define ACLRT_RING_SENTINEL_NS ACLRT_NS_PER_MS /* the longest a sleeping sentinel waits before it looks */
#define ACLRT_RING_ALONE_RUN 16 /* sleeps for room in a row by one launcher: it has the ring to itself */
/*
 * Free slots per launcher woken (and a batch is a quarter of the ring):
 * shared_stream_launchers_2000x100, 6 QUICK runs each, medians 2.6 Mtasks/s
 * with 16 per launcher and an eighth, 4.9 with 128 and a quarter.
 */
#define ACLRT_RING_ROOM_PER_WAKE 128

/* The ring this thread last left the wait for room on, and its reserved count then (room_took). */
static _Thread_local struct {
    const struct aclrt_ring *r;
    uint32_t reserved;
} aclrt_ring_room_left ACLRT_TLS_MODEL;

/* A launcher's reservation as a driven wait sees it (aclrt_ring_room_taken). */
struct aclrt_ring_room {
    struct aclrt_ring *r;
    uint32_t *position;
    struct aclrt_ring_slot *slot; /* reserved, once there was room */
};

/* Reserve a slot if there is room now: the condition of a driven wait for room. */
static bool aclrt_ring_room_taken(const void *arg)
{
    struct aclrt_ring_room *room = (struct aclrt_ring_room *)(uintptr_t)arg;
    room->slot = aclrt_ring_reserve(room->r, room->position);
    return room->slot != NULL;
}

/*
 * A launcher found the ring full and may wait (it is not a runtime thread):
 * spin for a moment, then sleep until there is room (see the top of this
 * file). `beside`: the launcher runs on the one CPU of the thread that makes
 * room, so it does not spin (that thread cannot run meanwhile), and the
 * consumer wakes it once per lap (aclrt_ring_wake_room_slow). With a driver
 * of the waits (seq.h), the launcher runs the device's work until there is
 * room. Returns the reserved slot.
 */
ACLRT_INTERNAL ACLRT_NOINLINE struct aclrt_ring_slot *aclrt_ring_wait_room(struct aclrt_ring *r, uint32_t *position,
                                                                          bool beside)
{
    const struct aclrt_seq_driver *d = aclrt_seq_driven();
    if (ACLRT_UNLIKELY(d != NULL)) {
        struct aclrt_ring_room room = {r, position, NULL};
        while (d->wait(aclrt_ring_room_taken, &room, ACLRT_NO_DEADLINE, NULL, NULL, false) != 0)
            ;
        return room.slot;
    }
    /*
     * A short spin for a slot, unless others already wait for room: the room
     * goes to them in batches, and the spin would only hold a CPU the
     * consumer may need (launchers beside it on one CPU, hundreds of them).
     */
    struct aclrt_ring_slot *slot;
    for (int i = 0; !beside && i < 256 && atomic_load_explicit(&r->room_waiters, memory_order_relaxed) == 0; i++) {
        aclrt_cpu_relax();
        if ((slot = aclrt_ring_reserve(r, position)) != NULL)
            return slot;
    }
    for (;;) {
        /* Acquire: pairs with the consumer's release bump (aclrt_ring_wake_room_slow). */
        uint32_t word = atomic_load_explicit(&r->room, memory_order_acquire);
        /*
         * Seq_cst, then the look at the ring: pairs with the consumer's
         * free-then-read (aclrt_ring_wake_room). The arrival first: a
         * consumer that sees this launcher in room_waiters sees it arrive.
         */
        atomic_fetch_add_explicit(&r->room_arrivals, 1, memory_order_seq_cst);
        atomic_fetch_add_explicit(&r->room_waiters, 1, memory_order_seq_cst);
        slot = aclrt_ring_reserve(r, position);
        if (slot == NULL) {
            /*
             * Seq_cst, after our count in room_waiters: pairs with a leaving
             * sentinel's store of 0 followed by its look at room_waiters
             * (below). Either we see no sentinel and become it, or it sees
             * us and wakes one of us to take its part.
             */
            uint32_t none = 0;
            bool sentinel = atomic_load_explicit(&r->room_sentinel, memory_order_seq_cst) == 0 &&
                            atomic_compare_exchange_strong_explicit(&r->room_sentinel, &none, 1,
                                                                    memory_order_seq_cst, memory_order_seq_cst);
            atomic_store_explicit(&r->room_beside, beside, memory_order_relaxed);
            if (beside) {
                uint32_t me = aclrt_thread_tid();
                bool again = atomic_exchange_explicit(&r->room_sleeper, me, memory_order_relaxed) == me;
                uint32_t run = atomic_load_explicit(&r->room_run, memory_order_relaxed);
                atomic_store_explicit(&r->room_run, again ? run + (run < UINT32_MAX) : 0, memory_order_relaxed);
                /*
                 * What it filled since it last left: on one CPU, mostly its
                 * own launches (not counted if more than a ring: the memory
                 * is another stream's ring now, or others launched a lot).
                 */
                uint32_t took = aclrt_ring_reserved(r) - aclrt_ring_room_left.reserved;
                if (aclrt_ring_room_left.r == r && took <= aclrt_ring_capacity(r))
                    atomic_store_explicit(&r->room_took, took, memory_order_relaxed);
            }
            aclrt_futex_wait(&r->room, word,
                             sentinel ? aclrt_deadline_after(ACLRT_RING_SENTINEL_NS) : ACLRT_NO_DEADLINE);
            if (sentinel)
                atomic_store_explicit(&r->room_sentinel, 0, memory_order_seq_cst);
        }
        atomic_fetch_sub_explicit(&r->room_waiters, 1, memory_order_relaxed);
        if (slot != NULL || (slot = aclrt_ring_reserve(r, position)) != NULL)
            break;
    }
    /*
     * Others still sleep and none of them looks on its own: wake one to take
     * the sentinel's part. Seq_cst loads: the other half of the pairing above.
     */
    if (atomic_load_explicit(&r->room_waiters, memory_order_seq_cst) != 0 &&
        atomic_load_explicit(&r->room_sentinel, memory_order_seq_cst) == 0) {
        atomic_fetch_add_explicit(&r->room, 1, memory_order_relaxed);
        aclrt_futex_wake(&r->room, 1);
    }
    aclrt_ring_room_left.r = r;
    aclrt_ring_room_left.reserved = aclrt_ring_reserved(r);
    return slot;
}

/* Slots the consumer takes between two batches of wake-ups: a quarter of the ring. */
ACLRT_INLINE uint32_t aclrt_ring_room_batch(const struct aclrt_ring *r)
{
    uint32_t batch = aclrt_ring_capacity(r) / 4;
    return batch == 0 ? 1 : batch;
}

/*
 * Set by a consumer that woke the one launcher sleeping for room on the
 * consumer's own CPU (`room_beside`) at an empty ring, a launcher that has
 * the ring to itself (`room_run`): the ring, and its tail then
 * (aclrt_ring_woke_beside_here reads it; the host backend's executor then
 * keeps the stream and yields to the launcher).
 */
static _Thread_local struct {
    const struct aclrt_ring *r;
    uint32_t tail;
} aclrt_ring_woke_beside ACLRT_TLS_MODEL;

/*
 * Free slots per launcher woken where they sleep on the consumer's one CPU:
 * what one filled before it slept again, if more than
 * ACLRT_RING_ROOM_PER_WAKE. At the holder's wake-up at an empty ring
 * (`at_empty`), an estimate that no launcher came back to sleep since the
 * last such wake-up is dropped.
 */
static uint32_t aclrt_ring_room_per_beside(struct aclrt_ring *r, bool at_empty)
{
    if (at_empty) {
        uint32_t arrivals = atomic_load_explicit(&r->room_arrivals, memory_order_relaxed);
        if (arrivals == atomic_load_explicit(&r->room_arrived_at, memory_order_relaxed))
            atomic_store_explicit(&r->room_took, 0, memory_order_relaxed);
        atomic_store_explicit(&r->room_arrived_at, arrivals, memory_order_relaxed);
    }
    uint32_t took = atomic_load_explicit(&r->room_took, memory_order_relaxed);
    return took > ACLRT_RING_ROOM_PER_WAKE ? took : ACLRT_RING_ROOM_PER_WAKE;
}

/*
 * Launchers sleep for room: if a batch was taken since the last wake-up,
 * the ring is empty, or `now`, wake one per ACLRT_RING_ROOM_PER_WAKE free
 * slots (at least one). A woken launcher goes on launching from the fast
 * path while there is room; a launcher per free slot would take one slot
 * and sleep again: a wake-up and a sleep per task, and the waking costs the
 * consumer. The bump of `room` first makes a launcher that read the word
 * before it and has not slept yet not sleep.
 *
 * Where one launcher waits, and it went to sleep on the consumer's one CPU
 * (`room_beside`), a batch wakes nobody: the two take turns at that CPU,
 * so a launcher woken early only preempts the consumer, fills a quarter of
 * the ring and sleeps again, two context switches per quarter, and the
 * tasks run no sooner. It is woken once the ring is empty (or `now`).
 * Many launchers waiting are woken in batches still, as many as the free
 * slots need: one per ACLRT_RING_ROOM_PER_WAKE, or, where they sleep on the
 * consumer's one CPU, one per `room_took` slots if more (what a woken
 * launcher filled before it slept again). There the launchers run one after
 * another, and the first one woken may fill the ring on its own: the others
 * woken with it only find it full and sleep again, a context switch and a
 * futex call each (4 launchers on one CPU: 20 futex calls a lap). A batch
 * with room for less than one such launcher wakes nobody; the empty ring
 * does. Should the launchers it woke at an empty ring not fill it (none came
 * back to sleep before it ran empty again: they had fewer tasks left), the
 * estimate is dropped.
 */
static ACLRT_NOINLINE void aclrt_ring_wake_room_slow(struct aclrt_ring *r, bool now)
{
    uint32_t tail = aclrt_ring_consumed(r);
    uint32_t used = aclrt_ring_reserved(r) - atomic_load_explicit(&r->freed, memory_order_relaxed);
    if (used >= aclrt_ring_capacity(r))
        return; /* no room */
    uint32_t last = atomic_load_explicit(&r->room_woken_at, memory_order_relaxed);
    bool empty = aclrt_ring_reserved(r) == tail;
    bool beside = atomic_load_explicit(&r->room_beside, memory_order_relaxed);
    bool alone_beside = beside && atomic_load_explicit(&r->room_waiters, memory_order_relaxed) == 1;
    if (!now && !empty && (tail - last < aclrt_ring_room_batch(r) || alone_beside))
        return; /* the next batch, the empty ring, or the sentinel's look comes soon */
    uint32_t per = beside ? aclrt_ring_room_per_beside(r, empty && !now) : ACLRT_RING_ROOM_PER_WAKE;
    uint32_t wake = (aclrt_ring_capacity(r) - used) / per;
    if (wake == 0 && !now && !empty)
        return; /* room for less than one launcher's turn: the empty ring wakes one */
    /* Seq_cst: after the load of room_waiters (aclrt_ring_wake_room), which saw these arrivals. */
    uint64_t futile = (uint64_t)atomic_load_explicit(&r->room_arrivals, memory_order_seq_cst) * 2 + 1;
    if (!now && atomic_load_explicit(&r->room_futile, memory_order_relaxed) == futile)
        return; /* every launcher waiting is awake already (see below) */
    atomic_store_explicit(&r->room_woken_at, tail, memory_order_relaxed);
    /* Release: a launcher that reads the new word (acquire) arrives after the load of `arrivals` above. */
    atomic_fetch_add_explicit(&r->room, 1, memory_order_release);
    if (empty && alone_beside && atomic_load_explicit(&r->room_run, memory_order_relaxed) >= ACLRT_RING_ALONE_RUN) {
        aclrt_ring_woke_beside.r = r;
        aclrt_ring_woke_beside.tail = tail;
    }
    /*
     * A call that finds nobody on the futex: every launcher counted in
     * room_waiters is awake (woken, and not run yet: on a busy CPU, for
     * many of this consumer's tasks) or not asleep yet, and will then see
     * `room` moved and look again, as a new arrival. Until one arrives,
     * more calls would find nobody too, and they cost a system call per
     * task: a consumer just behind the one launcher awake, with the others
     * woken and waiting for that launcher's CPU, ran a futex call per task
     * (4 launchers on one CPU, their executor on another: 375,000 calls in
     * 12 million tasks, 8 - 11 Mtasks/s).
     */
    int woke = aclrt_futex_wake(&r->room, wake == 0 ? 1 : (int)wake);
    if (!now) /* the holder's calls, one at a time (`now`: also a fold, from any thread) */
        atomic_store_explicit(&r->room_futile, woke == 0 ? futile : 0, memory_order_relaxed);
}

/*
 * Whether this thread, the consumer of r, woke r's one launcher beside it
 * when r ran empty, and nothing was launched into r since (the launcher has
 * not run yet); forgets it.
 */
ACLRT_INLINE bool aclrt_ring_woke_beside_here(const struct aclrt_ring *r)
{
    if (ACLRT_LIKELY(aclrt_ring_woke_beside.r == NULL))
        return false;
    bool here = aclrt_ring_woke_beside.r == r && aclrt_ring_reserved(r) == aclrt_ring_woke_beside.tail;
    aclrt_ring_woke_beside.r = NULL;
    return here;
}

/*
 * The consumer freed slots and then made a locked RMW followed by
 * ck_pr_fence_atomic_load (the completed count's advance, seq.h), or a
 * seq_cst CAS, which orders this load after the frees: with the launcher's
 * seq_cst count-then-look in aclrt_ring_wait_room, either the launcher sees
 * the free slot or this load sees the launcher. `now`: the consumer stops
 * taking (it parks), so it does not wait for a batch.
 */
ACLRT_INLINE void aclrt_ring_wake_room(struct aclrt_ring *r, bool now)
{
    if (ACLRT_UNLIKELY(atomic_load_explicit(&r->room_waiters, memory_order_seq_cst) != 0))
        aclrt_ring_wake_room_slow(r, now);
}

/*
 * The 64-bit task number of a 32-bit position, given any count `base` that
 * is at most 2^31 behind it (the stream's completed count qualifies: the ring
 * holds far fewer than 2^31 tasks).
 */
ACLRT_INLINE uint64_t aclrt_ring_extend(uint64_t base, unsigned int position)
{
    return base + (uint32_t)(position - (uint32_t)base);
}

#endif /* ACLRT_IMPL_TASK_RING_H */
