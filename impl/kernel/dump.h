/*
 * impl/kernel/dump.h - the dump configuration (aclmdlInitDump,
 * aclmdlSetDump, aclmdlFinalizeDump, the "dump" object of aclInit's file)
 * and acl_dump.h (the dump paths, exception information, the argument dump
 * of aclopStartDumpArgs / aclopStopDumpArgs).
 *
 * A configuration is checked whole, then replaces the one in force under
 * aclrt_dump.lock. What a kernel run must know is in one atomic word,
 * aclrt_dump.on (a bit per kind of dump), read relaxed at each run: with no
 * dump on, a kernel pays that load and nothing else. A kernel that sees a
 * bit takes the lock to read the paths, so a run never sees half a
 * configuration.
 *
 * What is written, when a kernel task runs (kernel_launch.h), before its
 * blocks (its arguments as it reads them) or, for an exception, after its
 * failing run:
 *   - data dump: <dump_path>/<kernel name>.<n>.args
 *   - aclopStartDumpArgs: <path>/<kernel name>.<n>.args
 *   - exception dump: <exception info path><kernel name>.<n>.exception
 * n counts the files of that kind from 0 since the dump was last switched
 * on. A file holds the argument buffer's bytes, nothing else.
 */
#ifndef ACLRT_IMPL_KERNEL_DUMP_H
#define ACLRT_IMPL_KERNEL_DUMP_H

#include "../core/base.h" /* first: it sets up the system headers' feature macros */
#include "../../acl/acl_dump.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "../memory/memory.h"
#include "binary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACLRT_DUMP_DATA 1u      /* a data dump (dump_list, dump_op_switch, watcher) */
#define ACLRT_DUMP_ARGS 2u      /* aclopStartDumpArgs */
#define ACLRT_DUMP_EXCEPTION 4u /* dump_scene aic_err_* / lite_exception */
#define ACLRT_DUMP_MAX_NAMES 64 /* kernel names a dump_list may name */
#define ACLRT_DUMP_PATH_MAX ACL_DUMP_MAX_FILE_PATH_LENGTH

/* One dump configuration, as read from a file. */
struct aclrt_dump_config {
    uint32_t kinds;                    /* ACLRT_DUMP_DATA, ACLRT_DUMP_EXCEPTION */
    bool overflow;                     /* dump_debug "on" */
    char path[ACLRT_DUMP_PATH_MAX];    /* dump_path ("" none) */
    char exception[ACLRT_DUMP_PATH_MAX]; /* the exception dump's base directory */
    uint32_t names;                    /* 0: every kernel; else the kernels named */
    char *name[ACLRT_DUMP_MAX_NAMES];  /* owned */
};

static struct {
    pthread_mutex_t lock;
    atomic_uint on;  /* ACLRT_DUMP_* bits; read relaxed at each kernel run */
    bool inited;     /* aclmdlInitDump */
    bool from_init;  /* aclInit's file configured a dump */
    struct aclrt_dump_config cfg;
    char args_path[ACLRT_DUMP_PATH_MAX];
    atomic_ulong seq[3]; /* files written: data, args, exception */
    /*
     * acldumpRegCallback's callback, which data dumps go to instead of
     * files. Called under `cb_lock` held for reading, so that
     * acldumpUnregCallback, which takes it for writing, returns only when no
     * call is running (but one on its own thread: aclrt_dump_in_cb).
     */
    pthread_rwlock_t cb_lock;
    int32_t (*cb)(const acldumpChunk *, int32_t);
} aclrt_dump = {.lock = PTHREAD_MUTEX_INITIALIZER, .cb_lock = PTHREAD_RWLOCK_INITIALIZER};

/* Bytes of a dump file given to the callback in one chunk. */
#define ACLRT_DUMP_CHUNK_BYTES ((size_t)1 << 20)

static _Thread_local bool aclrt_dump_in_cb ACLRT_TLS_MODEL; /* this thread runs the dump callback */

static void aclrt_dump_config_free(struct aclrt_dump_config *c)
{
    for (uint32_t i = 0; i < c->names; i++)
        free(c->name[i]);
    memset(c, 0, sizeof *c);
}

/* Make `dir` and its missing parents; 0 or an errno. */
static int aclrt_dump_mkdirs(const char *path)
{
    char dir[ACLRT_DUMP_PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof dir)
        return ENAMETOOLONG;
    memcpy(dir, path, n + 1);
    for (char *p = dir + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int bad = mkdir(dir, 0750) != 0 && errno != EEXIST ? errno : 0;
        *p = '/';
        if (bad)
            return bad;
    }
    return mkdir(dir, 0750) != 0 && errno != EEXIST ? errno : 0;
}

