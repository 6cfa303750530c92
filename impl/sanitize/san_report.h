/*
 * impl/sanitize/san_report.h - the stream-ordering sanitizer's reports: one
 * per pair of call sites and kind, written to stderr and handed to the
 * program's callback (aclrtxSetSanitizerCallback), counted for aclFinalize.
 *
 * Reports are worded under the sanitizer's lock and delivered after it is
 * released (aclrt_san_deliver), so a callback may call the runtime.
 */
#ifndef ACLRT_IMPL_SANITIZE_SAN_REPORT_H
#define ACLRT_IMPL_SANITIZE_SAN_REPORT_H

#include "../core/base.h"
#include "san_clock.h"
#include "san_state.h"

#include <dlfcn.h>

struct aclrt_san_report {
    aclrtxSanitizerReport pub;
    char text[1536];
};

static struct {
    /* Pairs of call sites reported (kind in the low bits of the hash). */
    uint64_t *seen;
    uint32_t nseen, capseen;
    /* Worded, not delivered yet (the lock holder's). */
    struct aclrt_san_report *queue;
    uint32_t nqueue, capqueue;
    _Atomic uint64_t count;
    /* The program's callback: set and read under the sanitizer's lock. */
    aclrtxSanitizerCallback callback;
    void *user;
} aclrt_san_rep;

static const char *const aclrt_san_kind_names[] = {"data race", "use after free", "free race",
                                                   "read of uninitialized memory", "free while in use"};

/* "binary(function+0x12)" or the bare address. */
static void aclrt_san_symbol(const void *addr, char *buf, size_t size)
{
    Dl_info info;
    if (addr != NULL && dladdr(addr, &info) != 0 && info.dli_fname != NULL) {
        const char *base = strrchr(info.dli_fname, '/');
        base = base != NULL ? base + 1 : info.dli_fname;
        if (info.dli_sname != NULL)
            snprintf(buf, size, "%s(%s+0x%tx) [%p]", base, info.dli_sname,
                     (const char *)addr - (const char *)info.dli_saddr, addr);
        else
            snprintf(buf, size, "%s(+0x%tx) [%p]", base, (const char *)addr - (const char *)info.dli_fbase, addr);
        return;
    }
    snprintf(buf, size, "[%p]", addr);
}

static void aclrt_san_site_public(const struct aclrt_san_site *s, bool write, aclrtxSanitizerAccess *out)
{
    out->api = s->api != NULL ? s->api : "?";
    out->task = s->what;
    out->streamId = s->stream_id;
    out->taskId = s->task_id;
    out->deviceId = s->device;
    out->write = write ? 1u : 0u;
    out->caller = s->caller;
}

static int aclrt_san_site_text(char *buf, size_t size, const char *verb, const struct aclrt_san_site *s)
{
    char sym[256];
    aclrt_san_symbol(s->caller, sym, sizeof sym);
    if (s->stream_id < 0)
        return snprintf(buf, size, "  %s by the host in %s, called from %s\n", verb, s->api ? s->api : "?", sym);
    return snprintf(buf, size, "  %s by %s (task %u of stream %d, device %d) from %s, called from %s\n", verb, s->what,
                    s->task_id, s->stream_id, s->device, s->api ? s->api : "?", sym);
}

/* Has this pair of call sites been reported as `kind`? Marks it if not. */
static bool aclrt_san_seen(uint32_t kind, const struct aclrt_san_site *a, const struct aclrt_san_site *b)
{
    uintptr_t x = (uintptr_t)a->caller ^ (uintptr_t)a->api, y = (uintptr_t)b->caller ^ (uintptr_t)b->api;
    uint64_t h = ((uint64_t)(x < y ? x : y) * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(x < y ? y : x) * 0xc2b2ae3d27d4eb4full);
    h = (h << 2) | kind;
    for (uint32_t i = 0; i < aclrt_san_rep.nseen; i++)
        if (aclrt_san_rep.seen[i] == h)
            return true;
    ACLRT_SAN_GROW(aclrt_san_rep.seen, aclrt_san_rep.nseen, aclrt_san_rep.capseen);
    aclrt_san_rep.seen[aclrt_san_rep.nseen++] = h;
    return false;
}

/*
 * Word a report of `kind` on [lo, hi): `first` (the earlier access, or the
 * free) and `second` (the access now), in block b (or NULL). Lock held.
 */
