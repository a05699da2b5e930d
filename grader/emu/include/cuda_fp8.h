/**
 * @file cuda_fp8.h
 * @brief Emulation backend: 8-bit floating-point numbers are not emulated; an include of this header does not compile,
 *        and says so.
 */
#error "cuda_fp8.h: 8-bit floating-point numbers are not supported by the ScanLab CPU emulator (emu); nvcc builds this program, the emu cannot run it"
