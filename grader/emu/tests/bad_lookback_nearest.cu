// The look-back of turns_order.cu with one fault: it waits only while the nearest tile before it
// is unpublished, and takes an unpublished tile further back as the end of its window. Under
// every schedule a tile publishes late (the late slot of turns.cpp) while later tiles look
// back past it, so the sums are wrong under each, whatever the host's cores.
// emu-test: expect fail
// emu-test: probe
// emu-test: env SCANLAB_EMU_WORKERS=1
// emu-test: schedules forward reverse random:1 random:20261122
// emu-test: stdout look-back: first mismatch
#define ONLY_NEAREST 1
#include "turns_order.cu"