/* Write `n` bytes (and an optional text head) to `file`, making its directory; 0 or an errno. */
static int aclrt_dump_write(const char *file, const char *head, size_t head_len, const void *data, size_t n)
{
    char dir[ACLRT_DUMP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        int e = aclrt_dump_mkdirs(dir);
        if (e != 0)
            return e;
    }
    FILE *f = fopen(file, "wb");
    if (f == NULL)
        return errno;
    bool ok = (head_len == 0 || fwrite(head, 1, head_len, f) == head_len) && (n == 0 || fwrite(data, 1, n, f) == n);
    ok = fclose(f) == 0 && ok;
    return ok ? 0 : EIO;
}

/* The exception dump's base directory: NPU_COLLECT_PATH, ASCEND_WORK_PATH, dump_path, the working directory. */
static void aclrt_dump_exception_base(const char *dump_path, char *out, size_t cap)
{
    const char *e = getenv("NPU_COLLECT_PATH");
    if (e == NULL || e[0] == '\0')
        e = getenv("ASCEND_WORK_PATH");
    if (e == NULL || e[0] == '\0')
        e = dump_path[0] != '\0' ? dump_path : NULL;
    if (e != NULL)
        snprintf(out, cap, "%s", e);
    else if (getcwd(out, cap) == NULL)
        snprintf(out, cap, ".");
}

/* ------------------------------------------------------------------------
 * Reading a configuration
 * ------------------------------------------------------------------------ */

static bool aclrt_dump_str(const char *js, const jsmntok_t *t, const char *const *allowed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (aclrt_json_eq(js, t, allowed[i]))
            return true;
    return false;
}

static aclError aclrt_dump_bad(const char *what)
{
    return aclrt_fail(ACL_ERROR_INVALID_DUMP_CONFIG, "dump configuration: %s", what);
}

/*
 * A key the dump configuration does not know is ignored, as aclInit ignores
 * the keys of other components (a file written for a newer CANN still
 * loads); a line on stderr names it, so that a typo does not go unseen.
 */
static void aclrt_dump_ignored(const char *js, const jsmntok_t *key, const char *where, const char *known)
{
    int n = key->end - key->start > 64 ? 64 : key->end - key->start;
    fprintf(stderr, "aclrt: dump configuration: ignoring the unknown key \"%.*s\" in %s (the keys: %s)\n", n,
            js + key->start, where, known);
}

/* dump_list's kernel names ("layer", or "watcher_nodes" for the watcher) into c->name. */
static aclError aclrt_dump_list(const char *js, const jsmntok_t *toks, int count, int list, bool watcher,
                                struct aclrt_dump_config *c)
{
    if (toks[list].type != JSMN_ARRAY)
        return aclrt_dump_bad("\"dump_list\" must be an array of objects");
    for (int e = list + 1; e < count && toks[e].start < toks[list].end; e = aclrt_json_skip(toks, count, e)) {
        if (toks[e].type != JSMN_OBJECT)
            return aclrt_dump_bad("each entry of \"dump_list\" must be an object");
        for (int k = e + 1; k + 1 < count && toks[k].start < toks[e].end; k = aclrt_json_skip(toks, count, k + 1)) {
            const jsmntok_t *v = &toks[k + 1];
            bool names = aclrt_json_eq(js, &toks[k], watcher ? "watcher_nodes" : "layer");
            if (aclrt_json_eq(js, &toks[k], "model_name") || aclrt_json_eq(js, &toks[k], "model_id")) {
                if (v->type != JSMN_STRING && v->type != JSMN_PRIMITIVE)
                    return aclrt_dump_bad("\"model_name\" must be a string");
                continue;
            }
            if (!names && !aclrt_json_eq(js, &toks[k], "layer") && !aclrt_json_eq(js, &toks[k], "watcher_nodes") &&
                !aclrt_json_eq(js, &toks[k], "optype_blacklist") && !aclrt_json_eq(js, &toks[k], "opname_blacklist"))
            {
                aclrt_dump_ignored(js, &toks[k], "a \"dump_list\" entry",
                                   "model_name, layer, watcher_nodes, optype_blacklist, opname_blacklist");
                continue;
            }
            if (v->type != JSMN_ARRAY)
                return aclrt_dump_bad("\"layer\" and \"watcher_nodes\" must be arrays of names");
            for (int s = k + 2; s < count && toks[s].start < v->end; s = aclrt_json_skip(toks, count, s)) {
                if (toks[s].type != JSMN_STRING || toks[s].end == toks[s].start)
                    return aclrt_dump_bad("a name in \"layer\" or \"watcher_nodes\" is not a non-empty string");
                if (!names)
                    continue;
                if (c->names == ACLRT_DUMP_MAX_NAMES)
                    return aclrt_fail(ACL_ERROR_INVALID_DUMP_CONFIG,
                                      "dump configuration: more than %d kernel names", ACLRT_DUMP_MAX_NAMES);
                size_t n = (size_t)(toks[s].end - toks[s].start);
                char *name = (char *)malloc(n + 1);
                if (name == NULL)
                    return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory reading the dump configuration");
                memcpy(name, js + toks[s].start, n);
                name[n] = '\0';
                c->name[c->names++] = name;
            }
        }
    }
    return ACL_SUCCESS;
}

