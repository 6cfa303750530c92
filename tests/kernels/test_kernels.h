/*
 * tests/kernels/test_kernels.h - the parameters of the test kernels
 * (tests/kernels/test_kernels.c), as each kernel reads them: for the kernel
 * library itself and for the tests that launch its kernels. KERNELS is the
 * library's path where the Makefile passes ACLRT_TEST_KERNEL_DIR.
 */
#ifndef ACLRT_TESTS_KERNELS_TEST_KERNELS_H
#define ACLRT_TESTS_KERNELS_TEST_KERNELS_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#ifdef ACLRT_TEST_KERNEL_DIR
#define KERNELS ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so"
#endif

/* out[blockIdx] = value + blockIdx */
struct fill_args {
    int32_t *out;
    int32_t value;
};

/* Every block records numBlocks, so a test sees how many ran and what they were told. */
struct blocks_args {
    uint32_t *seen; /* seen[blockIdx] = numBlocks */
};

/* Parameters of every natural alignment: writes them back as uint64_t values. */
struct mixed_args {
    uint64_t *out;
    uint8_t c;
    uint16_t h;
    uint32_t i;
    uint64_t l;
    uint8_t tail;
};

/* *out = the sum of n int32 at data (a placeholder: data in the launch's copy of the args). */
struct sum_args {
    int64_t *out;
    const int32_t *data;
    uint32_t n;
};

/* Block fail_at returns code; the others succeed. */
struct fail_args {
    uint32_t fail_at;
    int32_t code;
};

/* Waits until *gate is non-zero, then adds 1 to *ran: holds its stream while a test does something. */
struct gate_args {
    atomic_int *gate;
    atomic_int *ran;
};

/* Runs for at least ms milliseconds (the work of a kernel that outlasts a launch timeout). */
struct busy_args {
    uint32_t ms;
};

struct global_args {
    int32_t *out;
};

struct scale_args {
    int32_t *data;
};

struct counter_args {
    int32_t *out;
};

/* Adds 1 to *n per block: counts the blocks that ran. */
struct count_args {
    atomic_int *n;
};

/* A 16-byte-aligned parameter after a 4-byte one (a float4 of a GPU kernel): out[0..3] = x, a, v[0], v[1]. */
struct wide_args {
    uint64_t *out;
    uint64_t x;
    uint32_t a;
    alignas(16) uint64_t v[2];
};

#endif /* ACLRT_TESTS_KERNELS_TEST_KERNELS_H */
