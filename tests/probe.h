/*
 * tests/probe.h - probes and chances, for cases that prove an ordering
 * without sleeping. Include after check.h and gate.h.
 *
 *   probe   a host function that records that it ran and what it saw in a
 *           watched flag (e.g. a gate's `done`) at that moment.
 *   chance  give work that must NOT run yet a bounded chance to run anyway
 *           (a broken wait), returning early if it did. Never a
 *           synchronization: correct behaviour does not depend on how long
 *           it takes.
 *   busy    launch a gate and wait until it runs (the stream is now held).
 */
#ifndef ACLRT_TESTS_PROBE_H
#define ACLRT_TESTS_PROBE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

struct probe {
    const atomic_int *watch; /* what the probe reads when it runs (may be NULL) */
    atomic_int saw;
    atomic_int ran;
};

static void probe_fn(void *arg)
{
    struct probe *p = (struct probe *)arg;
    atomic_store(&p->saw, p->watch != NULL ? atomic_load(p->watch) : 0);
    atomic_store(&p->ran, 1);
}

static void probe_init(struct probe *p, const atomic_int *watch)
{
    p->watch = watch;
    atomic_store(&p->saw, -1);
    atomic_store(&p->ran, 0);
}

/* Launch a fresh probe on `stream`. */
static void launch_probe(aclrtStream stream, struct probe *p, const atomic_int *watch)
{
    probe_init(p, watch);
    CHECK_OK(aclrtLaunchHostFunc(stream, probe_fn, p));
}

static uint64_t probe_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void chance(const atomic_int *flag)
{
    uint64_t end = probe_mono_ns() + 2000000; /* at most 2 ms, or 3000 yields */
    for (int i = 0; i < 3000 && !atomic_load(flag) && probe_mono_ns() < end; i++)
        sched_yield();
}

/* Wait (bounded) until a flag is set: for things that must happen, not for ordering. 1 if it was. */
static int eventually(const atomic_int *flag)
{
    for (long i = 0; i < 20000000L; i++) {
        if (atomic_load(flag))
            return 1;
        sched_yield();
    }
    return 0;
}

static struct gate *busy(aclrtStream stream)
{
    struct gate *g = launch_gate(stream);
    CHECK(gate_wait_entered(g));
    return g;
}

static aclrtStreamStatus stream_status_of(aclrtStream s)
{
    aclrtStreamStatus st = (aclrtStreamStatus)0x7777;
    CHECK_OK(aclrtStreamQuery(s, &st));
    return st;
}

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK(s != NULL);
    return s;
}

#endif /* ACLRT_TESTS_PROBE_H */
