/*
 * tests/test_dump.c - pins the dump configuration and acl_dump.h
 * (docs/SEMANTICS.md, Dump configuration): aclmdlInitDump / aclmdlSetDump /
 * aclmdlFinalizeDump and their order, a configuration file checked with
 * CANN's codes, the argument buffers a data dump and aclopStartDumpArgs
 * write for each kernel (names and bytes), the kernels a dump_list names,
 * a failing kernel's exception file, the exception info path,
 * acldumpSaveExceptionInfo's file, a registered callback that gets the data
 * dump instead of files, and a "dump" object in aclInit's file.
 *
 * The kernels are tests/kernels/test_kernels.c; every dump goes to a fresh
 * directory under /tmp.
 */
#define _GNU_SOURCE

#include "check.h"
#include "kernels/test_kernels.h"
#include "acl/acl_dump.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];
static char cfg_file[128];
static aclrtStream stream;
static aclrtBinHandle bin;
static aclrtFuncHandle fill, fail;

static void write_cfg(const char *text)
{
    FILE *f = fopen(cfg_file, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* The bytes of a file; NULL if there is none. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    static unsigned char buf[1 << 16];
    *size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Files in a directory (0 if it does not exist). */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A fresh directory name under root (not made). */
static void fresh_dir(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", root, name);
}

/* fill, with host args copied at the launch, run to completion. */
static void run_fill(int32_t *out, int32_t value)
{
    struct fill_args a = {out, value};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 1, stream, NULL, &a, sizeof a, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(stream));
}

TEST(dump_calls_keep_their_order_with_cann_codes)
{
    CHECK_EQ(ACL_ERROR_DUMP_NOT_RUN, aclmdlSetDump(cfg_file));
    CHECK_EQ(ACL_ERROR_DUMP_NOT_RUN, aclmdlFinalizeDump());
    CHECK_OK(aclmdlInitDump());
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclmdlInitDump());
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlSetDump(NULL));
    CHECK_OK(aclmdlFinalizeDump());
    CHECK_EQ(ACL_ERROR_DUMP_NOT_RUN, aclmdlFinalizeDump());
}

