// Device code shared across translation units (needs relocatable device code: -rdc=true).
#pragma once

#define NCOEFFS 4

extern __constant__ float c_coeffs[NCOEFFS];
extern __device__ unsigned int d_evaluations;

__device__ float polynomial(float x);
void setCoefficients(const float *coeffs);
