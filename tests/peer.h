/*
 * tests/peer.h - what the tests of peer access between devices share
 * (tests/test_peer.c, tests/test_two_devices.c): a pair's access status, and
 * device memory of one device, filled with a byte.
 */
#ifndef ACLRT_TESTS_PEER_H
#define ACLRT_TESTS_PEER_H

#include "check.h"

static int32_t status_of(int32_t dev, int32_t peer)
{
    int32_t status = -1;
    CHECK_OK(aclrtDevicePeerAccessStatus(dev, peer, &status));
    return status;
}

/* `size` bytes of `dev`'s memory (which becomes the current device), each `fill`. */
static void *alloc_on(int32_t dev, size_t size, unsigned char fill, aclrtMemMallocPolicy policy)
{
    void *p = NULL;
    CHECK_OK(aclrtSetDevice(dev));
    CHECK_OK(aclrtMalloc(&p, size, policy));
    CHECK_OK(aclrtMemset(p, size, fill, size));
    return p;
}

#endif /* ACLRT_TESTS_PEER_H */
