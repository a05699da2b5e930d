/**
 * @file cuda_bf16.h
 * @brief Emulation backend: bfloat16 numbers (__nv_bfloat16) are not emulated; an include of this header does not compile,
 *        and says so.
 */
#error "cuda_bf16.h: bfloat16 numbers (__nv_bfloat16) are not supported by the ScanLab CPU emulator (emu); nvcc builds this program, the emu cannot run it"
