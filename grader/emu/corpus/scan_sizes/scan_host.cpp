// The serial reference: each array's exclusive sums.
#include "scan_common.h"

void scanExclusiveHost(unsigned *dst, const unsigned *src, unsigned batch, unsigned length) {
  for (unsigned a = 0; a < batch; a++) {
    unsigned sum = 0;
    for (unsigned j = 0; j < length; j++) {
      dst[a * length + j] = sum;
      sum += src[a * length + j];
    }
  }
}