TEST(a_bad_configuration_is_refused_and_leaves_the_one_in_force)
{
    char dir[128], text[512];
    fresh_dir(dir, sizeof dir, "keep");
    CHECK_OK(aclmdlInitDump());
    snprintf(text, sizeof text, "{\"dump\": {\"dump_path\": \"%s\", \"dump_op_switch\": \"on\"}}", dir);
    write_cfg(text);
    CHECK_OK(aclmdlSetDump(cfg_file));
    static const struct {
        const char *text;
        aclError code;
    } bad[] = {
        {"{\"dump\": {\"dump_op_switch\": \"on\"}}", ACL_ERROR_INVALID_DUMP_CONFIG},           /* no dump_path */
        {"{\"dump\": {\"dump_path\": \"/tmp\", \"dump_mode\": \"both\"}}", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": {\"dump_path\": \"/tmp\", \"dump_op_switch\": \"yes\"}}", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": {\"dump_path\": \"/tmp\", \"dump_scene\": \"everything\"}}", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": {\"dump_path\": \"/tmp\", \"dump_list\": {}}}", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": {\"dump_path\": \"/tmp\", \"dump_list\": [{\"layer\": [1]}]}}", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": {\"dump_path\": \"/tmp\", \"dump_op_switch\": \"on\", \"dump_debug\": \"on\"}}",
         ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": {\"dump_op_switch\": \"on\", \"dump_path\": \"/tmp\", \"dump_scene\": \"lite_exception\"}}",
         ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"dump\": 3}", ACL_ERROR_INVALID_DUMP_CONFIG},
        {"{\"other\": {}}", ACL_ERROR_INVALID_DUMP_CONFIG}, /* no "dump" */
        {"{\"dump\": {\"dump_path\": \"/tmp\",}}", ACL_ERROR_PARSE_FILE},
        {"[1, 2]", ACL_ERROR_PARSE_FILE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_cfg(bad[i].text);
        aclError rc = aclmdlSetDump(cfg_file);
        if (rc != bad[i].code)
            fprintf(stderr, "  configuration %zu: %s\n", i, bad[i].text);
        CHECK_EQ(bad[i].code, rc);
    }
    CHECK_EQ(ACL_ERROR_INVALID_FILE, aclmdlSetDump("/nonexistent/dump.json"));
    /* The good one is still in force. */
    const char *p = acldumpGetPath(DATA_DUMP);
    CHECK(p != NULL);
    CHECK_EQ(0, strcmp(dir, p));
    CHECK_OK(aclmdlFinalizeDump());
    CHECK(acldumpGetPath(DATA_DUMP) == NULL);
}

TEST(unknown_keys_are_ignored_and_the_rest_is_honoured)
{
    char dir[128], text[512];
    fresh_dir(dir, sizeof dir, "unknown");
    CHECK_OK(aclmdlInitDump());
    snprintf(text, sizeof text,
             "{\"dump\": {\"dump_path\": \"%s\", \"dump_pth\": \"x\", \"later\": {\"a\": [1, 2]},"
             " \"dump_list\": [{\"layer\": [\"k\"], \"newer\": 3}], \"dump_op_switch\": \"on\"}}",
             dir);
    write_cfg(text);
    CHECK_OK(aclmdlSetDump(cfg_file));
    const char *p = acldumpGetPath(DATA_DUMP);
    CHECK(p != NULL);
    CHECK_EQ(0, strcmp(dir, p));
    /* A known key with a bad value still refuses the file, next to an unknown one. */
    write_cfg("{\"dump\": {\"dump_path\": \"/tmp\", \"later\": 1, \"dump_mode\": \"both\"}}");
    CHECK_EQ(ACL_ERROR_INVALID_DUMP_CONFIG, aclmdlSetDump(cfg_file));
    CHECK_EQ(0, strcmp(dir, acldumpGetPath(DATA_DUMP)));
    CHECK_OK(aclmdlFinalizeDump());
}

TEST(a_data_dump_writes_each_kernels_arguments_under_dump_path)
{
    char dir[128], text[512], file[256];
    fresh_dir(dir, sizeof dir, "data/nested");
    snprintf(text, sizeof text,
             "{\"dump\": {\"dump_path\": \"%s\", \"dump_mode\": \"all\", \"dump_list\": [{}], "
             "\"dump_op_switch\": \"on\", \"dump_data\": \"tensor\"}}",
             dir);
    write_cfg(text);
    int32_t *out;
    CHECK_OK(aclrtMalloc((void **)&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    run_fill(out, 1); /* before the dump: no file */
    CHECK_OK(aclmdlInitDump());
    CHECK_OK(aclmdlSetDump(cfg_file));
    CHECK_EQ(0, strcmp(dir, acldumpGetPath(DATA_DUMP)));
    CHECK_EQ(0, strcmp(dir, acldumpGetPath(OVERFLOW_DUMP)));
    CHECK(acldumpGetPath(AIC_ERR_BRIEF_DUMP) == NULL);
    CHECK(acldumpGetPath((acldumpType)99) == NULL);
    run_fill(out, 7);
    run_fill(out, 8);
    /* aclrtLaunchKernel: its device-memory args, as the kernel read them. */
    struct fill_args *dev_args;
    CHECK_OK(aclrtMalloc((void **)&dev_args, sizeof *dev_args, ACL_MEM_MALLOC_HUGE_FIRST));
    struct fill_args a = {out, 9};
    CHECK_OK(aclrtMemcpy(dev_args, sizeof a, &a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtLaunchKernel(fill, 1, dev_args, sizeof a, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_OK(aclmdlFinalizeDump());
    run_fill(out, 10); /* after: no file */
    CHECK_EQ(3, count_files(dir));
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/fill.%d.args", dir, i);
        size_t n = 0;
        const unsigned char *bytes = slurp(file, &n);
        CHECK(bytes != NULL);
        CHECK_EQ(sizeof(struct fill_args), n);
        struct fill_args got;
        memcpy(&got, bytes, sizeof got);
        CHECK(got.out == out);
        CHECK_EQ(7 + i, got.value);
    }
    CHECK_OK(aclrtFree(dev_args));
    CHECK_OK(aclrtFree(out));
}

/* What the dump callback was given: each chunk's header and bytes, in order. */
static struct {
    int calls;
    int32_t ret;         /* what the callback answers */
    bool unreg_inside;   /* the callback unregisters itself */
    char file[4][ACL_DUMP_MAX_FILE_PATH_LENGTH];
    uint32_t last[4];
    int64_t offset[4];
    struct fill_args got[4];
    bool sizes_agree;
} cb_seen;

static int32_t dump_cb(const acldumpChunk *c, int32_t len)
{
    int i = cb_seen.calls++;
    if (i < 4) {
        snprintf(cb_seen.file[i], sizeof cb_seen.file[i], "%s", c->fileName);
        cb_seen.last[i] = c->isLastChunk;
        cb_seen.offset[i] = c->offset;
        if (c->bufLen == sizeof(struct fill_args))
            memcpy(&cb_seen.got[i], c->dataBuf, sizeof(struct fill_args));
    }
    cb_seen.sizes_agree = (i == 0 || cb_seen.sizes_agree) && (size_t)len == sizeof *c + c->bufLen &&
                          c->bufLen == sizeof(struct fill_args) && c->flag == 0;
    if (cb_seen.unreg_inside)
        acldumpUnregCallback();
    return cb_seen.ret;
}

TEST(a_registered_callback_gets_the_data_dump_instead_of_files)
{
    char dir[128], text[512], want[256];
    fresh_dir(dir, sizeof dir, "callback");
    snprintf(text, sizeof text, "{\"dump\": {\"dump_path\": \"%s\", \"dump_op_switch\": \"on\"}}", dir);
    write_cfg(text);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpRegCallback(NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpRegCallback(dump_cb, 1));
    acldumpUnregCallback(); /* nothing registered: nothing happens */
    memset(&cb_seen, 0, sizeof cb_seen);
    int32_t *out;
    CHECK_OK(aclrtMalloc((void **)&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclmdlInitDump());
    CHECK_OK(acldumpRegCallback(dump_cb, 0));
    CHECK_OK(aclmdlSetDump(cfg_file));
    run_fill(out, 21);
    run_fill(out, 22);
    CHECK_EQ(2, cb_seen.calls);
    CHECK(cb_seen.sizes_agree);
    for (int i = 0; i < 2; i++) {
        snprintf(want, sizeof want, "%s/fill.%d.args", dir, i);
        CHECK_EQ(0, strcmp(want, cb_seen.file[i]));
        CHECK_EQ(1u, cb_seen.last[i]);
        CHECK_EQ(0, (int)cb_seen.offset[i]);
        CHECK(cb_seen.got[i].out == out);
        CHECK_EQ(21 + i, cb_seen.got[i].value);
    }
    CHECK_EQ(0, count_files(dir)); /* flag 0: no files */
    /* A callback that fails is told of the next kernel all the same. */
    cb_seen.ret = -1;
    run_fill(out, 23);
    CHECK_EQ(3, cb_seen.calls);
    /* Unregistered from inside the callback: that call returns, no later kernel reaches it. */
    cb_seen.ret = 0;
    cb_seen.unreg_inside = true;
    run_fill(out, 24);
    run_fill(out, 25);
    CHECK_EQ(4, cb_seen.calls);
    CHECK_EQ(24, cb_seen.got[3].value);
    /* With no callback, the data dump writes files again. */
    CHECK_EQ(1, count_files(dir));
    snprintf(want, sizeof want, "%s/fill.4.args", dir);
    CHECK(exists(want));
    CHECK_OK(acldumpRegCallback(dump_cb, 0));
    acldumpUnregCallback();
    run_fill(out, 26);
    CHECK_EQ(4, cb_seen.calls);
    CHECK_EQ(2, count_files(dir));
    CHECK_OK(aclmdlFinalizeDump());
    CHECK_OK(aclrtFree(out));
}

TEST(a_dump_list_layer_names_the_kernels_dumped)
{
    char dir[128], text[512], file[256];
    fresh_dir(dir, sizeof dir, "layer");
    snprintf(text, sizeof text,
             "{\"dump\": {\"dump_path\": \"%s\", \"dump_list\": [{\"model_name\": \"m\", \"layer\": "
             "[\"fail_block\"]}]}}",
             dir);
    write_cfg(text);
    int32_t *out;
    CHECK_OK(aclrtMalloc((void **)&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclmdlInitDump());
    CHECK_OK(aclmdlSetDump(cfg_file));
    run_fill(out, 1); /* not named */
    struct fail_args fa = {99, 0}; /* no block fails */
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fail, 2, stream, NULL, &fa, sizeof fa, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_OK(aclmdlFinalizeDump());
    CHECK_EQ(1, count_files(dir));
    snprintf(file, sizeof file, "%s/fail_block.0.args", dir);
    size_t n = 0;
    const unsigned char *bytes = slurp(file, &n);
    CHECK(bytes != NULL);
    CHECK_EQ(sizeof fa, n);
    CHECK_EQ(0, memcmp(bytes, &fa, sizeof fa));
    CHECK_OK(aclrtFree(out));
}

TEST(start_and_stop_dump_args_bracket_the_kernels_dumped)
{
    char dir[128], file[256];
    fresh_dir(dir, sizeof dir, "args/x");
    int32_t *out;
    CHECK_OK(aclrtMalloc((void **)&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(ACL_ERROR_FAILURE, aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, NULL));
    CHECK_EQ(ACL_ERROR_FAILURE, aclopStartDumpArgs(2, dir));
    CHECK_EQ(ACL_ERROR_FAILURE, aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, ""));
    CHECK(!exists(dir));
    CHECK_OK(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, dir));
    CHECK(exists(dir)); /* made at the start */
    run_fill(out, 21);
    run_fill(out, 22);
    CHECK_OK(aclopStopDumpArgs(2)); /* another type: nothing stops */
    run_fill(out, 23);
    CHECK_OK(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS));
    run_fill(out, 24);
    CHECK_OK(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS)); /* again: fine */
    CHECK_EQ(3, count_files(dir));
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/fill.%d.args", dir, i);
        size_t n = 0;
        const unsigned char *bytes = slurp(file, &n);
        CHECK(bytes != NULL);
        struct fill_args got;
        CHECK_EQ(sizeof got, n);
        memcpy(&got, bytes, sizeof got);
        CHECK_EQ(21 + i, got.value);
    }
    CHECK_OK(aclrtFree(out));
}

TEST(an_exception_dump_writes_the_failing_kernel_and_saved_tensors)
{
    char dir[128], text[512], expect[256], path[256], file[600];
    fresh_dir(dir, sizeof dir, "exc");
    CHECK_EQ(ACL_ERROR_FAILURE, acldumpGetExceptionInfoPath(path, sizeof path)); /* no exception dump yet */
    snprintf(text, sizeof text, "{\"dump\": {\"dump_path\": \"%s\", \"dump_scene\": \"aic_err_brief_dump\"}}", dir);
    write_cfg(text);
    CHECK_OK(aclmdlInitDump());
    CHECK_OK(aclmdlSetDump(cfg_file));
    CHECK_EQ(0, strcmp(dir, acldumpGetPath(AIC_ERR_NORM_DUMP)));
    CHECK(acldumpGetPath(DATA_DUMP) != NULL); /* dump_path, as given */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpGetExceptionInfoPath(NULL, 10));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpGetExceptionInfoPath(path, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpGetExceptionInfoPath(path, 8));
    CHECK_OK(acldumpGetExceptionInfoPath(path, sizeof path));
    snprintf(expect, sizeof expect, "%s/extra-info/data-dump/0/", dir);
    CHECK_EQ(0, strcmp(expect, path));

    /* A kernel that runs fine writes nothing; one that fails writes its args. */
    struct fail_args ok = {99, 0}, bad = {1, ACL_ERROR_RT_AICORE_EXCEPTION};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fail, 2, stream, NULL, &ok, sizeof ok, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(0, count_files(path));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fail, 2, stream, NULL, &bad, sizeof bad, NULL, 0));
    CHECK(aclrtSynchronizeStream(stream) != ACL_SUCCESS);
    snprintf(file, sizeof file, "%sfail_block.0.exception", path);
    size_t n = 0;
    const unsigned char *bytes = slurp(file, &n);
    CHECK(bytes != NULL);
    CHECK_EQ(sizeof bad, n);
    CHECK_EQ(0, memcmp(bytes, &bad, sizeof bad));

    /* A program's own tensors. */
    int32_t host[4] = {1, 2, 3, 4};
    int32_t *dev;
    CHECK_OK(aclrtMalloc((void **)&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(dev, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
    acldumpTensorInfo t;
    memset(&t, 0, sizeof t);
    t.type = ACL_DUMP_TENSOR_OUTPUT;
    t.tensorSize = sizeof host;
    t.dataType = 3;
    t.tensorAddr = (int64_t *)(void *)dev;
    t.addrType = ACL_DUMP_ADDR_RAW;
    t.placement = ACL_DUMP_PLACEMENT_DEVICE;
    t.shapeNum = 2;
    t.shape[0] = 2;
    t.shape[1] = 2;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo(NULL, "tag", &t, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("", "tag", &t, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("a/../b", "tag", &t, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("/abs", "tag", &t, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("mine", "tag", NULL, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("mine", "tag", &t, 0));
    acldumpTensorInfo wrong = t;
    wrong.addrType = ACL_DUMP_ADDR_PTR;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("mine", "tag", &wrong, 1));
    wrong = t;
    wrong.placement = ACL_DUMP_PLACEMENT_HOST;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("mine", "tag", &wrong, 1));
    wrong = t;
    wrong.shapeNum = ACL_DUMP_MAX_SHAPE_NUM + 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("mine", "tag", &wrong, 1));
    wrong = t;
    wrong.tensorAddr = (int64_t *)(void *)host; /* not device memory */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acldumpSaveExceptionInfo("mine", "tag", &wrong, 1));
    CHECK_OK(acldumpSaveExceptionInfo("sub/mine", "my tag", &t, 1));
    char sub[300];
    snprintf(sub, sizeof sub, "%ssub", path);
    DIR *d = opendir(sub);
    CHECK(d != NULL);
    struct dirent *e;
    char found[260] = "";
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "mine.custom.", 12) == 0)
            snprintf(found, sizeof found, "%s", e->d_name);
    closedir(d);
    CHECK(found[0] != '\0');
    snprintf(file, sizeof file, "%s/%s", sub, found);
    bytes = slurp(file, &n);
    CHECK(bytes != NULL);
    const char *head = "aclrt exception info\nuserTag my tag\ntensors 1\n"
                       "tensor 0 type 1 size 16 format 0 dataType 3 argsOffset 0 shape 2 2 originShape\ndata\n";
    size_t hn = strlen(head);
    CHECK_EQ(hn + sizeof host, n);
    CHECK_EQ(0, memcmp(bytes, head, hn));
    CHECK_EQ(0, memcmp(bytes + hn, host, sizeof host));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclmdlFinalizeDump());
    CHECK_EQ(ACL_ERROR_FAILURE, acldumpSaveExceptionInfo("mine", "tag", &t, 1));
    CHECK(acldumpGetPath(AIC_ERR_BRIEF_DUMP) == NULL);
}

