/*
 * examples/vector_add/vector_add_host.c - the vector add kernel for the host
 * backend, built as a shared object (libvector_add.so). A host kernel is an
 * exported function called once per block; `args` holds the parameters that
 * main.c appended, in order, laid out as this struct. Built from the root of
 * the repository (main.c's first comment has the whole program's build):
 *
 *   cc -std=c11 -I. -shared -fPIC examples/vector_add/vector_add_host.c -o libvector_add.so
 */
#include "acl/acl.h"

struct vector_add_args {
    const float *a;
    const float *b;
    float *c;
    uint32_t n;
};

/* Block blockIdx of numBlocks adds its share of the elements. */
aclError vector_add(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    const struct vector_add_args *p = (const struct vector_add_args *)args;
    uint32_t per = (p->n + numBlocks - 1) / numBlocks;
    uint32_t begin = blockIdx * per, end = begin + per < p->n ? begin + per : p->n;
    for (uint32_t i = begin; i < end; i++)
        p->c[i] = p->a[i] + p->b[i];
    return ACL_SUCCESS;
}
