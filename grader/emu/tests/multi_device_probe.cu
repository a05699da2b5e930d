// multi_device.cu built with the memory probes, as every graded run is: the blocks of each launch
// take turns (runtime/turns.cpp) while two host threads launch on their own devices, one launch
// at a time, each launch's blocks run as its device's.
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward random:1
// emu-test: env SCANLAB_EMU_DEVICES=4
// emu-test: env SCANLAB_EMU_WORKERS=2
// emu-test: stdout multi-device ok
#include "multi_device.cu"