ACLRT_INTERNAL void aclrt_san_report(uint32_t kind, uintptr_t lo, uintptr_t hi, const struct aclrt_san_block *b,
                             const struct aclrt_san_site *first, bool first_write, const struct aclrt_san_site *second,
                             bool second_write)
{
    if (aclrt_san_seen(kind, first, second))
        return;
    ACLRT_SAN_GROW(aclrt_san_rep.queue, aclrt_san_rep.nqueue, aclrt_san_rep.capqueue);
    struct aclrt_san_report *r = &aclrt_san_rep.queue[aclrt_san_rep.nqueue++];
    memset(&r->pub, 0, sizeof r->pub);
    r->pub.kind = kind;
    r->pub.address = (const void *)lo;
    r->pub.size = hi - lo;
    aclrt_san_site_public(first, first_write, &r->pub.first);
    aclrt_san_site_public(second, second_write, &r->pub.second);
    char *p = r->text;
    size_t left = sizeof r->text;
#define ACLRT_SAN_PUT(fn, ...)                                                                                     \
    do {                                                                                                         \
        int k_ = fn(p, left, __VA_ARGS__);                                                                       \
        if (k_ > 0 && (size_t)k_ < left)                                                                         \
            p += k_, left -= (size_t)k_;                                                                         \
        else                                                                                                     \
            left = 0;                                                                                            \
    } while (0)
    ACLRT_SAN_PUT(snprintf, "aclrt sanitizer: %s on %zu bytes at %p", aclrt_san_kind_names[kind], (size_t)(hi - lo),
                  (void *)lo);
    if (b != NULL) {
        char sym[256];
        aclrt_san_symbol(b->alloc_caller, sym, sizeof sym);
        ACLRT_SAN_PUT(snprintf, " (offset %zu of a %zu-byte block from %s, called from %s)", (size_t)(lo - b->lo),
                      (size_t)(b->hi - b->lo), b->alloc_api ? b->alloc_api : "?", sym);
    }
    ACLRT_SAN_PUT(snprintf, "%s", "\n");
    switch (kind) {
    case ACLRTX_SANITIZER_RACE:
        ACLRT_SAN_PUT(aclrt_san_site_text, first_write ? "written" : "read", first);
        ACLRT_SAN_PUT(aclrt_san_site_text, second_write ? "written" : "read", second);
        ACLRT_SAN_PUT(snprintf, "%s", "  nothing orders them: no stream order, event or notify wait, value wait or "
                                      "synchronize puts one before the other\n");
        break;
    case ACLRTX_SANITIZER_USE_AFTER_FREE:
        ACLRT_SAN_PUT(aclrt_san_site_text, "freed", first);
        ACLRT_SAN_PUT(aclrt_san_site_text, second_write ? "then written" : "then read", second);
        break;
    case ACLRTX_SANITIZER_FREE_RACE:
        ACLRT_SAN_PUT(aclrt_san_site_text, first_write ? "written" : "read", first);
        ACLRT_SAN_PUT(snprintf, "%s", "  the block was freed with that access not synchronized, and its memory was "
                                      "allocated again\n");
        ACLRT_SAN_PUT(aclrt_san_site_text, second_write ? "then written" : "then read", second);
        ACLRT_SAN_PUT(snprintf, "%s", "  nothing orders the new access after the old one (on a device the new owner "
                                      "may see or clobber the old work)\n");
        break;
    case ACLRTX_SANITIZER_FREE_IN_USE:
        ACLRT_SAN_PUT(aclrt_san_site_text, first_write ? "written" : "read", first);
        ACLRT_SAN_PUT(aclrt_san_site_text, "freed", second);
        ACLRT_SAN_PUT(snprintf, "%s", "  nothing orders the free after that access: on a device the memory may be "
                                      "given to someone else while the task still uses it\n");
        break;
    default:
        ACLRT_SAN_PUT(aclrt_san_site_text, "read", second);
        ACLRT_SAN_PUT(snprintf, "%s", "  no copy, memset, kernel or host write ever wrote these bytes\n");
        break;
    }
#undef ACLRT_SAN_PUT
    r->pub.text = r->text;
    atomic_fetch_add_explicit(&aclrt_san_rep.count, 1, memory_order_relaxed);
}

/*
 * Take the worded reports (lock held) into `out` (the caller frees it).
 * Returns how many, and the callback to call.
 */
ACLRT_INTERNAL uint32_t aclrt_san_take_reports(struct aclrt_san_report **out, aclrtxSanitizerCallback *cb, void **user)
{
    uint32_t n = aclrt_san_rep.nqueue;
    *out = aclrt_san_rep.queue;
    aclrt_san_rep.queue = NULL;
    aclrt_san_rep.nqueue = aclrt_san_rep.capqueue = 0;
    *cb = aclrt_san_rep.callback;
    *user = aclrt_san_rep.user;
    return n;
}

/* Print and hand over reports taken from the queue (no lock held). */
ACLRT_INTERNAL void aclrt_san_deliver(struct aclrt_san_report *r, uint32_t n, aclrtxSanitizerCallback cb, void *user)
{
    for (uint32_t i = 0; i < n; i++) {
        r[i].pub.text = r[i].text;
        fputs(r[i].text, stderr);
        if (cb != NULL)
            cb(&r[i].pub, user);
    }
    fflush(stderr);
    free(r);
}

#endif /* ACLRT_IMPL_SANITIZE_SAN_REPORT_H */
