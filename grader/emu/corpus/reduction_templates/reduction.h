// Host interface of the reduction kernels (defined and instantiated in reduction_kernel.cu).
#ifndef REDUCTION_H
#define REDUCTION_H

template <class T>
void reduce(int size, int threads, int blocks, int whichKernel, T *d_idata, T *d_odata);

#endif
