/**
 * @file texture.cpp
 * @brief Emulation backend: CUDA arrays (1D, 2D, 3D), texture objects and surface objects.
 *
 * An array is a device allocation whose rows lie one after another (no padding), so the
 * runtime's copies and the memory checks of device allocations apply to it. A texture object
 * is a copy of its two descriptors; a fetch (tex1Dfetch, tex1D, tex2D, tex3D) maps its
 * coordinates to texels as the CUDA Programming Guide's texture fetching appendix describes:
 * normalized coordinates scaled by the size, point sampling at floor(x), linear filtering
 * between the texels around x - 0.5 with weights of 8 fractional bits, and the address modes
 * wrap, mirror, clamp and border applied to each texel index. Reads through textures and
 * surfaces are not counted by the memory probes and not seen by the race detector.
 */
#include "emu_internal.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "cuda_fp16.h"

struct cudaArray {
  cudaChannelFormatDesc desc;
  size_t width, height, depth; /* as allocated: 0 where the array has fewer dimensions */
  unsigned flags;
  size_t elem; /* bytes per element */
  unsigned char *data;
  size_t w() const { return width; }
  size_t h() const { return height ? height : 1; }
  size_t d() const { return depth ? depth : 1; }
  size_t row() const { return width * elem; }
};

namespace scanlab_emu {

static const unsigned TEX_LIVE = 0x54455821u, TEX_DEAD = 0x44454144u;

/* What a fetch needs, resolved when the object is made. */
struct TexObj {
  unsigned magic;
  bool surface;
  cudaResourceDesc res;
  cudaTextureDesc tex;
  cudaChannelFormatDesc desc;
  unsigned char *base;
  size_t dim[3];  /* texels in x, y, z (1 where absent) */
  int dims;       /* 1, 2 or 3 */
  size_t pitch;   /* bytes from one row to the next */
  size_t slice;   /* bytes from one slice to the next */
  size_t elem;
  int comps;
  bool linear_resource; /* a linear or pitched buffer, not an array */
};

static size_t desc_bytes(const cudaChannelFormatDesc &d) { return (size_t)(d.x + d.y + d.z + d.w) / 8; }
static int desc_comps(const cudaChannelFormatDesc &d) { return (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0); }

static bool desc_ok(const cudaChannelFormatDesc &d) {
  const int c = desc_comps(d);
  if (c == 0 || c == 3 || d.f == cudaChannelFormatKindNone) return false;
  const int bits[4] = {d.x, d.y, d.z, d.w};
  for (int i = 0; i < c; i++)
    if (bits[i] != d.x || (bits[i] != 8 && bits[i] != 16 && bits[i] != 32)) return false;
  for (int i = c; i < 4; i++)
    if (bits[i] != 0) return false;
  if (d.f == cudaChannelFormatKindFloat && d.x == 8) return false;
  return true;
}

static cudaError_t refuse(const char *fn, const char *why, cudaError_t e, const char *name) {
  diag("emu: %s: %s (%s)", fn, why, name);
  set_error(e);
  return e;
}
static cudaError_t invalid(const char *fn, const char *why) {
  return refuse(fn, why, cudaErrorInvalidValue, "cudaErrorInvalidValue");
}

static TexObj *object(unsigned long long handle) {
  TexObj *o = reinterpret_cast<TexObj *>((uintptr_t)handle);
  return o && o->magic == TEX_LIVE ? o : nullptr;
}

/* ---- component values ---- */
static float component(const TexObj &o, const unsigned char *texel, int c, bool normalize) {
  const unsigned char *p = texel + (size_t)c * (o.elem / o.comps);
  const int bits = o.desc.x;
  if (o.desc.f == cudaChannelFormatKindFloat) {
    if (bits == 16) {
      unsigned short h;
      memcpy(&h, p, 2);
      return (float)fp16::to_double(h);
    }
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  const bool sgn = o.desc.f == cudaChannelFormatKindSigned;
  double v;
  if (bits == 8) v = sgn ? (double)*(const signed char *)p : (double)*p;
  else if (bits == 16) {
    unsigned short u;
    memcpy(&u, p, 2);
    v = sgn ? (double)(short)u : (double)u;
  } else {
    unsigned u;
    memcpy(&u, p, 4);
    v = sgn ? (double)(int)u : (double)u;
  }
  if (!normalize) return (float)v;
  const double full = sgn ? (bits == 8 ? 127.0 : 32767.0) : (bits == 8 ? 255.0 : 65535.0);
  const double n = v / full;
  return (float)(n < -1.0 ? -1.0 : n);
}

/* A texel index after the address mode; -1 for a border texel. */
static long long address(long long i, size_t n, cudaTextureAddressMode mode, bool normalized) {
  const long long N = (long long)n;
  if (!normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror)) mode = cudaAddressModeClamp;
  switch (mode) {
    case cudaAddressModeWrap: return ((i % N) + N) % N;
    case cudaAddressModeMirror: {
      const long long j = ((i % (2 * N)) + 2 * N) % (2 * N);
      return j < N ? j : 2 * N - 1 - j;
    }
    case cudaAddressModeBorder: return i < 0 || i >= N ? -1 : i;
    default: return i < 0 ? 0 : i >= N ? N - 1 : i;
  }
}

static const unsigned char *texel_at(const TexObj &o, const long long *idx) {
  return o.base + (size_t)idx[2] * o.slice + (size_t)idx[1] * o.pitch + (size_t)idx[0] * o.elem;
}

[[noreturn]] static void fault(const char *fn, const char *why, const char *file, int line) {
  char what[300];
  snprintf(what, sizeof what, "%s: %s", fn, why);
  device_fault(what, file, line);
}

void tex_sample(unsigned long long handle, int dims, bool fetch, float x, float y, float z, TexSample *r,
                const char *fn, const char *file, int line) {
  TexObj *o = object(handle);
  if (!o || o->surface) fault(fn, "not a live texture object", file, line);
  const bool normalize = o->tex.readMode == cudaReadModeNormalizedFloat && o->desc.f != cudaChannelFormatKindFloat;
  const bool half = o->desc.f == cudaChannelFormatKindFloat && o->desc.x == 16;
  memset(r, 0, sizeof *r);
  r->elem = o->elem;
  r->comps = o->comps;
  r->floats = normalize || half || o->tex.filterMode == cudaFilterModeLinear;
  if (fetch) {
    if (!o->linear_resource || o->dims != 1) fault(fn, "tex1Dfetch reads a texture over linear memory", file, line);
    const long long i = (long long)x;
    if (i < 0 || (size_t)i >= o->dim[0]) return; /* zero, as the GPU returns */
    const unsigned char *t = o->base + (size_t)i * o->elem;
    if (r->floats)
      for (int c = 0; c < o->comps; c++) r->f[c] = component(*o, t, c, normalize);
    else
      memcpy(r->raw, t, o->elem);
    return;
  }
  if (dims != o->dims)
    fault(fn, dims == 1 ? "the texture is not one-dimensional" : dims == 2 ? "the texture is not two-dimensional"
                                                                          : "the texture is not three-dimensional",
          file, line);
  const float c[3] = {x, y, z};
  /* coordinates in single precision, as the texture unit takes them: 0.06f scaled by 100 is
   * texel 6 (in double it would be 5.9999998) */
  volatile float pos[3];
  for (int k = 0; k < dims; k++) pos[k] = o->tex.normalizedCoords ? c[k] * (float)o->dim[k] : c[k];
  const bool lin = o->tex.filterMode == cudaFilterModeLinear;
  long long base[3] = {0, 0, 0};
  double frac[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++) {
    if (lin) {
      const float b = pos[k] - 0.5f;
      base[k] = (long long)floorf(b);
      frac[k] = std::round((double)(b - floorf(b)) * 256.0) / 256.0; /* 8 fractional bits, as the hardware */
    } else {
      base[k] = (long long)floorf(pos[k]);
    }
  }
  float acc[4] = {0, 0, 0, 0};
  const int corners = lin ? 1 << dims : 1;
  for (int m = 0; m < corners; m++) {
    long long idx[3] = {0, 0, 0};
    double wgt = 1.0;
    bool border = false;
    for (int k = 0; k < dims; k++) {
      const int up = (m >> k) & 1;
      wgt *= up ? frac[k] : 1.0 - frac[k];
      idx[k] = address(base[k] + up, o->dim[k], o->tex.addressMode[k], o->tex.normalizedCoords != 0);
      if (idx[k] < 0) border = true;
    }
    if (!lin) wgt = 1.0;
    if (wgt == 0.0) continue;
    if (border) {
      for (int q = 0; q < o->comps; q++) acc[q] += (float)(wgt * o->tex.borderColor[q]);
      if (!r->floats) { /* an element-type read of a border texel: the border colour's bits are not kept */
        memset(r->raw, 0, sizeof r->raw);
        return;
      }
      continue;
    }
    const unsigned char *t = texel_at(*o, idx);
    if (!r->floats) {
      memcpy(r->raw, t, o->elem);
      return;
    }
    for (int q = 0; q < o->comps; q++) acc[q] += (float)(wgt * component(*o, t, q, normalize));
  }
  for (int q = 0; q < 4; q++) r->f[q] = acc[q];
}

void *surf_address(unsigned long long handle, int dims, long long xb, long long y, long long z, size_t bytes,
                   int mode, const char *fn, const char *file, int line) {
  TexObj *o = object(handle);
  if (!o || !o->surface) fault(fn, "not a live surface object", file, line);
  if (dims != o->dims) fault(fn, "the surface has another number of dimensions", file, line);
  if (xb % (long long)bytes != 0 && mode != cudaBoundaryModeClamp) {
    char why[160];
    snprintf(why, sizeof why, "x = %lld bytes is not a multiple of the %zu-byte value", xb, bytes);
    fault(fn, why, file, line);
  }
  long long c[3] = {xb, y, z};
  const long long limit[3] = {(long long)(o->dim[0] * o->elem), (long long)o->dim[1], (long long)o->dim[2]};
  for (int k = 0; k < dims; k++) {
    const long long hi = k == 0 ? limit[0] - (long long)bytes : limit[k] - 1;
    if (c[k] >= 0 && c[k] <= hi) continue;
    if (mode == cudaBoundaryModeZero) return nullptr;
    if (mode == cudaBoundaryModeClamp) {
      c[k] = c[k] < 0 ? 0 : hi;
      continue;
    }
    char why[200];
    snprintf(why, sizeof why, "coordinate (%lld, %lld, %lld) is outside the %zu x %zu x %zu surface "
             "(x in bytes; cudaBoundaryModeTrap)", xb, y, z, o->dim[0] * o->elem, o->dim[1], o->dim[2]);
    fault(fn, why, file, line);
  }
  return o->base + (size_t)c[2] * o->slice + (size_t)c[1] * o->pitch + (size_t)c[0];
}

}  // namespace scanlab_emu

