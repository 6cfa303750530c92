/*
 * tests/gate.h - gates: host functions that hold their stream busy until the
 * test opens them. Include after check.h.
 *
 *   struct gate *g = launch_gate(stream);   the stream's next task blocks
 *   gate_wait_entered(g);                   ...and is now running
 *   gate_open(g);                           ...and may finish
 *
 * Gates come from a pool and are never reused, so a task that runs late only
 * ever sees its own gate. gates_open_all() releases every gate ever handed
 * out (after a case that failed half way).
 */
#ifndef ACLRT_TESTS_GATE_H
#define ACLRT_TESTS_GATE_H

#include <sched.h>
#include <stdatomic.h>

struct gate {
    atomic_int open;
    atomic_int entered;
    atomic_int done;
};

#define GATE_POOL 128
static struct gate gate_pool[GATE_POOL];
static int gate_next;

static struct gate *new_gate(void)
{
    CHECK(gate_next < GATE_POOL);
    return &gate_pool[gate_next++];
}

static void gate_fn(void *arg)
{
    struct gate *g = (struct gate *)arg;
    atomic_store(&g->entered, 1);
    while (!atomic_load(&g->open))
        sched_yield();
    atomic_store(&g->done, 1);
}

static void gate_open(struct gate *g)
{
    atomic_store(&g->open, 1);
}

static void gates_open_all(void)
{
    for (int i = 0; i < gate_next; i++)
        atomic_store(&gate_pool[i].open, 1);
}

/* Wait (bounded) until the gate's host function runs; 1 if it did. */
static int gate_wait_entered(struct gate *g)
{
    for (long i = 0; i < 20000000L; i++) {
        if (atomic_load(&g->entered))
            return 1;
        sched_yield();
    }
    return 0;
}

/* Launch a gate on `stream` (NULL: the default stream). */
static struct gate *launch_gate(aclrtStream stream)
{
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(stream, gate_fn, g));
    return g;
}

/* A thread that opens a gate once its host function runs, after giving the main thread time to block. */
static void *gate_opener_main(void *arg)
{
    struct gate *g = (struct gate *)arg;
    gate_wait_entered(g);
    for (int i = 0; i < 2000; i++)
        sched_yield(); /* not synchronization: a wider window for a call that does not wait to be caught */
    gate_open(g);
    return NULL;
}

#endif /* ACLRT_TESTS_GATE_H */