/* The "dump" object at token `obj`, checked whole, into c. */
static aclError aclrt_dump_parse(const char *js, const jsmntok_t *toks, int count, int obj,
                                 struct aclrt_dump_config *c)
{
    static const char *const on_off[] = {"on", "off"};
    static const char *const modes[] = {"input", "output", "all"};
    static const char *const scenes[] = {"aic_err_brief_dump", "aic_err_norm_dump", "aic_err_detail_dump",
                                         "lite_exception", "watcher"};
    static const char *const strings[] = {"dump_data", "dump_kernel_data", "dump_step", "dump_level", "dump_stats",
                                          "dump_model"};
    if (toks[obj].type != JSMN_OBJECT)
        return aclrt_dump_bad("\"dump\" must be an object");
    int list = -1;
    bool op_switch = false, watcher = false, exception = false;
    for (int k = obj + 1; k + 1 < count && toks[k].start < toks[obj].end; k = aclrt_json_skip(toks, count, k + 1)) {
        const jsmntok_t *key = &toks[k], *v = &toks[k + 1];
        int vn = v->end - v->start;
        if (aclrt_json_eq(js, key, "dump_path")) {
            if (v->type != JSMN_STRING || vn == 0 || vn >= ACLRT_DUMP_PATH_MAX - 64)
                return aclrt_dump_bad("\"dump_path\" must be a non-empty directory name");
            memcpy(c->path, js + v->start, (size_t)vn);
            c->path[vn] = '\0';
        } else if (aclrt_json_eq(js, key, "dump_mode")) {
            if (v->type != JSMN_STRING || !aclrt_dump_str(js, v, modes, 3))
                return aclrt_dump_bad("\"dump_mode\" must be \"input\", \"output\" or \"all\"");
        } else if (aclrt_json_eq(js, key, "dump_op_switch") || aclrt_json_eq(js, key, "dump_debug")) {
            if (v->type != JSMN_STRING || !aclrt_dump_str(js, v, on_off, 2))
                return aclrt_dump_bad("\"dump_op_switch\" and \"dump_debug\" must be \"on\" or \"off\"");
            bool on = aclrt_json_eq(js, v, "on");
            if (aclrt_json_eq(js, key, "dump_debug"))
                c->overflow = on;
            else
                op_switch = on;
        } else if (aclrt_json_eq(js, key, "dump_scene")) {
            if (v->type != JSMN_STRING || !aclrt_dump_str(js, v, scenes, 5))
                return aclrt_dump_bad("\"dump_scene\" must be \"aic_err_brief_dump\", \"aic_err_norm_dump\", "
                                      "\"aic_err_detail_dump\", \"lite_exception\" or \"watcher\"");
            watcher = aclrt_json_eq(js, v, "watcher");
            exception = !watcher;
        } else if (aclrt_json_eq(js, key, "dump_list")) {
            list = k + 1;
        } else if (aclrt_dump_str(js, key, strings, ACLRT_ARRAY_SIZE(strings))) {
            if (v->type != JSMN_STRING && v->type != JSMN_PRIMITIVE)
                return aclrt_fail(ACL_ERROR_INVALID_DUMP_CONFIG, "dump configuration: \"%.*s\" must be a string",
                                  key->end - key->start, js + key->start);
        } else {
            aclrt_dump_ignored(js, key, "\"dump\"",
                               "dump_path, dump_mode, dump_list, dump_op_switch, dump_scene, dump_debug, dump_data, "
                               "dump_kernel_data, dump_step, dump_level, dump_stats, dump_model");
        }
    }
    aclError rc = list >= 0 ? aclrt_dump_list(js, toks, count, list, watcher, c) : ACL_SUCCESS;
    if (rc != ACL_SUCCESS)
        return rc;
    bool listed = list >= 0 && toks[list].size > 0;
    bool data = listed || op_switch;
    if (watcher && (c->overflow || op_switch))
        return aclrt_dump_bad("the watcher scene cannot go with \"dump_debug\" or \"dump_op_switch\" on");
    if (exception && (data || c->overflow))
        return aclrt_dump_bad("an exception dump (dump_scene) cannot go with a data dump (dump_list, "
                              "dump_op_switch) or an overflow dump (dump_debug)");
    if (c->overflow && data)
        return aclrt_dump_bad("an overflow dump (dump_debug) cannot go with a data dump (dump_list, dump_op_switch)");
    if ((data || watcher || c->overflow) && c->path[0] == '\0')
        return aclrt_dump_bad("a data, watcher or overflow dump needs \"dump_path\"");
    if (watcher && !listed)
        return aclrt_dump_bad("the watcher scene needs a \"dump_list\" naming \"watcher_nodes\"");
    if (data || watcher)
        c->kinds |= ACLRT_DUMP_DATA;
    if (op_switch && !watcher) /* every kernel, whatever dump_list names */
        for (; c->names > 0; c->names--)
            free(c->name[c->names - 1]);
    if (exception) {
        c->kinds |= ACLRT_DUMP_EXCEPTION;
        aclrt_dump_exception_base(c->path, c->exception, sizeof c->exception);
    }
    return ACL_SUCCESS;
}

