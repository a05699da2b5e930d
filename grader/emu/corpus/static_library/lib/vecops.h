// A small library of vector operations on the device (built into libvecops.a with nvcc -lib).
#pragma once

namespace vecops {
// d_out[i] = a * d_x[i] + d_y[i]
void axpy(int n, float a, const float *d_x, const float *d_y, float *d_out);
// the sum of d_x[0..n)
float sum(int n, const float *d_x);
// functors for transform<Op>(), instantiated in the library for these two
struct Square {
  __host__ __device__ float operator()(float v) const { return v * v; }
};
struct Negate {
  __host__ __device__ float operator()(float v) const { return -v; }
};
template <class Op>
void transform(int n, const float *d_in, float *d_out, Op op);
}  // namespace vecops
