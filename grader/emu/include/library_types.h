/**
 * @file library_types.h
 * @brief Emulation backend: the data-type and library-property enums the CUDA libraries share.
 */
#ifndef __LIBRARY_TYPES_H__
#define __LIBRARY_TYPES_H__
/// @cond EMU_INTERNAL
typedef enum cudaDataType_t {
  CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_C_32F = 4, CUDA_C_64F = 5, CUDA_C_16F = 6,
  CUDA_C_8I = 7, CUDA_R_8U = 8, CUDA_C_8U = 9, CUDA_R_32I = 10, CUDA_C_32I = 11, CUDA_R_32U = 12, CUDA_C_32U = 13,
  CUDA_R_16BF = 14, CUDA_C_16BF = 15
} cudaDataType;
typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
/// @endcond
#endif /* __LIBRARY_TYPES_H__ */
