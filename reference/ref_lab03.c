/**
 * @file ref_lab03.c
 * @brief Lab 03: CPU replay of the Blelloch tile scan's shared-memory accesses.
 */
#include "ref_lab03.h"

#include <stdio.h>

int ref_bank_degree(const int *words, int count) {
  int per_bank[REF_BANKS] = {0}, degree = 0;
  for (int k = 0; k < count; k++) {
    int repeat = 0;
    for (int m = 0; m < k && !repeat; m++) repeat = words[m] == words[k];
    if (repeat) continue; /* the same word again: served by the same pass (broadcast) */
    int bank = ((words[k] % REF_BANKS) + REF_BANKS) % REF_BANKS;
    if (++per_bank[bank] > degree) degree = per_bank[bank];
  }
  return degree;
}

/* The tile element thread t touches in one instruction, or -1 when it sits the step out. */
enum which { ELEM_T, ELEM_T_PLUS_BLOCK, NODE_A, NODE_B };

static int element(enum which w, int t, int block, int stride) {
  switch (w) {
    case ELEM_T: return t;
    case ELEM_T_PLUS_BLOCK: return t + block;
    case NODE_A: return t < block / stride ? stride * (2 * t + 1) - 1 : -1;
    case NODE_B: return t < block / stride ? stride * (2 * t + 2) - 1 : -1;
  }
  return -1;
}

/* Adds one instruction (all warps of the block) to step s. */
static void instruction(ref_bank_step *s, enum which w, int block, int stride, int (*index)(int)) {
  for (int w0 = 0; w0 < block; w0 += REF_BANKS) {
    int words[REF_BANKS], count = 0;
    for (int t = w0; t < w0 + REF_BANKS && t < block; t++) {
      int e = element(w, t, block, stride);
      if (e >= 0) words[count++] = index(e);
    }
    int d = ref_bank_degree(words, count);
    if (d == 0) continue;
    s->excess += d - 1;
    if (d > s->degree) s->degree = d;
  }
}

static ref_bank_step *new_step(ref_bank_step *steps, int *count, int max, const char *label) {
  if (*count >= max) return NULL;
  ref_bank_step *s = &steps[(*count)++];
  snprintf(s->label, sizeof s->label, "%s", label);
  s->degree = 0;
  s->excess = 0;
  return s;
}

int ref_blelloch_bank_replay(int block, int (*index)(int), ref_bank_step *steps, int max_steps) {
  int count = 0;
  char label[64];
  ref_bank_step *s = new_step(steps, &count, max_steps, "load (t, t+block)");
  if (s) {
    instruction(s, ELEM_T, block, 1, index);
    instruction(s, ELEM_T_PLUS_BLOCK, block, 1, index);
  }
  for (int stride = 1; stride <= block; stride *= 2) {
    int threads = block / stride;
    snprintf(label, sizeof label, "up-sweep stride %d (%d thread%s)", stride, threads, threads == 1 ? "" : "s");
    if ((s = new_step(steps, &count, max_steps, label))) {
      instruction(s, NODE_A, block, stride, index); /* read a */
      instruction(s, NODE_B, block, stride, index); /* read b */
      instruction(s, NODE_B, block, stride, index); /* write b */
    }
  }
  for (int stride = block; stride >= 1; stride /= 2) {
    int threads = block / stride;
    snprintf(label, sizeof label, "down-sweep stride %d (%d thread%s)", stride, threads, threads == 1 ? "" : "s");
    if ((s = new_step(steps, &count, max_steps, label))) {
      instruction(s, NODE_A, block, stride, index); /* read a */
      instruction(s, NODE_B, block, stride, index); /* read b */
      instruction(s, NODE_A, block, stride, index); /* write a */
      instruction(s, NODE_B, block, stride, index); /* write b */
    }
  }
  if ((s = new_step(steps, &count, max_steps, "store (t, t+block)"))) {
    instruction(s, ELEM_T, block, 1, index);
    instruction(s, ELEM_T_PLUS_BLOCK, block, 1, index);
  }
  return count;
}