using namespace scanlab_emu;

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

static cudaError_t make_array(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t w, size_t h, size_t d,
                              unsigned flags, const char *fn) {
  if (sticky_error() != cudaSuccess) return sticky_error();
  if (!array || !desc) return invalid(fn, "a null pointer argument");
  if (!desc_ok(*desc))
    return invalid(fn, "the channel format must have 1, 2 or 4 components of 8, 16 or 32 bits each");
  if (flags & cudaArrayLayered) return invalid(fn, "layered arrays are not supported by the emulator");
  if (w == 0 || (d && !h)) return invalid(fn, "an empty extent");
  cudaArray *a = new cudaArray();
  a->desc = *desc;
  a->width = w;
  a->height = h;
  a->depth = d;
  a->flags = flags;
  a->elem = desc_bytes(*desc);
  void *p = nullptr;
  const cudaError_t e = cudaMalloc(&p, a->row() * a->h() * a->d());
  if (e != cudaSuccess) {
    delete a;
    return e;
  }
  a->data = (unsigned char *)p;
  *array = a;
  return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags) {
  return make_array(array, desc, width, height, 0, flags, "cudaMallocArray");
}
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent,
                              unsigned int flags) {
  return make_array(array, desc, extent.width, extent.height, extent.depth, flags, "cudaMalloc3DArray");
}
cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array) return cudaSuccess;
  SyncCall sc("cudaFreeArray");
  const cudaError_t e = cudaFree(array->data);
  delete array;
  return e;
}
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags, cudaArray_t array) {
  if (!array) return invalid("cudaArrayGetInfo", "a null array");
  if (desc) *desc = array->desc;
  if (extent) *extent = cudaExtent{array->width, array->height, array->depth};
  if (flags) *flags = array->flags;
  return cudaSuccess;
}

