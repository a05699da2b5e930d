/**
 * @file cuda_awbarrier.h
 * @brief Emulation backend: arrive-wait barriers are not emulated; an include of this header does not compile,
 *        and says so.
 */
#error "cuda_awbarrier.h: arrive-wait barriers are not supported by the ScanLab CPU emulator (emu); nvcc builds this program, the emu cannot run it"
