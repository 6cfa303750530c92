/*
 * impl/prof/prof.h - the profiling calls of acl_prof.h: aclprofInit and
 * aclprofFinalize, configurations, aclprofStart and aclprofStop.
 *
 * aclprofInit names the directory the traces go to (created if missing; it
 * must be a directory this process can write). A configuration names the
 * devices to profile; aclprofStart begins a session that records every task
 * run on them (prof_trace.h), aclprofStop ends it and writes the trace into
 * the directory as aclrt_trace_<pid>_<n>.json. aclprofFinalize ends a
 * session still running the same way, then forgets the directory.
 *
 * Order, as the profiler checks it: a second aclprofInit is
 * ACL_ERROR_REPEAT_INITIALIZE; aclprofStart, aclprofStop and
 * aclprofFinalize before aclprofInit, and aclprofStop without a running
 * session, are ACL_ERROR_PROF_NOT_RUN; aclprofStart while a session runs is
 * ACL_ERROR_PROF_ALREADY_RUN. Configurations are kept in a list, so a NULL,
 * destroyed or foreign one is ACL_ERROR_INVALID_PARAM, never a crash.
 *
 * aclprofSetConfig checks a setting's value against what its type takes
 * (a number in its range, one of its words, any text) and keeps it until
 * aclprofFinalize; every trace lists the ones set. ACL_PROF_PATH sets the
 * result directory as aclprofInit does, and stands for it when that was
 * not called.
 */
#ifndef ACLRT_IMPL_PROF_PROF_H
#define ACLRT_IMPL_PROF_PROF_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "prof_trace.h"
#include "prof_subscribe.h"

#include <limits.h>
#include <sys/stat.h>

struct aclprofConfig {
    uint32_t count;
    uint32_t devices[ACLRT_MAX_DEVICES];
    aclprofAicoreMetrics metrics;
    uint64_t data_types;
    struct aclprofConfig *next;
};

static struct aclprofConfig *aclrt_prof_configs; /* the live ones, under aclrt_prof.lock */

/* Is c a live configuration? Caller holds the lock. */
static bool aclrt_prof_config_live(const aclprofConfig *c)
{
    for (const struct aclprofConfig *it = aclrt_prof_configs; it != NULL; it = it->next)
        if (it == c)
            return true;
    return false;
}

/* Make `dir` and its missing parents (mode 0750); 0 or an errno. */
static int aclrt_prof_mkdirs(char *dir)
{
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

/*
 * End the running session (caller holds the lock, which is let go while the
 * tasks already in the profiled path record themselves): stop recording,
 * then write the trace.
 */
static aclError aclrt_prof_stop_locked(void)
{
    /* Seq_cst: pairs with the increment and load in aclrt_task_run_profiled (exec.h). */
    atomic_store_explicit(&aclrt_prof.on, false, memory_order_seq_cst);
    aclrt_prof.stopping = true; /* a second stop meanwhile finds no session to stop */
    pthread_mutex_unlock(&aclrt_prof.lock);
    /* Acquire: pairs with the release decrement; their records are in. */
    while (atomic_load_explicit(&aclrt_prof.busy, memory_order_seq_cst) != 0)
        sched_yield();
    pthread_mutex_lock(&aclrt_prof.lock);
    for (uint32_t d = 0; d < ACLRT_MAX_DEVICES; d++)
        atomic_store_explicit(&aclrt_prof.device_on[d], false, memory_order_relaxed);
    aclrt_prof.running = false; /* tasks finishing now find it under the lock and are not recorded */
    aclrt_prof.stopping = false;
    return aclrt_prof_write_locked();
}

/*
 * Make the result directory `path` (length checked by the caller), check
 * it, and make it the one traces go to. Caller holds the lock.
 */
static aclError aclrt_prof_set_dir_locked(const char *profilerResultPath, size_t length)
{
    aclError rc = ACL_SUCCESS;
    /* Relaxed: a subscription is made under this lock too (model_subscribe.h). */
    if (!aclrt_prof.inited && atomic_load_explicit(&aclrt_prof_subs.count, memory_order_relaxed) != 0)
        return aclrt_fail(ACL_ERROR_PROF_API_CONFLICT,
                          "a model is subscribed (aclprofModelSubscribe): profiling comes after aclprofModelUnSubscribe");
    char dir[ACLRT_PROF_PATH_MAX];
    memcpy(dir, profilerResultPath, length + 1);
    while (length > 1 && dir[length - 1] == '/')
        dir[--length] = '\0';
    int err = aclrt_prof_mkdirs(dir);
    struct stat st;
    if (err != 0 || stat(dir, &st) != 0) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "cannot make the directory %s: %s", dir,
                        strerror(err != 0 ? err : errno));
        goto out;
    }
    if (!S_ISDIR(st.st_mode)) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is not a directory", dir);
        goto out;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "the directory %s is not writable: %s", dir, strerror(errno));
        goto out;
    }
    memcpy(aclrt_prof.dir, dir, length + 1);
    aclrt_prof.inited = true;
out:
    return rc;
}