/*
 * Read a configuration file's "dump" object into c. `optional`: a file
 * without one (aclInit's) leaves c empty; otherwise that is an error.
 */
static aclError aclrt_dump_read_file(const char *path, bool optional, struct aclrt_dump_config *c)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_FILE, "cannot open dump configuration file '%s': %s", path,
                          strerror(errno));
    char *js = (char *)malloc(ACLRT_JSON_MAX_BYTES + 1);
    size_t n = js != NULL ? fread(js, 1, ACLRT_JSON_MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (js == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory reading '%s'", path);
    if (n > ACLRT_JSON_MAX_BYTES) {
        free(js);
        return aclrt_fail(ACL_ERROR_INVALID_FILE_SIZE, "dump configuration file '%s' is larger than 1 MiB", path);
    }
    size_t lead = 0;
    while (lead < n && (js[lead] == ' ' || js[lead] == '\n' || js[lead] == '\r' || js[lead] == '\t'))
        lead++;
    aclError rc = ACL_SUCCESS;
    jsmntok_t *toks = NULL;
    int count = 0;
    if (lead < n) {
        jsmn_parser p;
        jsmn_init(&p);
        count = jsmn_parse(&p, js, n, NULL, 0);
        toks = count > 0 ? (jsmntok_t *)calloc((size_t)count, sizeof *toks) : NULL;
        if (toks != NULL) {
            jsmn_init(&p);
            count = jsmn_parse(&p, js, n, toks, (unsigned)count);
        }
        if (count <= 0 || toks == NULL || toks[0].type != JSMN_OBJECT || !aclrt_json_well_formed(js, n, toks, count))
            rc = aclrt_fail(ACL_ERROR_PARSE_FILE, "dump configuration file '%s' is not a JSON object", path);
    }
    int dump = -1;
    for (int k = 1; rc == ACL_SUCCESS && toks != NULL && k + 1 < count; k = aclrt_json_skip(toks, count, k + 1))
        if (toks[k].parent == 0 && aclrt_json_eq(js, &toks[k], "dump"))
            dump = k + 1;
    if (rc == ACL_SUCCESS && dump < 0 && !optional)
        rc = aclrt_fail(ACL_ERROR_INVALID_DUMP_CONFIG, "dump configuration file '%s' has no \"dump\" object", path);
    if (rc == ACL_SUCCESS && dump >= 0)
        rc = aclrt_dump_parse(js, toks, count, dump, c);
    if (rc != ACL_SUCCESS)
        aclrt_dump_config_free(c);
    free(toks);
    free(js);
    return rc;
}

/* Put c in force (taking over its names): under aclrt_dump.lock. */
static void aclrt_dump_install_locked(struct aclrt_dump_config *c)
{
    aclrt_dump_config_free(&aclrt_dump.cfg);
    aclrt_dump.cfg = *c;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 3; i++)
        if (i != 1)
            atomic_store_explicit(&aclrt_dump.seq[i], 0, memory_order_relaxed);
    unsigned args = atomic_load_explicit(&aclrt_dump.on, memory_order_relaxed) & ACLRT_DUMP_ARGS;
    atomic_store_explicit(&aclrt_dump.on, args | aclrt_dump.cfg.kinds, memory_order_relaxed);
}

/*
 * aclInit: the "dump" object of its file, if any, in force (a dump that
 * aclmdlInitDump then refuses). NULL or "": nothing.
 */
ACLRT_INTERNAL aclError aclrt_dump_from_init_file(const char *path)
{
    if (path == NULL || path[0] == '\0')
        return ACL_SUCCESS;
    struct aclrt_dump_config c;
    aclError rc = aclrt_dump_read_file(path, true, &c);
    if (rc != ACL_SUCCESS || (c.kinds == 0 && !c.overflow && c.path[0] == '\0'))
        return rc;
    pthread_mutex_lock(&aclrt_dump.lock);
    aclrt_dump_install_locked(&c);
    aclrt_dump.from_init = true;
    pthread_mutex_unlock(&aclrt_dump.lock);
    return ACL_SUCCESS;
}

/* aclFinalize: every dump off, the configuration gone. */
ACLRT_INTERNAL void aclrt_dump_reset(void)
{
    pthread_mutex_lock(&aclrt_dump.lock);
    aclrt_dump_config_free(&aclrt_dump.cfg);
    atomic_store_explicit(&aclrt_dump.on, 0, memory_order_relaxed);
    aclrt_dump.inited = false;
    aclrt_dump.from_init = false;
    aclrt_dump.args_path[0] = '\0';
    pthread_mutex_unlock(&aclrt_dump.lock);
    acldumpUnregCallback();
}