/* A rectangle of an array: offsets and width in bytes, rows as given. */
static cudaError_t array_rect(const char *fn, const cudaArray *a, size_t wOffset, size_t hOffset, size_t width,
                              size_t height) {
  if (!a) return invalid(fn, "a null array");
  if (wOffset + width > a->row() || hOffset + height > a->h() * a->d()) {
    char why[200];
    snprintf(why, sizeof why, "%zu bytes x %zu rows at (%zu, %zu) do not fit the array's %zu bytes x %zu rows", width,
             height, wOffset, hOffset, a->row(), a->h() * a->d());
    return invalid(fn, why);
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
  SyncCall sc("cudaMemcpy2DToArray");
  const cudaError_t e = array_rect("cudaMemcpy2DToArray", dst, wOffset, hOffset, width, height);
  if (e != cudaSuccess) return e;
  if (kind == cudaMemcpyHostToHost || kind == cudaMemcpyDeviceToHost)
    return invalid("cudaMemcpy2DToArray", "the destination is an array, on the device");
  return cudaMemcpy2D(dst->data + hOffset * dst->row() + wOffset, dst->row(), src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  (void)stream;
  SyncCall quiet(nullptr);
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, cudaMemcpyKind kind) {
  SyncCall sc("cudaMemcpy2DFromArray");
  const cudaError_t e = array_rect("cudaMemcpy2DFromArray", src, wOffset, hOffset, width, height);
  if (e != cudaSuccess) return e;
  return cudaMemcpy2D(dst, dpitch, src->data + hOffset * src->row() + wOffset, src->row(), width, height, kind);
}
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  (void)stream;
  SyncCall quiet(nullptr);
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}
/* The deprecated linear forms: count bytes from (wOffset, hOffset) on, row after row. */
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              cudaMemcpyKind kind) {
  SyncCall sc("cudaMemcpyToArray");
  if (!dst) return invalid("cudaMemcpyToArray", "a null array");
  const size_t start = hOffset * dst->row() + wOffset, total = dst->row() * dst->h() * dst->d();
  if (wOffset > dst->row() || start + count > total) return invalid("cudaMemcpyToArray", "the copy runs past the array");
  return cudaMemcpy(dst->data + start, src, count, kind);
}
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                cudaMemcpyKind kind) {
  SyncCall sc("cudaMemcpyFromArray");
  if (!src) return invalid("cudaMemcpyFromArray", "a null array");
  const size_t start = hOffset * src->row() + wOffset, total = src->row() * src->h() * src->d();
  if (wOffset > src->row() || start + count > total)
    return invalid("cudaMemcpyFromArray", "the copy runs past the array");
  return cudaMemcpy(dst, src->data + start, count, kind);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     cudaMemcpyKind kind) {
  SyncCall sc("cudaMemcpy2DArrayToArray");
  cudaError_t e = array_rect("cudaMemcpy2DArrayToArray", dst, wOffsetDst, hOffsetDst, width, height);
  if (e == cudaSuccess) e = array_rect("cudaMemcpy2DArrayToArray", src, wOffsetSrc, hOffsetSrc, width, height);
  if (e != cudaSuccess) return e;
  (void)kind;
  return cudaMemcpy2D(dst->data + hOffsetDst * dst->row() + wOffsetDst, dst->row(),
                      src->data + hOffsetSrc * src->row() + wOffsetSrc, src->row(), width, height,
                      cudaMemcpyDeviceToDevice);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr *p, cudaExtent extent) {
  if (!p) return invalid("cudaMalloc3D", "a null pointer argument");
  size_t pitch = 0;
  void *ptr = nullptr;
  const cudaError_t e = cudaMallocPitch(&ptr, &pitch, extent.width, extent.height * extent.depth);
  if (e != cudaSuccess) return e;
  *p = cudaPitchedPtr{ptr, pitch, extent.width, extent.height};
  return cudaSuccess;
}
cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  SyncCall sc("cudaMemset3D");
  for (size_t z = 0; z < extent.depth; z++) {
    const cudaError_t e =
        cudaMemset2D((char *)p.ptr + z * p.pitch * p.ysize, p.pitch, value, extent.width, extent.height);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
/* One side of a 3D copy: where it starts, its row pitch and slice pitch in bytes, and the
 * bytes of an element (1 for a pitched pointer, whose extent is in bytes). */
struct Side {
  unsigned char *base;
  size_t pitch, slice, elem;
};
static Side side(cudaArray_t a, cudaPos pos, cudaPitchedPtr p) {
  if (a) {
    const size_t slice = a->row() * a->h();
    return Side{a->data + pos.z * slice + pos.y * a->row() + pos.x * a->elem, a->row(), slice, a->elem};
  }
  const size_t slice = p.pitch * p.ysize;
  return Side{(unsigned char *)p.ptr + pos.z * slice + pos.y * p.pitch + pos.x, p.pitch, slice, 1};
}
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  SyncCall sc(p && p->kind == cudaMemcpyHostToHost ? nullptr : "cudaMemcpy3D");
  if (!p) return invalid("cudaMemcpy3D", "null parameters");
  if ((!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr))
    return invalid("cudaMemcpy3D", "a side with neither an array nor a pointer");
  const Side s = side(p->srcArray, p->srcPos, p->srcPtr), d = side(p->dstArray, p->dstPos, p->dstPtr);
  /* the extent is in elements where an array is involved, else in bytes */
  const size_t elem = p->srcArray ? s.elem : p->dstArray ? d.elem : 1;
  const size_t bytes = p->extent.width * elem;
  const cudaArray *arrays[2] = {p->srcArray, p->dstArray};
  const cudaPos poss[2] = {p->srcPos, p->dstPos};
  for (int k = 0; k < 2; k++)
    if (arrays[k] && (poss[k].x * arrays[k]->elem + bytes > arrays[k]->row() ||
                      poss[k].y + p->extent.height > arrays[k]->h() || poss[k].z + p->extent.depth > arrays[k]->d()))
      return invalid("cudaMemcpy3D", k ? "the copy runs past the destination array" : "the copy runs past the source array");
  for (size_t z = 0; z < p->extent.depth; z++) {
    const cudaError_t e = cudaMemcpy2D(d.base + z * d.slice, d.pitch, s.base + z * s.slice, s.pitch, bytes,
                                       p->extent.height, p->kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  (void)stream;
  SyncCall quiet(nullptr);
  return cudaMemcpy3D(p);
}

static cudaError_t make_object(unsigned long long *out, const cudaResourceDesc *res, const cudaTextureDesc *tex,
                               bool surface, const char *fn) {
  if (sticky_error() != cudaSuccess) return sticky_error();
  if (!out || !res || (!surface && !tex)) return invalid(fn, "a null pointer argument");
  TexObj o;
  memset(&o, 0, sizeof o);
  o.magic = TEX_LIVE;
  o.surface = surface;
  o.res = *res;
  if (tex) o.tex = *tex;
  o.dim[0] = o.dim[1] = o.dim[2] = 1;
  switch (res->resType) {
    case cudaResourceTypeArray: {
      const cudaArray *a = res->res.array.array;
      if (!a) return invalid(fn, "a null array");
      if (surface && !(a->flags & cudaArraySurfaceLoadStore))
        return invalid(fn, "the array was not allocated with cudaArraySurfaceLoadStore");
      o.desc = a->desc;
      o.base = a->data;
      o.dim[0] = a->w();
      o.dim[1] = a->h();
      o.dim[2] = a->d();
      o.dims = a->depth ? 3 : a->height ? 2 : 1;
      o.pitch = a->row();
      o.slice = a->row() * a->h();
      break;
    }
    case cudaResourceTypeLinear:
      if (surface) return invalid(fn, "a surface needs an array");
      o.desc = res->res.linear.desc;
      if (!desc_ok(o.desc)) return invalid(fn, "the channel format must have 1, 2 or 4 components of 8, 16 or 32 bits");
      o.base = (unsigned char *)res->res.linear.devPtr;
      o.dim[0] = res->res.linear.sizeInBytes / desc_bytes(o.desc);
      o.dims = 1;
      o.linear_resource = true;
      if (!range_is_device(o.base, res->res.linear.sizeInBytes))
        return invalid(fn, "the linear resource is not device memory of that size");
      break;
    case cudaResourceTypePitch2D:
      if (surface) return invalid(fn, "a surface needs an array");
      o.desc = res->res.pitch2D.desc;
      if (!desc_ok(o.desc)) return invalid(fn, "the channel format must have 1, 2 or 4 components of 8, 16 or 32 bits");
      o.base = (unsigned char *)res->res.pitch2D.devPtr;
      o.dim[0] = res->res.pitch2D.width;
      o.dim[1] = res->res.pitch2D.height;
      o.dims = 2;
      o.pitch = res->res.pitch2D.pitchInBytes;
      o.linear_resource = true;
      if (o.pitch < o.dim[0] * desc_bytes(o.desc)) return invalid(fn, "the pitch is smaller than a row");
      if (!range_is_device(o.base, o.pitch * (o.dim[1] - 1) + o.dim[0] * desc_bytes(o.desc)))
        return invalid(fn, "the pitched resource is not device memory of that size");
      break;
    default:
      return invalid(fn, "mipmapped arrays are not supported by the emulator");
  }
  o.elem = desc_bytes(o.desc);
  o.comps = desc_comps(o.desc);
  if (!surface) {
    const bool floats = o.desc.f == cudaChannelFormatKindFloat;
    if (o.tex.readMode == cudaReadModeNormalizedFloat && !floats && o.desc.x == 32)
      return invalid(fn, "cudaReadModeNormalizedFloat needs 8- or 16-bit integer components");
    if (o.tex.filterMode == cudaFilterModeLinear && !floats && o.tex.readMode != cudaReadModeNormalizedFloat)
      /* the error an H200 gives with CUDA 13.0, for a linear or an array resource alike */
      return refuse(fn, "linear filtering needs float components or cudaReadModeNormalizedFloat",
                    cudaErrorInvalidFilterSetting, "cudaErrorInvalidFilterSetting");
  }
  TexObj *p = new TexObj(o);
  *out = (unsigned long long)(uintptr_t)p;
  return cudaSuccess;
}
/* Destroyed objects stay allocated, marked dead, so a fetch through one is reported. */
static cudaError_t destroy_object(unsigned long long h, bool surface) {
  TexObj *o = object(h);
  if (!o || o->surface != surface) return cudaErrorInvalidValue;
  o->magic = TEX_DEAD;
  return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const cudaResourceDesc *pResDesc,
                                    const cudaTextureDesc *pTexDesc, const cudaResourceViewDesc *pResViewDesc) {
  if (pResViewDesc) return invalid("cudaCreateTextureObject", "resource views are not supported by the emulator");
  return make_object(pTexObject, pResDesc, pTexDesc, false, "cudaCreateTextureObject");
}
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) { return destroy_object(texObject, false); }
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc, cudaTextureObject_t texObject) {
  TexObj *o = object(texObject);
  if (!o || o->surface || !pResDesc) return cudaErrorInvalidValue;
  *pResDesc = o->res;
  return cudaSuccess;
}
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject) {
  TexObj *o = object(texObject);
  if (!o || o->surface || !pTexDesc) return cudaErrorInvalidValue;
  *pTexDesc = o->tex;
  return cudaSuccess;
}
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const cudaResourceDesc *pResDesc) {
  return make_object(pSurfObject, pResDesc, nullptr, true, "cudaCreateSurfaceObject");
}
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) { return destroy_object(surfObject, true); }
