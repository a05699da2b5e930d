/**
 * @file reduce.h
 * @brief Emulation backend: `cooperative_groups/reduce.h`, cg::reduce over a tile or a coalesced group.
 */
#ifndef SCANLAB_EMU_CG_REDUCE_H
#define SCANLAB_EMU_CG_REDUCE_H
/// @cond EMU_INTERNAL
#include "../cooperative_groups.h"
#include "details/functional.h"

namespace cooperative_groups {

/* cg::reduce over a tile or a coalesced group: every thread gets the result. */
template <class G, class T, class Op>
inline T reduce(const G &g, T val, Op op, SCANLAB_EMU_SITE) {
  static_assert(std::is_base_of<details::warp_group, G>::value,
                "cg::reduce takes a thread_block_tile or a coalesced_group");
  const unsigned n = (unsigned)g.num_threads(), r = g.thread_rank();
  for (unsigned d = 1; d < n; d <<= 1) {
    T other = g.shfl_down(val, d, SCANLAB_EMU_AT);
    if (r + d < n) val = op(val, other);
  }
  return g.shfl(val, 0, SCANLAB_EMU_AT);
}

}  // namespace cooperative_groups
/// @endcond
#endif /* SCANLAB_EMU_CG_REDUCE_H */