/* ------------------------------------------------------------------------
 * What a kernel run writes
 * ------------------------------------------------------------------------ */

static bool aclrt_dump_named_locked(const char *kernel)
{
    if (aclrt_dump.cfg.names == 0)
        return true;
    for (uint32_t i = 0; i < aclrt_dump.cfg.names; i++)
        if (strcmp(aclrt_dump.cfg.name[i], kernel) == 0)
            return true;
    return false;
}

/*
 * The data of one dump file to the registered callback, in chunks of at most
 * ACLRT_DUMP_CHUNK_BYTES at rising offsets; an empty file is one empty last
 * chunk. A callback that returns nonzero gets no more of that file.
 */
static void aclrt_dump_to_callback(const char *file, const void *data, size_t n)
{
    if (aclrt_dump_in_cb)
        return; /* a kernel the callback itself runs synchronously: no dump of the dump */
    size_t cap = n < ACLRT_DUMP_CHUNK_BYTES ? n : ACLRT_DUMP_CHUNK_BYTES;
    acldumpChunk *c = (acldumpChunk *)malloc(sizeof *c + cap);
    if (c == NULL) {
        fprintf(stderr, "aclrt: dump: out of memory for a chunk of '%s'\n", file);
        return;
    }
    memset(c, 0, sizeof *c);
    memcpy(c->fileName, file, strnlen(file, sizeof c->fileName - 1)); /* zeroed above: terminated, cut to fit */
    pthread_rwlock_rdlock(&aclrt_dump.cb_lock);
    int32_t (*cb)(const acldumpChunk *, int32_t) = aclrt_dump.cb;
    aclrt_dump_in_cb = true;
    for (size_t off = 0; cb != NULL;) {
        size_t len = n - off < cap ? n - off : cap;
        c->bufLen = (uint32_t)len;
        c->isLastChunk = off + len == n;
        c->offset = (int64_t)off;
        if (len > 0)
            memcpy(c->dataBuf, (const char *)data + off, len);
        int32_t r = cb(c, (int32_t)(sizeof *c + len));
        cb = aclrt_dump.cb; /* written under cb_lock for writing, or by this thread (an unregistration inside) */
        if (r != 0) {
            fprintf(stderr, "aclrt: dump: the callback returned %d for '%s' at offset %zu: the rest not given\n",
                    (int)r, file, off);
            break;
        }
        off += len;
        if (off == n)
            break;
    }
    aclrt_dump_in_cb = false;
    pthread_rwlock_unlock(&aclrt_dump.cb_lock);
    free(c);
}

/*
 * A kernel task about to run (failed false) or having failed (true), with
 * the argument buffer it reads: the files the dumps in force ask for.
 * `on` is what the caller read of aclrt_dump.on. A file that cannot be
 * written is reported in the log; the kernel runs all the same.
 */
ACLRT_INTERNAL void aclrt_dump_kernel(unsigned on, void *handle, uint32_t device, const void *args, size_t size,
                                      bool failed)
{
    char kernel[256] = "kernel";
    struct aclrt_function *f;
    if (aclrt_function_lock_live(handle, ACL_ERROR_RT_PARAM_INVALID, &f) == ACL_SUCCESS) {
        snprintf(kernel, sizeof kernel, "%s", f->name);
        pthread_mutex_unlock(&aclrt_kernels_lock);
    }
    for (char *p = kernel; *p != '\0'; p++)
        if (*p == '/')
            *p = '_';
    char file[ACLRT_DUMP_PATH_MAX + 320], to_cb[ACLRT_DUMP_PATH_MAX + 320] = "";
    pthread_mutex_lock(&aclrt_dump.lock);
    on &= atomic_load_explicit(&aclrt_dump.on, memory_order_relaxed);
    for (unsigned kind = 0; kind < 3; kind++) {
        unsigned bit = 1u << kind;
        if ((on & bit) == 0 || failed != (bit == ACLRT_DUMP_EXCEPTION))
            continue;
        if (bit == ACLRT_DUMP_DATA && !aclrt_dump_named_locked(kernel))
            continue;
        unsigned long n = atomic_fetch_add_explicit(&aclrt_dump.seq[kind], 1, memory_order_relaxed);
        if (bit == ACLRT_DUMP_DATA)
            snprintf(file, sizeof file, "%s/%s.%lu.args", aclrt_dump.cfg.path, kernel, n);
        else if (bit == ACLRT_DUMP_ARGS)
            snprintf(file, sizeof file, "%s/%s.%lu.args", aclrt_dump.args_path, kernel, n);
        else
            snprintf(file, sizeof file, "%s/extra-info/data-dump/%u/%s.%lu.exception", aclrt_dump.cfg.exception,
                     device, kernel, n);
        if (bit == ACLRT_DUMP_DATA && aclrt_dump.cb != NULL) {
            memcpy(to_cb, file, sizeof file);
            continue;
        }
        int e = aclrt_dump_write(file, NULL, 0, args, args != NULL ? size : 0);
        if (e != 0)
            fprintf(stderr, "aclrt: dump: cannot write '%s': %s\n", file, strerror(e));
    }
    pthread_mutex_unlock(&aclrt_dump.lock);
    if (to_cb[0] != '\0')
        aclrt_dump_to_callback(to_cb, args, args != NULL ? size : 0);
}

