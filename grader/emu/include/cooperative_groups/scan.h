/**
 * @file scan.h
 * @brief Emulation backend: `cooperative_groups/scan.h`, cg::inclusive_scan and cg::exclusive_scan over a tile or a coalesced group.
 */
#ifndef SCANLAB_EMU_CG_SCAN_H
#define SCANLAB_EMU_CG_SCAN_H
/// @cond EMU_INTERNAL
#include "../cooperative_groups.h"
#include "details/functional.h"

namespace cooperative_groups {

/* cg::inclusive_scan and cg::exclusive_scan over a tile or a coalesced group (by rank). */
template <class G, class T, class Op>
inline T inclusive_scan(const G &g, T val, Op op, SCANLAB_EMU_SITE) {
  static_assert(std::is_base_of<details::warp_group, G>::value,
                "cg::inclusive_scan takes a thread_block_tile or a coalesced_group");
  const unsigned n = (unsigned)g.num_threads(), r = g.thread_rank();
  for (unsigned d = 1; d < n; d <<= 1) {
    T other = g.shfl_up(val, d, SCANLAB_EMU_AT);
    if (r >= d) val = op(other, val);
  }
  return val;
}
template <class G, class T>
inline T inclusive_scan(const G &g, T val, SCANLAB_EMU_SITE) {
  return inclusive_scan(g, val, plus<T>(), SCANLAB_EMU_AT);
}
template <class G, class T, class Op>
inline T exclusive_scan(const G &g, T val, Op op, SCANLAB_EMU_SITE) {
  T inc = inclusive_scan(g, val, op, SCANLAB_EMU_AT);
  T prev = g.shfl_up(inc, 1, SCANLAB_EMU_AT);
  return g.thread_rank() == 0 ? T() : prev;
}
template <class G, class T>
inline T exclusive_scan(const G &g, T val, SCANLAB_EMU_SITE) {
  return exclusive_scan(g, val, plus<T>(), SCANLAB_EMU_AT);
}

}  // namespace cooperative_groups
/// @endcond
#endif /* SCANLAB_EMU_CG_SCAN_H */
