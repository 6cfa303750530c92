/*
 * impl/core/config.h - runtime configuration: defaults, the aclInit JSON file,
 * and environment variables (which win over the file).
 *
 *   JSON key                       environment            default
 *   err_msg_mode ("0"|"1")         -                      "0" (per thread)
 *   defaultDevice.default_device   ACLRT_DEFAULT_DEVICE   none
 *   aclrt.backend                  ACLRT_BACKEND          "host"
 *   aclrt.progress                 ACLRT_PROGRESS         "threads" (or "external")
 *   aclrt.profile                  ACLRT_PROFILE          "Ascend910B1" (profile.h)
 *   aclrt.devices                  ACLRT_DEVICES          1
 *   aclrt.executors                ACLRT_EXECUTORS        online CPUs (min 2)
 *   aclrt.ring_bytes               ACLRT_RING_BYTES       65536 (1024 tasks)
 *   aclrt.spin_ns                  ACLRT_SPIN_NS          20000
 *   aclrt.max_streams              ACLRT_MAX_STREAMS      1984 per device
 *   aclrt.max_events               ACLRT_MAX_EVENTS       65536 per device
 *   aclrt.max_notifies             ACLRT_MAX_NOTIFIES     8192 per device
 *   aclrt.sanitize                 ACLRT_SANITIZE         "none" (or "streams", plus ",uninit", ",free")
 *   aclrt.sanitize_exitcode        ACLRT_SANITIZE_EXITCODE 66
 *   aclrt.schedule                 ACLRT_SCHEDULE         "threads" (or "deterministic:SEED")
 *   aclrt.cpus                     ACLRT_CPUS             "" (any CPU; else a list: "0-3,6")
 *
 * The file is parsed with jsmn (a real tokenizer, header-only, in strict
 * mode), and the text between its tokens is checked for the separators
 * jsmn does not enforce (":" after a key, "," between members, nothing after
 * the document), so that only well-formed JSON is accepted. A missing or
 * unreadable file is ACL_ERROR_INVALID_FILE, malformed JSON or nesting deeper
 * than 10 levels is ACL_ERROR_PARSE_FILE, a known key with a bad value is
 * ACL_ERROR_FILE_ATTR_INVALID. The object "aclrt" is this runtime's own: a
 * key it does not know (a typo) is ACL_ERROR_FILE_ATTR_INVALID too, and the
 * message names it and the closest known key. Other unknown keys are
 * ignored (CANN's aclInit accepts many we do not use: "dump", "profiler",
 * ...).
 */
#ifndef ACLRT_IMPL_CORE_CONFIG_H
#define ACLRT_IMPL_CORE_CONFIG_H

#include "base.h"
#include "clock.h"
#include "error.h"
#include "profile.h"

#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#define JSMN_STRICT
#include <jsmn.h>

#define ACLRT_MAX_DEVICES 64
#define ACLRT_MAX_EXECUTORS 256
#define ACLRT_JSON_MAX_DEPTH 10
#define ACLRT_JSON_MAX_BYTES (1u << 20)

struct aclrt_config {
    char backend[32];
    bool external_progress; /* aclrt.progress "external": no runtime threads (aclrtxDeviceProgress) */
    uint32_t profile;       /* aclrt.profile: the index in aclrt_profiles (profile.h) of what the devices report */
    uint32_t devices;
    bool devices_set; /* aclrt.devices / ACLRT_DEVICES was given (a GPU backend otherwise counts its GPUs) */
    uint32_t executors;
    uint32_t ring_bytes;
    uint32_t max_streams;
    uint32_t max_events;
    uint32_t max_notifies; /* notifies and counting notifies together */
    uint64_t spin_ns;
    int32_t default_device; /* -1: none */
    int err_msg_mode;       /* 0 per thread, 1 per process */
    uint32_t file_keys;     /* the "aclrt" keys the file set: ACLRT_CONFIG_KEY(index in aclrt_config_numbers), ... */
    uint32_t sanitize;      /* aclrt.sanitize: ACLRT_SANITIZE_* bits (impl/sanitize/sanitize.h) */
    uint32_t sanitize_exitcode; /* the exit status aclFinalize gives a program the sanitizer reported on */
    bool deterministic;     /* aclrt.schedule "deterministic:SEED" (backends/host/host_det.h) */
    uint64_t schedule_seed; /* its SEED */
    bool cpus_set;          /* aclrt.cpus: the runtime's threads run on `cpus` only */
    cpu_set_t cpus;
};

/* Bits of aclrt.sanitize. */
#define ACLRT_SANITIZE_STREAMS 1u /* "streams": accesses that no stream order, wait or synchronize orders */
#define ACLRT_SANITIZE_UNINIT 2u  /* "uninit": reads of device memory nothing wrote */
#define ACLRT_SANITIZE_FREE 4u    /* "free": a free while work not ordered before it uses the block */

