// bad_block_race_mixed the other way round: block 0 writes a byte of each word that block 1
// reads whole. The race is reported at the word, as when the word is written whole and read by
// bytes, so the message is the same whichever block's access the emu saw first.
// emu-test: expect fail
// emu-test: probe
// emu-test: schedules forward reverse
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: env SCANLAB_EMU_WORKERS=1
// emu-test: args bytes-then-words
// emu-test: stderr race between blocks on global memory at byte offset 0 of shared (a static variable of device code)
// emu-test: stderr in kernel mixed
#include "bad_block_race_mixed.cu"