ACLRT_API aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    ACLRT_ENTER();
    if (profilerResultPath == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "profilerResultPath is NULL");
    if (length == 0 || length >= ACLRT_PROF_PATH_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "length %zu of profilerResultPath is not in [1, %d)", length,
                          ACLRT_PROF_PATH_MAX);
    if (strnlen(profilerResultPath, length + 1) != length)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "length %zu is not the length of profilerResultPath", length);
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = aclrt_prof.inited ? aclrt_fail(ACL_ERROR_REPEAT_INITIALIZE,
                                                 "profiling is already initialized (aclprofFinalize first)")
                                    : aclrt_prof_set_dir_locked(profilerResultPath, length);
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofFinalize(void)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = ACL_SUCCESS;
    if (!aclrt_prof.inited) {
        rc = aclrt_fail(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialized (aclprofInit first)");
    } else {
        if (aclrt_prof.running && !aclrt_prof.stopping)
            rc = aclrt_prof_stop_locked();
        aclrt_prof.inited = false;
        memset(aclrt_prof.settings, 0, sizeof aclrt_prof.settings);
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                             aclprofAicoreMetrics aicoreMetrics,
                                             const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig)
{
    ACLRT_ENTER();
    if (deviceNums != 0 && deviceIdList == NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceIdList is NULL");
        return NULL;
    }
    if (aicoreEvents != NULL) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "aicoreEvents must be NULL");
        return NULL;
    }
    if (deviceNums == 0 && (dataTypeConfig & ACL_PROF_MSPROFTX) == 0) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceNums is 0");
        return NULL;
    }
    if (aclrt_runtime_start() != ACL_SUCCESS)
        return NULL;
    if (deviceNums > aclrt_rt.device_count) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceNums %u is more than the %u devices", deviceNums,
                   aclrt_rt.device_count);
        return NULL;
    }
    bool seen[ACLRT_MAX_DEVICES] = {false};
    for (uint32_t i = 0; i < deviceNums; i++) {
        if (deviceIdList[i] >= aclrt_rt.device_count) {
            aclrt_fail(ACL_ERROR_INVALID_PARAM, "device id %u is not in [0, %u)", deviceIdList[i],
                       aclrt_rt.device_count);
            return NULL;
        }
        if (seen[deviceIdList[i]]) {
            aclrt_fail(ACL_ERROR_INVALID_PARAM, "device id %u is listed twice", deviceIdList[i]);
            return NULL;
        }
        seen[deviceIdList[i]] = true;
    }
    struct aclprofConfig *c = (struct aclprofConfig *)calloc(1, sizeof *c);
    if (c == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory creating a profiling configuration");
        return NULL;
    }
    c->count = deviceNums;
    if (deviceNums != 0)
        memcpy(c->devices, deviceIdList, deviceNums * sizeof *deviceIdList);
    c->metrics = aicoreMetrics;
    c->data_types = dataTypeConfig;
    pthread_mutex_lock(&aclrt_prof.lock);
    c->next = aclrt_prof_configs;
    aclrt_prof_configs = c;
    pthread_mutex_unlock(&aclrt_prof.lock);
    return c;
}

ACLRT_API aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    ACLRT_ENTER();
    if (profilerConfig == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig is NULL");
    pthread_mutex_lock(&aclrt_prof.lock);
    struct aclprofConfig **at = &aclrt_prof_configs;
    while (*at != NULL && *at != profilerConfig)
        at = &(*at)->next;
    struct aclprofConfig *c = *at;
    if (c != NULL)
        *at = c->next;
    pthread_mutex_unlock(&aclrt_prof.lock);
    if (c == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a profiling configuration (or was destroyed)",
                          (const void *)profilerConfig);
    free(c);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclprofStart(const aclprofConfig *profilerConfig)
{
    ACLRT_ENTER();
    if (profilerConfig == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig is NULL");
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = ACL_SUCCESS;
    if (!aclrt_prof_config_live(profilerConfig)) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a profiling configuration (or was destroyed)",
                        (const void *)profilerConfig);
    } else if (!aclrt_prof.inited) {
        rc = aclrt_fail(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialized (aclprofInit first)");
    } else if (aclrt_prof.running) {
        rc = aclrt_fail(ACL_ERROR_PROF_ALREADY_RUN, "a profiling session already runs (aclprofStop first)");
    } else {
        aclrt_prof.running = true;
        aclrt_prof.tx_on = (profilerConfig->data_types & ACL_PROF_MSPROFTX) != 0;
        aclrt_prof.start_ns = aclrt_now_ns();
        aclrt_prof.data_types = profilerConfig->data_types;
        aclrt_prof.metrics = (int)profilerConfig->metrics;
        for (uint32_t i = 0; i < profilerConfig->count; i++)
            atomic_store_explicit(&aclrt_prof.device_on[profilerConfig->devices[i]], true, memory_order_relaxed);
        /* Pairs with nothing: an executor that reads `on` late only misses the session's first tasks. */
        atomic_store_explicit(&aclrt_prof.on, true, memory_order_relaxed);
    }
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofStop(const aclprofConfig *profilerConfig)
{
    ACLRT_ENTER();
    if (profilerConfig == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "profilerConfig is NULL");
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = ACL_SUCCESS;
    if (!aclrt_prof_config_live(profilerConfig)) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a profiling configuration (or was destroyed)",
                        (const void *)profilerConfig);
        goto out;
    }
    if (!aclrt_prof.inited) {
        rc = aclrt_fail(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialized (aclprofInit first)");
        goto out;
    }
    if (!aclrt_prof.running || aclrt_prof.stopping) {
        rc = aclrt_fail(ACL_ERROR_PROF_NOT_RUN, "no profiling session runs (aclprofStart first)");
        goto out;
    }
    for (uint32_t i = 0; i < profilerConfig->count; i++)
        if (!atomic_load_explicit(&aclrt_prof.device_on[profilerConfig->devices[i]], memory_order_relaxed)) {
            rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "device %u is not profiled by the running session",
                            profilerConfig->devices[i]);
            goto out;
        }
    rc = aclrt_prof_stop_locked();
out:
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

/* Is the n-byte s a decimal number in [lo, hi]? */
static bool aclrt_prof_number_in(const char *s, size_t n, unsigned long long lo, unsigned long long hi)
{
    unsigned long long v = 0;
    if (n == 0 || n > 20)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (ULLONG_MAX - 9) / 10)
            return false;
        v = v * 10 + (unsigned long long)(s[i] - '0');
    }
    return v >= lo && v <= hi;
}