/* Bits of file_keys: a number's index in aclrt_config_numbers, then the three named ones. */
#define ACLRT_CONFIG_KEY(index) (1u << (index))
#define ACLRT_CONFIG_KEY_CPUS (1u << 26)
#define ACLRT_CONFIG_KEY_SANITIZE (1u << 27)
#define ACLRT_CONFIG_KEY_SCHEDULE (1u << 28)
#define ACLRT_CONFIG_KEY_PROFILE (1u << 29)
#define ACLRT_CONFIG_KEY_BACKEND (1u << 30)
#define ACLRT_CONFIG_KEY_PROGRESS (1u << 31)

ACLRT_INTERNAL void aclrt_config_defaults(struct aclrt_config *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->backend, "host");
    c->devices = 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    c->executors = cpus < 2 ? 2 : (cpus > ACLRT_MAX_EXECUTORS ? ACLRT_MAX_EXECUTORS : (uint32_t)cpus);
    c->ring_bytes = 64 * 1024;
    c->max_streams = 1984;
    c->max_events = 65536;
    c->max_notifies = 8192; /* the A2/A3 limit */
    c->spin_ns = 20000;
    c->default_device = -1;
    c->profile = ACLRT_PROFILE_DEFAULT;
    c->sanitize_exitcode = 66;
}

/* Round the ring size to a power of two within [1 KiB, 64 MiB]. */
static uint32_t aclrt_config_ring_bytes(uint64_t bytes)
{
    uint32_t r = 1024;
    while (r < bytes && r < (64u << 20))
        r <<= 1;
    return r;
}

/* "threads" -> 0, "external" -> 1, anything else -> -1. */
static int aclrt_config_progress_mode(const char *s, size_t n)
{
    if (n == 7 && memcmp(s, "threads", 7) == 0)
        return 0;
    if (n == 8 && memcmp(s, "external", 8) == 0)
        return 1;
    return -1;
}

/*
 * aclrt.sanitize: "" or "none" -> 0; "streams", then any of ",uninit",
 * ",free" -> their ACLRT_SANITIZE_* bits; anything else -> -1.
 */
static int64_t aclrt_config_sanitize_mode(const char *s, size_t n)
{
    if (n == 0 || (n == 4 && memcmp(s, "none", 4) == 0))
        return 0;
    int64_t bits = 0;
    for (size_t at = 0; at <= n;) {
        size_t end = at;
        while (end < n && s[end] != ',')
            end++;
        size_t len = end - at;
        if (at == 0 && len == 7 && memcmp(s, "streams", 7) == 0)
            bits |= ACLRT_SANITIZE_STREAMS;
        else if (at != 0 && len == 6 && memcmp(s + at, "uninit", 6) == 0)
            bits |= ACLRT_SANITIZE_UNINIT;
        else if (at != 0 && len == 4 && memcmp(s + at, "free", 4) == 0)
            bits |= ACLRT_SANITIZE_FREE;
        else
            return -1;
        at = end + 1;
    }
    return bits;
}

/* aclrt.schedule: "threads" -> 0, "deterministic:SEED" -> 1 (seed in *seed), anything else -> -1. */
static int aclrt_config_schedule_mode(const char *s, size_t n, uint64_t *seed)
{
    if (n == 7 && memcmp(s, "threads", 7) == 0)
        return 0;
    if (n <= 14 || n > 14 + 20 || memcmp(s, "deterministic:", 14) != 0)
        return -1;
    char buf[24];
    memcpy(buf, s + 14, n - 14);
    buf[n - 14] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno != 0 || *end != '\0' || buf[0] == '-' || buf[0] == '\0')
        return -1;
    *seed = v;
    return 1;
}

/*
 * aclrt.cpus: "" -> 0 (no set: any CPU); a list of CPUs and ranges ("0-3,6")
 * of which at least one is a CPU of this machine -> 1, the set in *out;
 * anything else -> -1. (Whether the process may run there is known only when
 * a thread starts: aclrt_config_thread_create.)
 */