/* Last: it finalizes and restarts the runtime. */
TEST(a_dump_object_in_aclInits_file_is_in_force_until_aclFinalize)
{
    char dir[128], text[512], file[256];
    fresh_dir(dir, sizeof dir, "init");
    snprintf(text, sizeof text,
             "{\"err_msg_mode\": \"0\", \"dump\": {\"dump_path\": \"%s\", \"dump_op_switch\": \"on\"}}", dir);
    write_cfg(text);
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtDestroyStream(stream));
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(cfg_file));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(0, strcmp(dir, acldumpGetPath(DATA_DUMP)));
    CHECK_EQ(ACL_ERROR_DUMP_ALREADY_RUN, aclmdlInitDump());
    CHECK_OK(aclrtCreateStream(&stream));
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    CHECK_OK(aclrtBinaryGetFunction(bin, "fill", &fill));
    int32_t *out;
    CHECK_OK(aclrtMalloc((void **)&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    run_fill(out, 5);
    snprintf(file, sizeof file, "%s/fill.0.args", dir);
    CHECK(exists(file));
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtDestroyStream(stream));
    CHECK_OK(aclFinalize());
    write_cfg("{\"dump\": {\"dump_op_switch\": \"on\"}}"); /* no dump_path */
    CHECK_EQ(ACL_ERROR_INVALID_DUMP_CONFIG, aclInit(cfg_file));
    CHECK_OK(aclInit(NULL));
    CHECK(acldumpGetPath(DATA_DUMP) == NULL);
    CHECK_OK(aclmdlInitDump());
    CHECK_OK(aclmdlFinalizeDump());
    CHECK_OK(aclFinalize());
}