/* Which dumps a kernel run must look at now (0: none, the common case). */
ACLRT_INLINE unsigned aclrt_dump_on(void)
{
    return atomic_load_explicit(&aclrt_dump.on, memory_order_relaxed);
}

/* ------------------------------------------------------------------------
 * API: the dump configuration (acl_rt.h)
 * ------------------------------------------------------------------------ */

static aclError aclrt_dump_need_init(const char *api)
{
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    bool up = aclrt_rt.init_count > 0;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return up ? ACL_SUCCESS : aclrt_fail(ACL_ERROR_UNINITIALIZE, "aclInit must be called before %s", api);
}

ACLRT_API aclError aclmdlInitDump(void)
{
    ACLRT_ENTER();
    aclError rc = aclrt_dump_need_init("aclmdlInitDump");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_dump.lock);
    if (aclrt_dump.inited)
        rc = aclrt_fail(ACL_ERROR_REPEAT_INITIALIZE, "aclmdlInitDump was already called (aclmdlFinalizeDump ends it)");
    else if (aclrt_dump.from_init)
        rc = aclrt_fail(ACL_ERROR_DUMP_ALREADY_RUN,
                        "aclInit's configuration file configured a dump: aclmdlInitDump cannot start another");
    else
        aclrt_dump.inited = true;
    pthread_mutex_unlock(&aclrt_dump.lock);
    return rc;
}

ACLRT_API aclError aclmdlSetDump(const char *dumpCfgPath)
{
    ACLRT_ENTER();
    aclError rc = aclrt_dump_need_init("aclmdlSetDump");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_dump.lock);
    bool inited = aclrt_dump.inited;
    pthread_mutex_unlock(&aclrt_dump.lock);
    if (!inited)
        return aclrt_fail(ACL_ERROR_DUMP_NOT_RUN, "aclmdlInitDump must be called before aclmdlSetDump");
    if (dumpCfgPath == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dumpCfgPath is NULL");
    struct aclrt_dump_config c;
    if ((rc = aclrt_dump_read_file(dumpCfgPath, false, &c)) != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_dump.lock);
    if (!aclrt_dump.inited) { /* finalized meanwhile */
        pthread_mutex_unlock(&aclrt_dump.lock);
        aclrt_dump_config_free(&c);
        return aclrt_fail(ACL_ERROR_DUMP_NOT_RUN, "aclmdlFinalizeDump ended the dump during aclmdlSetDump");
    }
    aclrt_dump_install_locked(&c);
    pthread_mutex_unlock(&aclrt_dump.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlFinalizeDump(void)
{
    ACLRT_ENTER();
    aclError rc = aclrt_dump_need_init("aclmdlFinalizeDump");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_dump.lock);
    if (!aclrt_dump.inited) {
        rc = aclrt_fail(ACL_ERROR_DUMP_NOT_RUN, "aclmdlInitDump must be called before aclmdlFinalizeDump");
    } else {
        aclrt_dump.inited = false;
        aclrt_dump_config_free(&aclrt_dump.cfg);
        atomic_store_explicit(&aclrt_dump.on,
                              atomic_load_explicit(&aclrt_dump.on, memory_order_relaxed) & ACLRT_DUMP_ARGS,
                              memory_order_relaxed);
    }
    pthread_mutex_unlock(&aclrt_dump.lock);
    return rc;
}

/* ------------------------------------------------------------------------
 * API: acl_dump.h
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclopStartDumpArgs(uint32_t dumpType, const char *path)
{
    ACLRT_ENTER();
    if (path == NULL)
        return aclrt_fail(ACL_ERROR_FAILURE, "path is NULL");
    if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) == 0)
        return aclrt_fail(ACL_ERROR_FAILURE, "dumpType %u does not hold ACL_OP_DUMP_OP_AICORE_ARGS (1)", dumpType);
    size_t n = strlen(path);
    if (n == 0 || n >= ACLRT_DUMP_PATH_MAX - 320)
        return aclrt_fail(ACL_ERROR_FAILURE, "path is empty or longer than %d bytes", ACLRT_DUMP_PATH_MAX - 320);
    int e = aclrt_dump_mkdirs(path);
    if (e != 0)
        return aclrt_fail(ACL_ERROR_FAILURE, "cannot make the directory '%s': %s", path, strerror(e));
    pthread_mutex_lock(&aclrt_dump.lock);
    memcpy(aclrt_dump.args_path, path, n + 1);
    atomic_store_explicit(&aclrt_dump.seq[1], 0, memory_order_relaxed);
    atomic_fetch_or_explicit(&aclrt_dump.on, ACLRT_DUMP_ARGS, memory_order_relaxed);
    pthread_mutex_unlock(&aclrt_dump.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclopStopDumpArgs(uint32_t dumpType)
{
    ACLRT_ENTER();
    if ((dumpType & ACL_OP_DUMP_OP_AICORE_ARGS) == 0)
        return ACL_SUCCESS; /* nothing of that type to stop, as the runtime answers [src] */
    pthread_mutex_lock(&aclrt_dump.lock);
    atomic_fetch_and_explicit(&aclrt_dump.on, ~ACLRT_DUMP_ARGS, memory_order_relaxed);
    pthread_mutex_unlock(&aclrt_dump.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag)
{
    ACLRT_ENTER();
    if (messageCallback == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "messageCallback is NULL");
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "flag %d: only 0 is supported (the dump data goes to the callback, not to files)", (int)flag);
    if (aclrt_dump_in_cb)
        return aclrt_fail(ACL_ERROR_FAILURE, "acldumpRegCallback called from the dump callback");
    pthread_rwlock_wrlock(&aclrt_dump.cb_lock);
    pthread_mutex_lock(&aclrt_dump.lock);
    aclrt_dump.cb = messageCallback;
    pthread_mutex_unlock(&aclrt_dump.lock);
    pthread_rwlock_unlock(&aclrt_dump.cb_lock);
    return ACL_SUCCESS;
}

