/*
 * bench/cuda/nop.cu - the kernel of the cuda benchmark's launch row on a
 * GPU (nvcc --fatbin, make bench BACKEND=cuda): it does nothing with its
 * one 8-byte parameter.
 */
extern "C" __global__ void nop(unsigned long long arg)
{
    (void)arg;
}