TEST(dump_calls_before_aclInit_say_so)
{
    CHECK_EQ(ACL_ERROR_UNINITIALIZE, aclmdlInitDump());
    CHECK_EQ(ACL_ERROR_UNINITIALIZE, aclmdlSetDump(cfg_file));
    CHECK_EQ(ACL_ERROR_UNINITIALIZE, aclmdlFinalizeDump());
}

static void rm_tree(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
}

int main(void)
{
    setenv("ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS", "1", 0);
    unsetenv("NPU_COLLECT_PATH");
    unsetenv("ASCEND_WORK_PATH");
    snprintf(root, sizeof root, "/tmp/aclrt_test_dump.XXXXXX");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(cfg_file, sizeof cfg_file, "%s/dump.json", root);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS ||
        aclrtBinaryLoadFromFile(KERNELS, NULL, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "fill", &fill) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "fail_block", &fail) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(dump_calls_keep_their_order_with_cann_codes);
    RUN(a_bad_configuration_is_refused_and_leaves_the_one_in_force);
    RUN(unknown_keys_are_ignored_and_the_rest_is_honoured);
    RUN(a_data_dump_writes_each_kernels_arguments_under_dump_path);
    RUN(a_registered_callback_gets_the_data_dump_instead_of_files);
    RUN(a_dump_list_layer_names_the_kernels_dumped);
    RUN(start_and_stop_dump_args_bracket_the_kernels_dumped);
    RUN(an_exception_dump_writes_the_failing_kernel_and_saved_tensors);
    RUN(a_dump_object_in_aclInits_file_is_in_force_until_aclFinalize);
    RUN(dump_calls_before_aclInit_say_so);
    rm_tree(root);
    return check_report("test_dump");
}