ACLRT_API void acldumpUnregCallback(void)
{
    ACLRT_ENTER();
    /* From the callback itself: this thread holds cb_lock for reading; the pointer alone goes. */
    bool inside = aclrt_dump_in_cb;
    if (!inside)
        pthread_rwlock_wrlock(&aclrt_dump.cb_lock);
    pthread_mutex_lock(&aclrt_dump.lock);
    aclrt_dump.cb = NULL;
    pthread_mutex_unlock(&aclrt_dump.lock);
    if (!inside)
        pthread_rwlock_unlock(&aclrt_dump.cb_lock);
}

ACLRT_API const char *acldumpGetPath(acldumpType dumpType)
{
    ACLRT_ENTER();
    /* The configuration's own storage: it stays until the configuration changes or ends. */
    const char *path = NULL;
    pthread_mutex_lock(&aclrt_dump.lock);
    switch ((int)dumpType) {
    case AIC_ERR_BRIEF_DUMP:
    case AIC_ERR_NORM_DUMP:
    case AIC_ERR_DETAIL_DUMP:
        if (aclrt_dump.cfg.kinds & ACLRT_DUMP_EXCEPTION)
            path = aclrt_dump.cfg.exception;
        break;
    case DATA_DUMP:
    case OVERFLOW_DUMP:
        if (aclrt_dump.cfg.path[0] != '\0')
            path = aclrt_dump.cfg.path;
        break;
    default:
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "dumpType %d is not an acldumpType", (int)dumpType);
        break;
    }
    pthread_mutex_unlock(&aclrt_dump.lock);
    return path;
}

/* The exception info path of the current context's device, or an error. */
static aclError aclrt_dump_exception_path(char *out, size_t cap)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_dump.lock);
    bool on = (aclrt_dump.cfg.kinds & ACLRT_DUMP_EXCEPTION) != 0;
    if (on)
        snprintf(out, cap, "%s/extra-info/data-dump/%u/", aclrt_dump.cfg.exception, ctx->device->id);
    pthread_mutex_unlock(&aclrt_dump.lock);
    if (!on)
        return aclrt_fail(ACL_ERROR_FAILURE, "no exception dump is on (dump_scene in aclInit's or aclmdlSetDump's "
                                             "configuration)");
    return ACL_SUCCESS;
}

ACLRT_API aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen)
{
    ACLRT_ENTER();
    if (path == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "path (output) is NULL");
    if (maxLen <= 1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxLen %zu is not greater than 1", maxLen);
    char full[ACLRT_DUMP_PATH_MAX + 64];
    aclError rc = aclrt_dump_exception_path(full, sizeof full);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t n = strlen(full);
    if (n + 1 > maxLen)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxLen %zu is less than the path's %zu bytes and its NUL", maxLen,
                          n);
    memcpy(path, full, n + 1);
    return ACL_SUCCESS;
}

