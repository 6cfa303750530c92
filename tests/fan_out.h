/*
 * tests/fan_out.h - one task onto each of many idle streams in a row, round
 * after round: each round, every stream's task runs once, whichever thread
 * the wake-ups left to run it.
 */
#ifndef ACLRT_TESTS_FAN_OUT_H
#define ACLRT_TESTS_FAN_OUT_H

#include "check.h"

#include "acl/acl.h"

#include <stdatomic.h>
#include <stdint.h>

#define FAN_OUT_MAX_STREAMS 512

static void fan_out_count_one(void *arg)
{
    atomic_fetch_add_explicit((_Atomic uint64_t *)arg, 1, memory_order_relaxed);
}

/* `streams` streams, `rounds` rounds; before each round `before` (NULL: none) must say yes. */
static void fan_out_rounds(int streams, int rounds, int (*before)(void))
{
    static aclrtStream s[FAN_OUT_MAX_STREAMS];
    static _Atomic uint64_t ran;
    CHECK(streams > 0 && streams <= FAN_OUT_MAX_STREAMS);
    atomic_store(&ran, 0);
    for (int i = 0; i < streams; i++)
        CHECK_OK(aclrtCreateStream(&s[i]));
    for (int r = 0; r < rounds; r++) {
        if (before != NULL)
            CHECK(before());
        for (int i = 0; i < streams; i++)
            CHECK_OK(aclrtLaunchHostFunc(s[i], fan_out_count_one, (void *)&ran));
        for (int i = 0; i < streams; i++)
            CHECK_OK(aclrtSynchronizeStream(s[i]));
        CHECK_EQ((uint64_t)(r + 1) * (uint64_t)streams, atomic_load(&ran));
    }
    for (int i = 0; i < streams; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
}

#endif /* ACLRT_TESTS_FAN_OUT_H */
