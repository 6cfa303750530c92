// An ACL-style C++ program, written the way programs for the real runtime
// are: it includes "acl/acl.h" and uses only ACL names. It must build
// unchanged against aclrt (C++17) and run: a two-stream pipeline with an
// event, a timed section, a copy through device memory.
#include "acl/acl.h"

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#define ACL_CHECK(expr)                                                                   \
    do {                                                                                  \
        aclError ret_ = (expr);                                                           \
        if (ret_ != ACL_SUCCESS) {                                                        \
            std::fprintf(stderr, "%s failed: %d (%s)\n", #expr, ret_, aclGetRecentErrMsg()); \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

struct Stage {
    std::vector<int> *data;
    int add;
};

static void add_stage(void *arg)
{
    Stage *s = static_cast<Stage *>(arg);
    for (int &x : *s->data)
        x += s->add;
}

int main()
{
    ACL_CHECK(aclInit(nullptr));
    ACL_CHECK(aclrtSetDevice(0));
    aclrtContext context = nullptr;
    ACL_CHECK(aclrtGetCurrentContext(&context));

    aclrtStream producer = nullptr, consumer = nullptr;
    ACL_CHECK(aclrtCreateStream(&producer));
    ACL_CHECK(aclrtCreateStreamWithConfig(&consumer, 0, ACL_STREAM_FAST_LAUNCH));

    aclrtEvent ready = nullptr, start = nullptr, stop = nullptr;
    ACL_CHECK(aclrtCreateEventExWithFlag(&ready, ACL_EVENT_SYNC));
    ACL_CHECK(aclrtCreateEvent(&start));
    ACL_CHECK(aclrtCreateEvent(&stop));

    std::vector<int> data(1024, 1);
    Stage first{&data, 10}, second{&data, 100};
    ACL_CHECK(aclrtRecordEvent(start, producer));
    ACL_CHECK(aclrtLaunchHostFunc(producer, add_stage, &first));
    ACL_CHECK(aclrtRecordEvent(ready, producer));
    ACL_CHECK(aclrtStreamWaitEvent(consumer, ready));
    ACL_CHECK(aclrtLaunchHostFunc(consumer, add_stage, &second));
    ACL_CHECK(aclrtRecordEvent(stop, consumer));
    ACL_CHECK(aclrtSynchronizeEvent(stop));

    float ms = -1.0f;
    ACL_CHECK(aclrtEventElapsedTime(&ms, start, stop));
    for (int x : data)
        if (x != 111) {
            std::fprintf(stderr, "pipeline produced %d, expected 111\n", x);
            return 1;
        }

    // A worker thread joins the same context and copies through device memory.
    void *dev = nullptr;
    ACL_CHECK(aclrtMalloc(&dev, data.size() * sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST));
    int rc = 0;
    std::thread worker([&] {
        if (aclrtSetCurrentContext(context) != ACL_SUCCESS ||
            aclrtMemcpyAsync(dev, data.size() * sizeof(int), data.data(), data.size() * sizeof(int),
                             ACL_MEMCPY_HOST_TO_DEVICE, consumer) != ACL_SUCCESS ||
            aclrtSynchronizeStream(consumer) != ACL_SUCCESS)
            rc = 1;
    });
    worker.join();
    if (rc != 0 || std::memcmp(dev, data.data(), data.size() * sizeof(int)) != 0) {
        std::fprintf(stderr, "copy through device memory failed\n");
        return 1;
    }

    ACL_CHECK(aclrtFree(dev));
    ACL_CHECK(aclrtDestroyEvent(ready));
    ACL_CHECK(aclrtDestroyEvent(start));
    ACL_CHECK(aclrtDestroyEvent(stop));
    ACL_CHECK(aclrtDestroyStream(producer));
    ACL_CHECK(aclrtDestroyStream(consumer));
    ACL_CHECK(aclrtResetDevice(0));
    ACL_CHECK(aclFinalize());
    std::printf("cpp_program: pipeline 1024 x 111, %.3f ms between events\n", ms);
    return 0;
}
