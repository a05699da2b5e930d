/**
 * @file memcpy_async.h
 * @brief Emulation backend: `cooperative_groups/memcpy_async.h`, cg::memcpy_async and cg::wait.
 */
#ifndef SCANLAB_EMU_CG_MEMCPY_ASYNC_H
#define SCANLAB_EMU_CG_MEMCPY_ASYNC_H
/// @cond EMU_INTERNAL
#include "../cooperative_groups.h"

namespace cooperative_groups {

/* cg::memcpy_async: the group's threads copy together; cg::wait makes the copy visible. */
template <class G>
inline void memcpy_async(const G &g, void *dst, const void *src, size_t bytes) {
  const size_t r = (size_t)g.thread_rank(), n = (size_t)g.num_threads();
  unsigned char *d = static_cast<unsigned char *>(dst);
  const unsigned char *s = static_cast<const unsigned char *>(src);
  if (((reinterpret_cast<size_t>(d) | reinterpret_cast<size_t>(s) | bytes) & 3u) == 0) {
    for (size_t i = r; i < bytes / 4; i += n)
      reinterpret_cast<unsigned *>(d)[i] = reinterpret_cast<const unsigned *>(s)[i];
  } else {
    for (size_t i = r; i < bytes; i += n) d[i] = s[i];
  }
}
template <class G, class T>
inline void memcpy_async(const G &g, T *dst, size_t dst_count, const T *src, size_t src_count) {
  memcpy_async(g, (void *)dst, (const void *)src, (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
template <class G>
inline void wait(const G &g, SCANLAB_EMU_SITE) {
  g.sync(SCANLAB_EMU_AT);
}
template <unsigned N, class G>
inline void wait_prior(const G &g, SCANLAB_EMU_SITE) {
  g.sync(SCANLAB_EMU_AT);
}

}  // namespace cooperative_groups
/// @endcond
#endif /* SCANLAB_EMU_CG_MEMCPY_ASYNC_H */
