/*
 * bench/naive.h - the naive baseline: the same stream/event operations,
 * written the way a competent first attempt would: one mutex and condition
 * variables per stream, a worker thread per stream, an event is a (stream,
 * count) pair under its own mutex.
 */
#ifndef BENCH_NAIVE_H
#define BENCH_NAIVE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* pthread_setname_np */
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "aclrt.h" /* aclrtxHostKernel */

struct nv_stream;
struct nv_event;

struct nv_stream *nv_stream_create(void);
void nv_stream_destroy(struct nv_stream *s); /* waits for its work */
void nv_launch_host_func(struct nv_stream *s, void (*fn)(void *), void *arg);
void nv_launch_host_kernel(struct nv_stream *s, uint32_t blocks, aclrtxHostKernel fn, void *arg);
void nv_stream_synchronize(struct nv_stream *s);
void nv_stream_wait_event(struct nv_stream *s, struct nv_event *e);

struct nv_event *nv_event_create(void);
void nv_event_destroy(struct nv_event *e);
void nv_event_record(struct nv_event *e, struct nv_stream *s);
bool nv_event_query(struct nv_event *e); /* complete? (never recorded: complete) */

#endif /* BENCH_NAIVE_H */