static int aclrt_config_cpu_list(const char *s, size_t n, cpu_set_t *out)
{
    CPU_ZERO(out);
    if (n == 0)
        return 0;
    for (size_t at = 0; at <= n;) {
        unsigned long lo = 0, hi;
        size_t i = at, digits = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9' && digits < 6; i++, digits++)
            lo = lo * 10 + (unsigned long)(s[i] - '0');
        if (digits == 0)
            return -1;
        hi = lo;
        if (i < n && s[i] == '-') {
            hi = 0, digits = 0;
            for (i++; i < n && s[i] >= '0' && s[i] <= '9' && digits < 6; i++, digits++)
                hi = hi * 10 + (unsigned long)(s[i] - '0');
            if (digits == 0 || hi < lo)
                return -1;
        }
        if (hi >= CPU_SETSIZE || (i < n && s[i] != ','))
            return -1;
        for (unsigned long c = lo; c <= hi; c++)
            CPU_SET(c, out);
        at = i + 1;
    }
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < cpus && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, out))
            return 1;
    return -1;
}

/*
 * The CPUs the runtime's own threads run on: aclrt.cpus where it is set
 * (aclrt_config_thread_create puts them there, whichever CPU the calling
 * thread is on), else the CPUs the calling thread may use (taskset, a
 * cgroup), which they inherit. False if the kernel would not say.
 */
static bool aclrt_config_runtime_cpus(const struct aclrt_config *c, cpu_set_t *out)
{
    if (c->cpus_set && CPU_COUNT(&c->cpus) > 0) {
        *out = c->cpus;
        return true;
    }
    CPU_ZERO(out);
    return sched_getaffinity(0, sizeof *out, out) == 0 && CPU_COUNT(out) > 0;
}

/* How many CPUs the runtime's own threads can run on (else the online ones). At least 1. */
ACLRT_INTERNAL uint32_t aclrt_config_cpu_count(const struct aclrt_config *c)
{
    cpu_set_t mine;
    int n = aclrt_config_runtime_cpus(c, &mine) ? CPU_COUNT(&mine) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : (uint32_t)n;
}

/* The one CPU the runtime's own threads can run on; -1 where they have more (or the kernel would not say). */
ACLRT_INTERNAL int32_t aclrt_config_only_cpu(const struct aclrt_config *c)
{
    cpu_set_t mine;
    if (!aclrt_config_runtime_cpus(c, &mine) || CPU_COUNT(&mine) != 1)
        return -1;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &mine))
            return i;
    return -1;
}

/*
 * Start one of the runtime's own threads (an executor, the monitor, a model
 * lane) with `attr` (NULL: the defaults), on the CPUs of aclrt.cpus if set.
 * Where the process may not run on any of them (a cgroup, taskset), the
 * thread starts without them, as without aclrt.cpus. pthread_create's result.
 */
ACLRT_INTERNAL int aclrt_config_thread_create(const struct aclrt_config *c, pthread_t *t, pthread_attr_t *attr,
                                              void *(*fn)(void *), void *arg)
{
    pthread_attr_t own;
    if (attr == NULL) {
        pthread_attr_init(&own);
        attr = &own;
    }
    int rc = -1;
    if (c->cpus_set && pthread_attr_setaffinity_np(attr, sizeof c->cpus, &c->cpus) == 0)
        rc = pthread_create(t, attr, fn, arg);
    if (rc != 0 && c->cpus_set) {
        cpu_set_t any;
        CPU_ZERO(&any);
        for (int i = 0; i < CPU_SETSIZE; i++)
            CPU_SET(i, &any);
        (void)pthread_attr_setaffinity_np(attr, sizeof any, &any);
    }
    if (rc != 0)
        rc = pthread_create(t, attr, fn, arg);
    if (attr == &own)
        pthread_attr_destroy(&own);
    return rc;
}

