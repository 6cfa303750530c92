/*
 * examples/vector_add/vector_add.cu - the same kernel for a cuda backend,
 * compiled by nvcc into vector_add.fatbin (make examples, when nvcc is
 * installed). Its parameters are the ones main.c appends, in order; the
 * loop covers the vector whatever the grid and block sizes. By hand, from the
 * root of the repository, with main.c built as its first comment says:
 *
 *   nvcc --fatbin examples/vector_add/vector_add.cu -o vector_add.fatbin
 *   ACLRT_BACKEND=cuda ./vector_add ./vector_add.fatbin
 */
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned int n)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}
