// weak_chain.cu without the fence: a tile's total is stored with a plain store and its flag
// raised right after, so a GPU may show the next tile the flag before the total. The emu
// reports the load of the total under every schedule, naming the store, the flag and the load.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse random:1 random:20261122
// emu-test: stderr emu: weak ordering in kernel chainKernel: block
// emu-test: stderr stored with a plain store at
// emu-test: stderr with no __threadfence() between them; the load is at
#define NO_FENCE 1
#include "weak_chain.cu"