/* Parse an unsigned integer within [lo, hi]; accepts "123" as JSON text or string. */
static bool aclrt_config_parse_u64(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno != 0 || *end != '\0' || buf[0] == '-' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

struct aclrt_config_setting {
    const char *name; /* "aclrt.devices" etc. */
    const char *env;
    uint64_t lo, hi;
};

static const struct aclrt_config_setting aclrt_config_numbers[] = {
    {"aclrt.devices", "ACLRT_DEVICES", 1, ACLRT_MAX_DEVICES},
    {"aclrt.executors", "ACLRT_EXECUTORS", 1, ACLRT_MAX_EXECUTORS},
    {"aclrt.ring_bytes", "ACLRT_RING_BYTES", 1024, 64u << 20},
    {"aclrt.spin_ns", "ACLRT_SPIN_NS", 0, 10 * ACLRT_NS_PER_S},
    {"aclrt.max_streams", "ACLRT_MAX_STREAMS", 2, 65536},
    {"aclrt.max_events", "ACLRT_MAX_EVENTS", 1, 1u << 20},
    {"defaultDevice.default_device", "ACLRT_DEFAULT_DEVICE", 0, ACLRT_MAX_DEVICES - 1},
    {"err_msg_mode", NULL, 0, 1},
    {"aclrt.max_notifies", "ACLRT_MAX_NOTIFIES", 1, 1u << 20},
    {"aclrt.sanitize_exitcode", "ACLRT_SANITIZE_EXITCODE", 0, 255},
};

static void aclrt_config_store(struct aclrt_config *c, size_t which, uint64_t v)
{
    switch (which) {
    case 0: c->devices = (uint32_t)v, c->devices_set = true; break;
    case 1: c->executors = (uint32_t)v; break;
    case 2: c->ring_bytes = aclrt_config_ring_bytes(v); break;
    case 3: c->spin_ns = v; break;
    case 4: c->max_streams = (uint32_t)v; break;
    case 5: c->max_events = (uint32_t)v; break;
    case 6: c->default_device = (int32_t)v; break;
    case 7: c->err_msg_mode = (int)v; break;
    case 8: c->max_notifies = (uint32_t)v; break;
    case 9: c->sanitize_exitcode = (uint32_t)v; break;
    }
}

/* A number's value as aclrt_config_store left it (the inverse, for comparisons). */
static uint64_t aclrt_config_value(const struct aclrt_config *c, size_t which)
{
    switch (which) {
    case 0: return c->devices;
    case 1: return c->executors;
    case 2: return c->ring_bytes;
    case 3: return c->spin_ns;
    case 4: return c->max_streams;
    case 5: return c->max_events;
    case 6: return (uint64_t)(int64_t)c->default_device;
    case 7: return (uint64_t)c->err_msg_mode;
    case 8: return c->max_notifies;
    case 9: return c->sanitize_exitcode;
    }
    return 0;
}

/* Edit distance of a (n bytes) and b: insertions, deletions, substitutions, swaps of neighbours. */
static size_t aclrt_config_distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > 31 || m > 31)
        return SIZE_MAX;
    size_t d[32][32];
    for (size_t i = 0; i <= n; i++)
        for (size_t j = 0; j <= m; j++) {
            if (i == 0 || j == 0) {
                d[i][j] = i + j;
                continue;
            }
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/*
 * A key of "aclrt" that is none of ours: ACL_ERROR_FILE_ATTR_INVALID, naming
 * it, the known key closest to it (at most two edits away), and all of them.
 */
static aclError aclrt_config_unknown_key(const char *key, size_t n)
{
    const char *closest = NULL;
    size_t closest_d = 3;
    char known[320] = "backend, progress, profile, sanitize, schedule, cpus";
    size_t len = strlen(known);
    const char *named[6] = {"backend", "progress", "profile", "sanitize", "schedule", "cpus"};
    for (size_t k = 0; k < 6; k++) {
        size_t d = aclrt_config_distance(key, n, named[k]);
        if (d < closest_d)
            closest = named[k], closest_d = d;
    }
    for (size_t s = 0; s < ACLRT_ARRAY_SIZE(aclrt_config_numbers); s++) {
        const char *name = aclrt_config_numbers[s].name;
        if (strncmp(name, "aclrt.", 6) != 0)
            continue;
        name += 6;
        len += (size_t)snprintf(known + len, sizeof known - len, ", %s", name);
        if (len >= sizeof known)
            len = sizeof known - 1;
        size_t d = aclrt_config_distance(key, n, name);
        if (d < closest_d)
            closest = name, closest_d = d;
    }
    if (closest != NULL)
        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                          "unknown key \"aclrt.%.*s\" in the configuration: did you mean \"%s\"? (the keys of "
                          "\"aclrt\": %s)",
                          n > 64 ? 64 : (int)n, key, closest, known);
    return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                      "unknown key \"aclrt.%.*s\" in the configuration (the keys of \"aclrt\": %s)",
                      n > 64 ? 64 : (int)n, key, known);
}

ACLRT_INTERNAL bool aclrt_json_eq(const char *js, const jsmntok_t *t, const char *s)
{
    size_t n = strlen(s);
    return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n && memcmp(js + t->start, s, n) == 0;
}

/* Index of the token after token i and everything below it (a key's value included). */
ACLRT_INTERNAL int aclrt_json_skip(const jsmntok_t *toks, int count, int i)
{
    int next = i + 1;
    if (toks[i].type == JSMN_OBJECT || toks[i].type == JSMN_ARRAY || toks[i].type == JSMN_STRING)
        for (int k = 0; k < toks[i].size && next < count; k++)
            next = aclrt_json_skip(toks, count, next); /* members, elements, or a key's value */
    return next;
}

static int aclrt_json_depth(const jsmntok_t *toks, int i)
{
    int depth = 0;
    for (int p = toks[i].parent; p >= 0; p = toks[p].parent)
        if (toks[p].type == JSMN_OBJECT || toks[p].type == JSMN_ARRAY)
            depth++;
    return depth;
}

