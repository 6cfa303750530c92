/*
 * bench/stats.c - sample buffers and their summary.
 *
 * Percentiles are nearest-rank on the sorted samples: p = the smallest
 * sample with at least p% of the samples at or below it. A sample is one
 * timed operation, or the mean of one batch of operations (cases say which).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

void samples_init(struct samples *s, size_t cap)
{
    s->v = malloc((cap > 0 ? cap : 1) * sizeof *s->v);
    if (s->v == NULL) {
        fprintf(stderr, "bench: out of memory for %zu samples\n", cap);
        exit(2);
    }
    s->n = 0;
    s->cap = cap;
}

void samples_free(struct samples *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double rank(const double *v, size_t n, double p)
{
    size_t k = (size_t)ceil(p * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

struct summary samples_summarize(struct samples *s)
{
    struct summary r = {0};
    r.n = s->n;
    if (s->n == 0) {
        r.p50 = r.p90 = r.p99 = r.max = r.min = r.mean = NAN;
        return r;
    }
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->v[i];
    r.mean = sum / (double)s->n;
    r.min = s->v[0];
    r.max = s->v[s->n - 1];
    r.p50 = rank(s->v, s->n, 0.50);
    r.p90 = rank(s->v, s->n, 0.90);
    r.p99 = rank(s->v, s->n, 0.99);
    return r;
}
