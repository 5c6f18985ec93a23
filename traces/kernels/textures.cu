// Texture and surface objects, as image and stencil codes use them: a tex1Dfetch gather from
// linear memory (out-of-range indices read zero), a bilinear resize of a pitch-linear image with
// normalized coordinates under clamp and under mirror/wrap addressing, an RGBA8 image read as
// normalized floats with border addressing and as integer elements, tex2Dgather of a bilinear
// footprint, a trilinear 3D fetch, and a Sobel filter reading one surface with clamping and
// writing another. Coordinates are computed with one rounding each (products by powers of two
// are exact), so the CPU reference (tools/kernels_make_refs.py) can follow them bit for bit.
// ptx-targets: 75 80 90 100
#include <cuda_runtime.h>

extern "C" __global__ void tex_fetch(cudaTextureObject_t src, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(src, 3 * i - 20);
}

extern "C" __global__ void tex_resize(cudaTextureObject_t clamped, cudaTextureObject_t wrapped, float* out, int ow, int oh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= ow || y >= oh) return;
  const float u = x * 0.03125f - 0.1f, v = y * 0.0625f + 0.01f;
  out[y * ow + x] = tex2D<float>(clamped, u, v);
  out[ow * oh + y * ow + x] = tex2D<float>(wrapped, u * 2.0f + 0.3f, v * 4.0f - 1.7f);
}

extern "C" __global__ void tex_rgba(cudaTextureObject_t normalized, cudaTextureObject_t elements, float4* out, unsigned* packed, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  out[y * w + x] = tex2D<float4>(normalized, x - 1.5f, y - 0.75f);
  const uchar4 e = tex2D<uchar4>(elements, x * 0.5f + 0.25f, y + 0.5f);
  packed[y * w + x] = e.x + 2u * e.y + 3u * e.z + 4u * e.w;
}

extern "C" __global__ void tex_gather(cudaTextureObject_t t, float4* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2Dgather<float4>(t, x * 0.75f + 0.2f, y * 0.5f - 0.3f, 0);
}

extern "C" __global__ void tex_volume(cudaTextureObject_t t, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = i % 10, y = (i / 10) % 8, z = i / 80;
  out[i] = tex3D<float>(t, x * 0.875f - 0.25f, y * 0.75f, z * 1.25f - 0.5f);
}

// Layered textures (cudaArrayLayered): block z picks the layer; filtering stays within it.
extern "C" __global__ void tex_layered(cudaTextureObject_t t2, cudaTextureObject_t t1, float* out, int w, int h, int layers) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, layer = blockIdx.z;
  if (x >= w || y >= h) return;
  const int i = (layer * h + y) * w + x;
  out[i] = tex2DLayered<float>(t2, x * 0.625f + 0.2f, y * 0.5f - 0.1f, layer);
  out[layers * w * h + i] = tex1DLayered<float>(t1, x * 0.625f + 0.2f, layer);
}

extern "C" __global__ void surf_sobel(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  auto p = [&](int dx, int dy) {
    unsigned char v;
    surf2Dread(&v, in, x + dx, y + dy, cudaBoundaryModeClamp);
    return static_cast<int>(v);
  };
  const int gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1);
  const int gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1);
  surf2Dwrite(static_cast<float>(abs(gx) + abs(gy)), out, x * 4, y);
}