/* Only whitespace and at most the one separator `sep` (0: none) in js[from, to). */
static bool aclrt_json_gap(const char *js, int from, int to, char sep)
{
    bool seen = sep == 0;
    for (int i = from; i < to; i++) {
        char c = js[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c != sep || seen)
            return false;
        seen = true;
    }
    return seen;
}

/* Where a token's text starts and ends, quotes included. */
static int aclrt_json_token_start(const jsmntok_t *t)
{
    return t->type == JSMN_STRING ? t->start - 1 : t->start;
}

static int aclrt_json_token_end(const jsmntok_t *t)
{
    return t->type == JSMN_STRING ? t->end + 1 : t->end;
}

/* Where the text of token i ends, counting a key's value as part of it. */
static int aclrt_json_member_end(const jsmntok_t *toks, int count, int i)
{
    if (toks[i].type == JSMN_STRING && toks[i].size == 1 && i + 1 < count)
        return aclrt_json_token_end(&toks[i + 1]);
    return aclrt_json_token_end(&toks[i]);
}

/*
 * The separators jsmn leaves unchecked. Children of an object are keys
 * (strings with exactly one value), each followed by ':' and its value;
 * siblings are separated by ','; nothing but whitespace before the first
 * child, after the last, or around the document.
 */
ACLRT_INTERNAL bool aclrt_json_well_formed(const char *js, size_t len, const jsmntok_t *toks, int count)
{
    if (!aclrt_json_gap(js, 0, aclrt_json_token_start(&toks[0]), 0) ||
        !aclrt_json_gap(js, aclrt_json_token_end(&toks[0]), (int)len, 0))
        return false;
    for (int i = 0; i < count; i++) {
        const jsmntok_t *t = &toks[i];
        if (t->type == JSMN_STRING && t->size == 1) { /* a key: ':' before its value */
            if (i + 1 >= count || !aclrt_json_gap(js, t->end + 1, aclrt_json_token_start(&toks[i + 1]), ':'))
                return false;
            continue;
        }
        if (t->type != JSMN_OBJECT && t->type != JSMN_ARRAY)
            continue;
        int prev_end = t->start + 1;
        int c = i + 1;
        for (int k = 0; k < t->size; k++) {
            if (c >= count)
                return false;
            if (t->type == JSMN_OBJECT && (toks[c].type != JSMN_STRING || toks[c].size != 1))
                return false; /* a member that is not "key": value */
            if (!aclrt_json_gap(js, prev_end, aclrt_json_token_start(&toks[c]), k == 0 ? 0 : ','))
                return false;
            prev_end = aclrt_json_member_end(toks, count, c);
            c = aclrt_json_skip(toks, count, c);
        }
        if (!aclrt_json_gap(js, prev_end, t->end - 1, 0))
            return false;
    }
    return true;
}

