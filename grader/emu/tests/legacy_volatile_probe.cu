// legacy_volatile.cu built with the memory probes: the same answer, and the warning names the
// lines of the two lanes' accesses.
// emu-test: probe
// emu-test: expect pass
// emu-test: stderr warp-synchronous
// emu-test: stderr legacy_warp_sync.h:
#include "legacy_warp_sync.h"

int main() { return legacyMain(); }