/* Is the n-byte s a comma-separated list of words from `words` (NULL-terminated), each at most once? */
static bool aclrt_prof_words_in(const char *s, size_t n, const char *const *words)
{
    unsigned seen = 0;
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        unsigned k = 0;
        while (words[k] != NULL && !(strlen(words[k]) == j - i && strncmp(words[k], s + i, j - i) == 0))
            k++;
        if (words[k] == NULL || (seen & (1u << k)) != 0)
            return false;
        seen |= 1u << k;
        i = j + 1;
    }
    return true;
}

ACLRT_API aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength)
{
    ACLRT_ENTER();
    if (config == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "config is NULL");
    if (configLength == 0 || configLength > ACLRT_PROF_SETTING_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "configLength %zu is not in [1, %d]", configLength,
                          ACLRT_PROF_SETTING_MAX);
    if (strnlen(config, configLength + 1) != configLength)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "configLength %zu is not the length of config", configLength);
    static const char *const cpu_mem[] = {"cpu", "mem", NULL};
    static const char *const llc[] = {"read", "write", NULL};
    static const char *const nts[] = {"PipeUtilization", NULL};
    bool ok;
    switch (configType) {
    case ACL_PROF_STORAGE_LIMIT: /* MB, optionally with the unit */
        ok = aclrt_prof_number_in(config, configLength >= 2 && strcmp(config + configLength - 2, "MB") == 0
                                              ? configLength - 2 : configLength, 200, UINT32_MAX);
        break;
    case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
    case ACL_PROF_SYS_IO_FREQ:
    case ACL_PROF_DVPP_FREQ:
    case ACL_PROF_LOW_POWER_FREQ:
    case ACL_PROF_SYS_CPU_FREQ:
        ok = aclrt_prof_number_in(config, configLength, 1, 100);
        break;
    case ACL_PROF_SYS_INTERCONNECTION_FREQ:
    case ACL_PROF_HOST_SYS_USAGE_FREQ:
        ok = aclrt_prof_number_in(config, configLength, 1, 50);
        break;
    case ACL_PROF_LLC_MODE:
        ok = aclrt_prof_words_in(config, configLength, llc) && strchr(config, ',') == NULL;
        break;
    case ACL_PROF_HOST_SYS:
    case ACL_PROF_HOST_SYS_USAGE:
        ok = aclrt_prof_words_in(config, configLength, cpu_mem);
        break;
    case ACL_PROF_NTS_METRICS:
        ok = aclrt_prof_words_in(config, configLength, nts);
        break;
    case ACL_PROF_SYS_MEM_SERVICEFLOW:
    case ACL_PROF_OPTYPE:
    case ACL_PROF_PATH:
        ok = true;
        break;
    default:
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "configType %d is not an aclprofConfigType setting",
                          (int)configType);
    }
    if (!ok)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "\"%s\" is not a value of configType %d", config,
                          (int)configType);
    pthread_mutex_lock(&aclrt_prof.lock);
    aclError rc = ACL_SUCCESS;
    if (configType == ACL_PROF_PATH) {
        /* The result directory: as aclprofInit's (and in its place, before it); a running session keeps its own. */
        if (aclrt_prof.running)
            rc = aclrt_fail(ACL_ERROR_PROF_ALREADY_RUN, "a profiling session runs (the path is set before aclprofStart)");
        else
            rc = aclrt_prof_set_dir_locked(config, configLength);
    }
    if (rc == ACL_SUCCESS)
        memcpy(aclrt_prof.settings[configType], config, configLength + 1);
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

#endif /* ACLRT_IMPL_PROF_PROF_H */