/* Apply the keys of a parsed document: top-level, defaultDevice.*, aclrt.*. */
static aclError aclrt_config_apply_json(struct aclrt_config *c, const char *js, size_t len, const jsmntok_t *toks,
                                        int count)
{
    for (int i = 0; i < count; i++)
        if ((toks[i].type == JSMN_OBJECT || toks[i].type == JSMN_ARRAY) &&
            aclrt_json_depth(toks, i) >= ACLRT_JSON_MAX_DEPTH)
            return aclrt_fail(ACL_ERROR_PARSE_FILE, "configuration nests deeper than %d levels", ACLRT_JSON_MAX_DEPTH);
    if (count == 0 || toks[0].type != JSMN_OBJECT)
        return aclrt_fail(ACL_ERROR_PARSE_FILE, "configuration is not a JSON object");
    if (!aclrt_json_well_formed(js, len, toks, count))
        return aclrt_fail(ACL_ERROR_PARSE_FILE, "configuration is not well-formed JSON (a missing ':' or ',', "
                                                "a trailing ',', or text after the document)");

    /* Walk key/value pairs of the root and of its objects "aclrt" and "defaultDevice". */
    for (int i = 1; i < count;) {
        const jsmntok_t *key = &toks[i];
        const jsmntok_t *val = &toks[i + 1];
        if (key->parent != 0 || i + 1 >= count) {
            i++;
            continue;
        }
        const char *section = NULL;
        if (aclrt_json_eq(js, key, "aclrt"))
            section = "aclrt";
        else if (aclrt_json_eq(js, key, "defaultDevice"))
            section = "defaultDevice";

        if (section != NULL && val->type != JSMN_OBJECT && strcmp(section, "aclrt") == 0)
            return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                              "\"aclrt\" must be an object, e.g. \"aclrt\": {\"devices\": 2}");
        if (section != NULL && val->type == JSMN_OBJECT) {
            for (int j = i + 2; j < count && toks[j].start < val->end;) {
                const jsmntok_t *k = &toks[j], *v = &toks[j + 1];
                if (k->parent != i + 1 || j + 1 >= count) {
                    j++;
                    continue;
                }
                char name[64];
                snprintf(name, sizeof name, "%s.%.*s", section, k->end - k->start, js + k->start);
                bool known = false;
                if (strcmp(name, "aclrt.backend") == 0) {
                    known = true;
                    c->file_keys |= ACLRT_CONFIG_KEY_BACKEND;
                    int n = v->end - v->start;
                    if (v->type != JSMN_STRING || n <= 0 || n >= (int)sizeof c->backend)
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                          "aclrt.backend must be a backend's name (\"host\", \"cuda\", ...)");
                    memcpy(c->backend, js + v->start, (size_t)n);
                    c->backend[n] = '\0';
                }
                if (strcmp(name, "aclrt.progress") == 0) {
                    known = true;
                    c->file_keys |= ACLRT_CONFIG_KEY_PROGRESS;
                    int mode = v->type == JSMN_STRING ? aclrt_config_progress_mode(js + v->start, (size_t)(v->end - v->start)) : -1;
                    if (mode < 0)
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                          "aclrt.progress must be \"threads\" or \"external\"");
                    c->external_progress = mode == 1;
                }
                if (strcmp(name, "aclrt.profile") == 0) {
                    known = true;
                    c->file_keys |= ACLRT_CONFIG_KEY_PROFILE;
                    int found = v->type == JSMN_STRING ? aclrt_profile_find(js + v->start, (size_t)(v->end - v->start)) : -1;
                    char names[256];
                    if (found < 0)
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID, "aclrt.profile must be one of %s",
                                          aclrt_profile_names(names, sizeof names));
                    c->profile = (uint32_t)found;
                }
                if (strcmp(name, "aclrt.sanitize") == 0) {
                    known = true;
                    c->file_keys |= ACLRT_CONFIG_KEY_SANITIZE;
                    int64_t mode = v->type == JSMN_STRING ? aclrt_config_sanitize_mode(js + v->start, (size_t)(v->end - v->start)) : -1;
                    if (mode < 0)
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                          "aclrt.sanitize must be \"none\", or \"streams\" followed by any of \",uninit\" and \",free\"");
                    c->sanitize = (uint32_t)mode;
                }
                if (strcmp(name, "aclrt.cpus") == 0) {
                    known = true;
                    c->file_keys |= ACLRT_CONFIG_KEY_CPUS;
                    int mode = v->type == JSMN_STRING ? aclrt_config_cpu_list(js + v->start, (size_t)(v->end - v->start), &c->cpus) : -1;
                    if (mode < 0)
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                          "aclrt.cpus must be \"\" or a list of CPUs and ranges (\"0-3,6\") of "
                                          "which at least one is a CPU of this machine");
                    c->cpus_set = mode == 1;
                }
                if (strcmp(name, "aclrt.schedule") == 0) {
                    known = true;
                    c->file_keys |= ACLRT_CONFIG_KEY_SCHEDULE;
                    int mode = v->type == JSMN_STRING ? aclrt_config_schedule_mode(js + v->start, (size_t)(v->end - v->start), &c->schedule_seed) : -1;
                    if (mode < 0)
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID,
                                          "aclrt.schedule must be \"threads\" or \"deterministic:SEED\" (SEED a "
                                          "decimal number)");
                    c->deterministic = mode == 1;
                }
                for (size_t s = 0; s < ACLRT_ARRAY_SIZE(aclrt_config_numbers); s++) {
                    if (strcmp(name, aclrt_config_numbers[s].name) != 0)
                        continue;
                    uint64_t x;
                    if ((v->type != JSMN_PRIMITIVE && v->type != JSMN_STRING) ||
                        !aclrt_config_parse_u64(js + v->start, (size_t)(v->end - v->start),
                                                aclrt_config_numbers[s].lo, aclrt_config_numbers[s].hi, &x))
                        return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID, "%s must be an integer in [%llu, %llu]", name,
                                          (unsigned long long)aclrt_config_numbers[s].lo,
                                          (unsigned long long)aclrt_config_numbers[s].hi);
                    aclrt_config_store(c, s, x);
                    c->file_keys |= ACLRT_CONFIG_KEY(s);
                    known = true;
                }
                if (!known && strcmp(section, "aclrt") == 0)
                    return aclrt_config_unknown_key(js + k->start, (size_t)(k->end - k->start));
                j = aclrt_json_skip(toks, count, j + 1);
            }
        } else if (aclrt_json_eq(js, key, "err_msg_mode")) {
            uint64_t x;
            if (!aclrt_config_parse_u64(js + val->start, (size_t)(val->end - val->start), 0, 1, &x))
                return aclrt_fail(ACL_ERROR_FILE_ATTR_INVALID, "err_msg_mode must be \"0\" or \"1\"");
            c->err_msg_mode = (int)x;
        }
        i = aclrt_json_skip(toks, count, i + 1);
    }
    return ACL_SUCCESS;
}