/* A tensor of acldumpSaveExceptionInfo, checked. */
static aclError aclrt_dump_check_tensor(const acldumpTensorInfo *t, size_t i)
{
    if (t->addrType != ACL_DUMP_ADDR_RAW)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensors[%zu].addrType %d is not ACL_DUMP_ADDR_RAW", i,
                          (int)t->addrType);
    if (t->placement != ACL_DUMP_PLACEMENT_DEVICE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensors[%zu].placement %d is not ACL_DUMP_PLACEMENT_DEVICE", i,
                          (int)t->placement);
    if ((unsigned)t->type > ACL_DUMP_TENSOR_WORKSPACE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensors[%zu].type %d is not an acldumpTensorType", i,
                          (int)t->type);
    if (t->shapeNum > ACL_DUMP_MAX_SHAPE_NUM || t->originShapeNum > ACL_DUMP_MAX_SHAPE_NUM)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensors[%zu]: shapeNum %u or originShapeNum %u is above %d", i,
                          t->shapeNum, t->originShapeNum, ACL_DUMP_MAX_SHAPE_NUM);
    if (t->tensorSize > 0 && (t->tensorAddr == NULL || aclrt_mem_device_of(t->tensorAddr, t->tensorSize) == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensors[%zu]: tensorAddr %p is not %zu bytes of device memory", i,
                          (void *)t->tensorAddr, t->tensorSize);
    return ACL_SUCCESS;
}

/* fileName: relative, no ".." segment. */
static bool aclrt_dump_name_ok(const char *name)
{
    if (name[0] == '/')
        return false;
    for (const char *p = name; *p != '\0';) {
        const char *end = strchr(p, '/');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += n + (end != NULL);
    }
    return true;
}

ACLRT_API aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                                            const acldumpTensorInfo *tensors, size_t tensorCount)
{
    ACLRT_ENTER();
    if (fileName == NULL || tensors == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", fileName == NULL ? "fileName" : "tensors");
    if (fileName[0] == '\0' || !aclrt_dump_name_ok(fileName) || strlen(fileName) > 1024)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "fileName '%.64s' is not a relative name of at most 1024 bytes without a \"..\" segment",
                          fileName);
    if (tensorCount == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tensorCount is 0");
    char dir[ACLRT_DUMP_PATH_MAX + 64];
    aclError rc = aclrt_dump_exception_path(dir, sizeof dir);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t total = 0;
    for (size_t i = 0; i < tensorCount; i++) {
        if ((rc = aclrt_dump_check_tensor(&tensors[i], i)) != ACL_SUCCESS)
            return rc;
        if (tensors[i].tensorSize > ACLRT_JSON_MAX_BYTES * 1024ull - total)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the tensors hold more than 1 GiB");
        total += tensors[i].tensorSize;
    }
    /* The head: one text line per tensor, then the tensors' bytes, in order. */
    size_t cap = 256 + (userTag != NULL ? strlen(userTag) : 0) + tensorCount * (160 + 2 * 21 * ACL_DUMP_MAX_SHAPE_NUM);
    char *head = (char *)malloc(cap);
    unsigned char *data = (unsigned char *)malloc(total > 0 ? total : 1);
    if (head == NULL || data == NULL) {
        free(head);
        free(data);
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for %zu bytes of tensors", total);
    }
    size_t len = (size_t)snprintf(head, cap, "aclrt exception info\nuserTag %s\ntensors %zu\n",
                                  userTag != NULL ? userTag : "", tensorCount);
    size_t at = 0;
    for (size_t i = 0; i < tensorCount && rc == ACL_SUCCESS; i++) {
        const acldumpTensorInfo *t = &tensors[i];
        len += (size_t)snprintf(head + len, cap - len,
                                "tensor %zu type %d size %zu format %d dataType %d argsOffset %u shape", i,
                                (int)t->type, t->tensorSize, (int)t->format, (int)t->dataType, t->argsOffset);
        for (uint32_t d = 0; d < t->shapeNum; d++)
            len += (size_t)snprintf(head + len, cap - len, " %" PRIu64, t->shape[d]);
        len += (size_t)snprintf(head + len, cap - len, " originShape");
        for (uint32_t d = 0; d < t->originShapeNum; d++)
            len += (size_t)snprintf(head + len, cap - len, " %" PRIu64, t->originShape[d]);
        len += (size_t)snprintf(head + len, cap - len, "\n");
        if (t->tensorSize > 0 && aclrt_rt.backend->mem_copy != NULL) /* a backend whose memory the CPU reads has none */
            rc = aclrt_rt.backend->mem_copy(data + at, t->tensorAddr, t->tensorSize, ACL_MEMCPY_DEVICE_TO_HOST);
        else if (t->tensorSize > 0)
            memcpy(data + at, t->tensorAddr, t->tensorSize);
        at += t->tensorSize;
    }
    len += (size_t)snprintf(head + len, cap - len, "data\n");
    if (rc == ACL_SUCCESS) {
        char file[ACLRT_DUMP_PATH_MAX + 1200];
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t ms = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
        snprintf(file, sizeof file, "%s%s.custom.%" PRIu64, dir, fileName, ms);
        int e = aclrt_dump_write(file, head, len, data, total);
        if (e != 0)
            rc = aclrt_fail(ACL_ERROR_FAILURE, "cannot write '%s': %s", file, strerror(e));
    }
    free(head);
    free(data);
    return rc;
}

#endif /* ACLRT_IMPL_KERNEL_DUMP_H */
