/**
 * @file details/functional.h
 * @brief Emulation backend: `cooperative_groups/details/functional.h`, the operators cg::reduce and the scans take (included by reduce.h and scan.h).
 */
#ifndef SCANLAB_EMU_CG_FUNCTIONAL_H
#define SCANLAB_EMU_CG_FUNCTIONAL_H
/// @cond EMU_INTERNAL
#include "../../cooperative_groups.h"

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(const T &a, const T &b) const { return a ^ b; }
};

}  // namespace cooperative_groups
/// @endcond
#endif /* SCANLAB_EMU_CG_FUNCTIONAL_H */