/* Read and apply the aclInit file (NULL: nothing to read). */
ACLRT_INTERNAL aclError aclrt_config_load_file(struct aclrt_config *c, const char *path)
{
    if (path == NULL || path[0] == '\0')
        return ACL_SUCCESS;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_FILE, "cannot open configuration file '%s': %s", path, strerror(errno));
    char *js = (char *)malloc(ACLRT_JSON_MAX_BYTES + 1);
    size_t n = js ? fread(js, 1, ACLRT_JSON_MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (js == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory reading '%s'", path);
    if (n > ACLRT_JSON_MAX_BYTES) {
        free(js);
        return aclrt_fail(ACL_ERROR_INVALID_FILE_SIZE, "configuration file '%s' is larger than 1 MiB", path);
    }
    /* An empty file counts as "{}". */
    size_t start = 0;
    while (start < n && (js[start] == ' ' || js[start] == '\n' || js[start] == '\r' || js[start] == '\t'))
        start++;
    aclError rc = ACL_SUCCESS;
    if (start < n) {
        jsmn_parser p;
        jsmn_init(&p);
        int count = jsmn_parse(&p, js, n, NULL, 0);
        jsmntok_t *toks = count > 0 ? (jsmntok_t *)calloc((size_t)count, sizeof *toks) : NULL;
        if (count > 0 && toks != NULL) {
            jsmn_init(&p);
            count = jsmn_parse(&p, js, n, toks, (unsigned)count);
        }
        if (count <= 0 || toks == NULL)
            rc = aclrt_fail(ACL_ERROR_PARSE_FILE, "configuration file '%s' is not valid JSON", path);
        else
            rc = aclrt_config_apply_json(c, js, n, toks, count);
        free(toks);
    }
    free(js);
    return rc;
}

/* Environment variables override the file; a bad value is ignored with a warning. */
ACLRT_INTERNAL void aclrt_config_load_env(struct aclrt_config *c)
{
    const char *b = getenv("ACLRT_BACKEND");
    if (b != NULL && b[0] != '\0' && strlen(b) < sizeof c->backend)
        strcpy(c->backend, b);
    const char *p = getenv("ACLRT_PROGRESS");
    if (p != NULL && p[0] != '\0') {
        int mode = aclrt_config_progress_mode(p, strlen(p));
        if (mode >= 0)
            c->external_progress = mode == 1;
        else
            fprintf(stderr, "aclrt: ignoring ACLRT_PROGRESS=%s (expected \"threads\" or \"external\")\n", p);
    }
    const char *f = getenv("ACLRT_PROFILE");
    if (f != NULL && f[0] != '\0') {
        int found = aclrt_profile_find(f, strlen(f));
        char names[256];
        if (found >= 0)
            c->profile = (uint32_t)found;
        else
            fprintf(stderr, "aclrt: ignoring ACLRT_PROFILE=%s (expected one of %s)\n", f,
                    aclrt_profile_names(names, sizeof names));
    }
    const char *z = getenv("ACLRT_SANITIZE");
    if (z != NULL) {
        int64_t mode = aclrt_config_sanitize_mode(z, strlen(z));
        if (mode >= 0)
            c->sanitize = (uint32_t)mode;
        else
            fprintf(stderr, "aclrt: ignoring ACLRT_SANITIZE=%s (expected \"none\", or \"streams\" followed by any of \",uninit\" and \",free\")\n", z);
    }
    const char *cpus = getenv("ACLRT_CPUS");
    if (cpus != NULL) {
        cpu_set_t set;
        int mode = aclrt_config_cpu_list(cpus, strlen(cpus), &set);
        if (mode >= 0)
            c->cpus_set = mode == 1, c->cpus = set;
        else
            fprintf(stderr, "aclrt: ignoring ACLRT_CPUS=%s (expected a list of CPUs and ranges, \"0-3,6\", of "
                            "which at least one is a CPU of this machine)\n", cpus);
    }
    const char *d = getenv("ACLRT_SCHEDULE");
    if (d != NULL && d[0] != '\0') {
        uint64_t seed = 0;
        int mode = aclrt_config_schedule_mode(d, strlen(d), &seed);
        if (mode >= 0)
            c->deterministic = mode == 1, c->schedule_seed = seed;
        else
            fprintf(stderr, "aclrt: ignoring ACLRT_SCHEDULE=%s (expected \"threads\" or \"deterministic:SEED\")\n", d);
    }
    for (size_t s = 0; s < ACLRT_ARRAY_SIZE(aclrt_config_numbers); s++) {
        const char *name = aclrt_config_numbers[s].env;
        const char *v = name ? getenv(name) : NULL;
        if (v == NULL || v[0] == '\0')
            continue;
        uint64_t x;
        if (aclrt_config_parse_u64(v, strlen(v), aclrt_config_numbers[s].lo, aclrt_config_numbers[s].hi, &x))
            aclrt_config_store(c, s, x);
        else
            fprintf(stderr, "aclrt: ignoring %s=%s (expected an integer in [%llu, %llu])\n", name, v,
                    (unsigned long long)aclrt_config_numbers[s].lo, (unsigned long long)aclrt_config_numbers[s].hi);
    }
}

/*
 * What a file read after the runtime started could not change: the "aclrt"
 * keys it set (file_keys) to other values than `running` has (the
 * environment, which wins over the file, counts in `file`). Lists them in
 * buf ("aclrt.devices 5 (the runtime has 2), ...") and returns how many.
 */
ACLRT_INTERNAL int aclrt_config_unapplied(const struct aclrt_config *running, const struct aclrt_config *file, char *buf,
                                          size_t size)
{
    int n = 0;
    size_t len = 0;
    buf[0] = '\0';
#define ACLRT_CONFIG_UNAPPLIED(...)                                                                                  \
    do {                                                                                                           \
        if (len < size)                                                                                            \
            len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__);                                           \
        n++;                                                                                                       \
    } while (0)
    if ((file->file_keys & ACLRT_CONFIG_KEY_BACKEND) && strcmp(running->backend, file->backend) != 0)
        ACLRT_CONFIG_UNAPPLIED("%saclrt.backend \"%s\" (the runtime has \"%s\")", n ? ", " : "", file->backend,
                               running->backend);
    if ((file->file_keys & ACLRT_CONFIG_KEY_PROGRESS) && running->external_progress != file->external_progress)
        ACLRT_CONFIG_UNAPPLIED("%saclrt.progress \"%s\" (the runtime has \"%s\")", n ? ", " : "",
                               file->external_progress ? "external" : "threads",
                               running->external_progress ? "external" : "threads");
    if ((file->file_keys & ACLRT_CONFIG_KEY_SANITIZE) && running->sanitize != file->sanitize)
        ACLRT_CONFIG_UNAPPLIED("%saclrt.sanitize (the runtime has %s)", n ? ", " : "",
                               running->sanitize ? "it on" : "it off");
    if ((file->file_keys & ACLRT_CONFIG_KEY_SCHEDULE) &&
        (running->deterministic != file->deterministic || running->schedule_seed != file->schedule_seed))
        ACLRT_CONFIG_UNAPPLIED("%saclrt.schedule (the runtime has \"%s\")", n ? ", " : "",
                               running->deterministic ? "deterministic" : "threads");
    if ((file->file_keys & ACLRT_CONFIG_KEY_CPUS) &&
        (running->cpus_set != file->cpus_set || (file->cpus_set && !CPU_EQUAL(&running->cpus, &file->cpus))))
        ACLRT_CONFIG_UNAPPLIED("%saclrt.cpus (the runtime has %s)", n ? ", " : "",
                               running->cpus_set ? "another set" : "none");
    if ((file->file_keys & ACLRT_CONFIG_KEY_PROFILE) && running->profile != file->profile)
        ACLRT_CONFIG_UNAPPLIED("%saclrt.profile \"%s\" (the runtime has \"%s\")", n ? ", " : "",
                               aclrt_profiles[file->profile].name, aclrt_profiles[running->profile].name);
    for (size_t s = 0; s < ACLRT_ARRAY_SIZE(aclrt_config_numbers); s++) {
        const char *name = aclrt_config_numbers[s].name;
        if (!(file->file_keys & ACLRT_CONFIG_KEY(s)) || strncmp(name, "aclrt.", 6) != 0 ||
            aclrt_config_value(running, s) == aclrt_config_value(file, s))
            continue;
        ACLRT_CONFIG_UNAPPLIED("%s%s %llu (the runtime has %llu)", n ? ", " : "", name,
                               (unsigned long long)aclrt_config_value(file, s),
                               (unsigned long long)aclrt_config_value(running, s));
    }
#undef ACLRT_CONFIG_UNAPPLIED
    return n;
}

#endif /* ACLRT_IMPL_CORE_CONFIG_H */
