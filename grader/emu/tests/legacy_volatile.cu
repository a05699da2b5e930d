// The pre-Volta warp-synchronous scan and reduction (legacy_warp_sync.h), in a program's own
// run: the emu runs a warp's lanes in step at each volatile access, as a GPU runs a converged
// warp, so the answer is a GPU's, and it warns once, naming the hazard racecheck reports.
// emu-test: expect pass
// emu-test: stderr warp-synchronous
// emu-test: stderr no __syncwarp between
#include "legacy_warp_sync.h"

int main() { return legacyMain(); }
