// Lab 12: read-only data and textures, and what still pays. The only file you edit; the handout is README.md
// beside it.
// Part A: a gather that reads a table at positions an index array gives. The read-only data cache is reached by
// `const __restrict__` or `__ldg`; the machine code shows whether your loads take it.
// Part B: a resample (rotate and scale an image) through a texture object, whose hardware does the bilinear
// filter. The handout's table gives the figures on an H100 and the speed bars.
#include "readonly_texture.hpp"

// ---- Part A: a gather with reuse ----

namespace {

constexpr int kBlock = 256;

// TODO 2: tell the compiler that table and index are only read, and out is only written, so that it may load
//   table by the read-only path.
//   Hint: `const float* __restrict__ table`, and the same on the other two pointers: __restrict__ promises that
//   no other pointer reaches the same memory. Or read each entry with __ldg(&table[...]). Then look for
//   LDG.E.CONSTANT in `cuobjdump -sass` of your object (the handout shows how).
__global__ void gather_kernel(const float* table, const int* index, float* out, int n)
{
    // TODO 1: thread i (when i < n) writes out[i], the sum of table[index[i * kTaps + k]] for k = 0 .. kTaps - 1.
    //   Hint: index the index array with std::size_t(i) * kTaps + k: n * kTaps passes 2^31 long before n does.
}

}  // namespace

void gather(const float* table, const int* index, float* out, int n)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    gather_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(table, index, out, n);
    CML_CHECK_LAUNCH();
}

// ---- Part B: a resample through a texture ----

namespace {

constexpr int kTile = 16;  // a 16 x 16 block of output pixels

// The texture object set_image makes, and what it needs to free the image's copy at the next set_image.
cudaArray_t image_array = nullptr;
cudaTextureObject_t image_texture = 0;
int image_width = 0, image_height = 0;

__global__ void resample_kernel(cudaTextureObject_t image, int width, int height, float* __restrict__ out,
                                int out_width, int out_height, Transform t)
{
    // TODO 4: output pixel (x, y) (when inside out_width x out_height) takes the texture at the source point.
    //   Hint: source_point(t, x, y, width, height, out_width, out_height) gives the point in texels, and
    //   tex2D<float>(image, p.x, p.y) fetches it, filtered as TODO 3 asked. One line each: no interpolation by
    //   hand, the texture unit does it.
}

}  // namespace

void set_image(const float* image, int width, int height)
{
    // TODO 3: copy the image into a CUDA array and make a texture object over it; free the previous ones first.
    //   Then delete the CML_TODO line.
    //   Hint: cudaCreateChannelDesc<float>(), cudaMallocArray, then cudaMemcpy2DToArray (rows of
    //   width * sizeof(float) bytes, cudaMemcpyDeviceToDevice). The object: a cudaResourceDesc of type
    //   cudaResourceTypeArray, and a cudaTextureDesc with clamp addressing on both axes, linear filtering, the
    //   element type read as it is and coordinates in texels (not normalized); cudaCreateTextureObject. Each
    //   call under CML_CHECK. The handout's "Texture objects" section walks through it.
    CML_TODO("TODO 3: make the texture object (labs/12_readonly_texture/kernel.cu)");
    (void)image;
    image_width = width;
    image_height = height;
}

void resample(float* out, int out_width, int out_height, const Transform& t)
{
    if (out_width == 0 || out_height == 0) return;
    const dim3 grid(cml::ceil_div(out_width, kTile), cml::ceil_div(out_height, kTile));
    resample_kernel<<<grid, dim3(kTile, kTile)>>>(image_texture, image_width, image_height, out, out_width,
                                                  out_height, t);
    CML_CHECK_LAUNCH();
}
