/**
 * @file mma.h
 * @brief Emulation backend: warp matrix (tensor core) operations (nvcuda::wmma) are not emulated; an include of this header does not compile,
 *        and says so.
 */
#error "mma.h: warp matrix (tensor core) operations (nvcuda::wmma) are not supported by the ScanLab CPU emulator (emu); nvcc builds this program, the emu cannot run it"
