// The texture fetches of the texture objects the labs' calls make (common/emu/device_api.txt:
// texture_indirect_functions.h): tex1Dfetch over linear memory, tex1D over a 1D CUDA array, tex2D and its Lod,
// Grad, sparse and gather forms over 2D arrays and pitched memory; formats of 1, 2 and 4 channels (float, half,
// uchar4 read as normalized floats, int2); point and linear filtering; clamp, border, wrap and mirror addressing.
// Each fetch is compared with the texel the host picks, or the blend of two or four texels by weights that are
// exact multiples of 1/256 (as the hardware keeps them), so the reference is the same on any GPU. Run on the CPU
// emulator by grader/tests/emulator/test_emulator_device_api.py; main returns how many checks failed.
#include <cuda_fp16.h>

#include "checks.cuh"

namespace {

constexpr int kWidth = 8, kHeight = 4;

float texel_value(int x, int y) { return float(10 * y + x) + 0.5f; }

cudaTextureDesc sampling(cudaTextureFilterMode filter, cudaTextureAddressMode address, bool normalized,
                         cudaTextureReadMode read = cudaReadModeElementType)
{
    cudaTextureDesc d{};
    d.addressMode[0] = d.addressMode[1] = address;
    d.filterMode = filter;
    d.readMode = read;
    d.normalizedCoords = normalized;
    d.borderColor[0] = -1.0f;
    return d;
}

cudaTextureObject_t over_array(cudaArray_t array, const cudaTextureDesc& d)
{
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureObject_t texture = 0;
    EXPECT(cudaCreateTextureObject(&texture, &resource, &d, nullptr) == cudaSuccess);
    return texture;
}

// ---- tex1Dfetch over linear memory ----

__global__ void fetch_linear(cudaTextureObject_t texture, float* out)
{
    const int i = int(threadIdx.x);
    out[i] = tex1Dfetch<float>(texture, i - 2);  // the first two and the last past the buffer: zeros
    if (i == 0) tex1Dfetch(&out[blockDim.x], texture, 3);
}

void check_linear()
{
    std::vector<float> values(16);
    for (int i = 0; i < 16; ++i) values[std::size_t(i)] = float(i) * 1.5f;
    checks::Device<float> buffer(values), out(21);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = buffer.data;
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
    resource.res.linear.sizeInBytes = values.size() * sizeof(float);
    const cudaTextureDesc d = sampling(cudaFilterModePoint, cudaAddressModeClamp, false);
    cudaTextureObject_t texture = 0;
    EXPECT(cudaCreateTextureObject(&texture, &resource, &d, nullptr) == cudaSuccess);
    fetch_linear<<<1, 20>>>(texture, out.data);
    const std::vector<float> got = out.host();
    for (int i = 0; i < 20; ++i) EXPECT(got[std::size_t(i)] == (i >= 2 && i - 2 < 16 ? values[std::size_t(i - 2)] : 0.0f));
    EXPECT(got[20] == values[3]);
    EXPECT(cudaDestroyTextureObject(texture) == cudaSuccess);
}

// ---- tex1D over a 1D array: point and linear ----

__global__ void fetch_1d(cudaTextureObject_t point, cudaTextureObject_t linear, float* out)
{
    out[0] = tex1D<float>(point, 2.7f);
    out[1] = tex1D<float>(linear, 3.25f);   // x - 0.5 = 2.75: 1/4 of texel 2 and 3/4 of texel 3
    out[2] = tex1D<float>(point, -3.0f);    // clamped to texel 0
    out[3] = tex1DLod<float>(point, 5.5f, 2.0f);  // no mipmaps: level 0
    out[4] = tex1DGrad<float>(linear, 3.25f, 0.1f, 0.2f);
    tex1D(&out[5], point, 6.1f);
    tex1DLod(&out[6], point, 6.1f, 1.0f);
    tex1DGrad(&out[7], point, 7.9f, 0.0f, 0.0f);
}

void check_1d()
{
    const cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    EXPECT(cudaMallocArray(&array, &channel, kWidth, 0) == cudaSuccess);
    std::vector<float> row(kWidth);
    for (int x = 0; x < kWidth; ++x) row[std::size_t(x)] = texel_value(x, 0);
    EXPECT(cudaMemcpy2DToArray(array, 0, 0, row.data(), sizeof(float) * kWidth, sizeof(float) * kWidth, 1,
                               cudaMemcpyHostToDevice) == cudaSuccess);
    const cudaTextureObject_t point = over_array(array, sampling(cudaFilterModePoint, cudaAddressModeClamp, false));
    const cudaTextureObject_t linear = over_array(array, sampling(cudaFilterModeLinear, cudaAddressModeClamp, false));
    checks::Device<float> out(8);
    fetch_1d<<<1, 1>>>(point, linear, out.data);
    const std::vector<float> got = out.host();
    const float blend = 0.25f * row[2] + 0.75f * row[3];
    const float want[8] = {row[2], blend, row[0], row[5], blend, row[6], row[6], row[7]};
    for (int i = 0; i < 8; ++i) EXPECT(got[std::size_t(i)] == want[i]);
    cudaDestroyTextureObject(point);
    cudaDestroyTextureObject(linear);
    cudaFreeArray(array);
}

// ---- tex2D over a 2D array of float: every form ----

__global__ void fetch_2d(cudaTextureObject_t point, cudaTextureObject_t linear, cudaTextureObject_t border,
                         cudaTextureObject_t wrap, cudaTextureObject_t mirror, float* out, float4* gathered)
{
    bool resident = false;
    out[0] = tex2D<float>(point, 3.5f, 2.5f);
    out[1] = tex2D<float>(linear, 2.75f, 1.25f);  // (i, j) = (2, 0), weights 1/4 and 3/4
    out[2] = tex2DLod<float>(linear, 2.75f, 1.25f, 3.0f);
    out[3] = tex2DGrad<float>(linear, 2.75f, 1.25f, make_float2(1, 0), make_float2(0, 1));
    out[4] = tex2D<float>(border, -1.0f, 1.5f);  // past the edge: the border colour
    out[5] = tex2D<float>(wrap, 1.0f + 1.5f / kWidth, 0.5f / kHeight);  // wraps to texel (1, 0)
    out[6] = tex2D<float>(mirror, -0.5f / kWidth, -1.5f / kHeight);   // mirrors to texel (0, 1)
    out[7] = tex2D<float>(point, 1.5f, 1.5f, &resident) + float(resident) * 1000.0f;
    out[8] = tex2DLod<float>(point, 1.5f, 1.5f, 0.0f, &resident) + float(resident) * 1000.0f;
    out[9] = tex2DGrad<float>(point, 1.5f, 1.5f, make_float2(1, 0), make_float2(0, 1), &resident) + float(resident) * 1000.0f;
    tex2D(&out[10], point, 6.5f, 3.5f);
    tex2DLod(&out[11], point, 6.5f, 3.5f, 1.0f);
    tex2DGrad(&out[12], point, 6.5f, 3.5f, make_float2(1, 0), make_float2(0, 1));
    gathered[0] = tex2Dgather<float4>(point, 2.0f, 2.0f);  // the texels (1..2, 1..2)
    gathered[1] = tex2Dgather<float4>(point, 2.0f, 2.0f, &resident, 0);
    tex2Dgather(&gathered[2], point, 2.0f, 2.0f, 0);
}

void check_2d()
{
    const cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    EXPECT(cudaMallocArray(&array, &channel, kWidth, kHeight) == cudaSuccess);
    std::vector<float> image(kWidth * kHeight);
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) image[std::size_t(y * kWidth + x)] = texel_value(x, y);
    EXPECT(cudaMemcpy2DToArray(array, 0, 0, image.data(), sizeof(float) * kWidth, sizeof(float) * kWidth, kHeight,
                               cudaMemcpyHostToDevice) == cudaSuccess);
    const cudaTextureObject_t point = over_array(array, sampling(cudaFilterModePoint, cudaAddressModeClamp, false));
    const cudaTextureObject_t linear = over_array(array, sampling(cudaFilterModeLinear, cudaAddressModeClamp, false));
    const cudaTextureObject_t border = over_array(array, sampling(cudaFilterModePoint, cudaAddressModeBorder, false));
    const cudaTextureObject_t wrap = over_array(array, sampling(cudaFilterModePoint, cudaAddressModeWrap, true));
    const cudaTextureObject_t mirror = over_array(array, sampling(cudaFilterModePoint, cudaAddressModeMirror, true));
    checks::Device<float> out(13);
    checks::Device<float4> gathered(3);
    fetch_2d<<<1, 1>>>(point, linear, border, wrap, mirror, out.data, gathered.data);
    const std::vector<float> got = out.host();
    const auto at = [&](int x, int y) { return image[std::size_t(y * kWidth + x)]; };
    const float blend = 0.75f * 0.25f * at(2, 0) + 0.25f * 0.25f * at(3, 0) + 0.75f * 0.75f * at(2, 1) +
                        0.25f * 0.75f * at(3, 1);
    const float want[13] = {at(3, 2), blend, blend, blend, -1.0f, at(1, 0), at(0, 1), at(1, 1) + 1000, at(1, 1) + 1000,
                            at(1, 1) + 1000, at(6, 3), at(6, 3), at(6, 3)};
    for (int i = 0; i < 13; ++i) EXPECT(std::fabs(got[std::size_t(i)] - want[i]) <= 1e-4f * std::fabs(want[i]));
    for (const float4& g : gathered.host())
        EXPECT(g.x == at(1, 2) && g.y == at(2, 2) && g.z == at(2, 1) && g.w == at(1, 1));
    for (cudaTextureObject_t t : {point, linear, border, wrap, mirror}) cudaDestroyTextureObject(t);
    cudaFreeArray(array);
}

// ---- other formats: uchar4 read as normalized floats, int2 over pitched memory, half ----

__global__ void fetch_formats(cudaTextureObject_t colour, cudaTextureObject_t pairs, cudaTextureObject_t halves,
                              float4* colour_out, int2* pairs_out, float* halves_out)
{
    colour_out[0] = tex2D<float4>(colour, 1.5f, 0.5f);
    pairs_out[0] = tex2D<int2>(pairs, 2.5f, 1.5f);
    halves_out[0] = tex2D<float>(halves, 0.75f, 0.5f);  // linear, between texels 0 and 1
}

void check_formats()
{
    // uchar4, 2 x 1, normalized reads: 255 is 1.0.
    const cudaChannelFormatDesc rgba = cudaCreateChannelDesc<uchar4>();
    cudaArray_t colours = nullptr;
    EXPECT(cudaMallocArray(&colours, &rgba, 2, 1) == cudaSuccess);
    const uchar4 pixels[2] = {make_uchar4(0, 0, 0, 0), make_uchar4(255, 51, 0, 102)};
    EXPECT(cudaMemcpy2DToArray(colours, 0, 0, pixels, sizeof pixels, sizeof pixels, 1, cudaMemcpyHostToDevice) == cudaSuccess);
    const cudaTextureObject_t colour =
        over_array(colours, sampling(cudaFilterModePoint, cudaAddressModeClamp, false, cudaReadModeNormalizedFloat));
    // int2 in pitched device memory, 4 x 2, rows 64 bytes apart.
    int2* pitched = nullptr;
    std::size_t pitch = 0;
    EXPECT(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, 4 * sizeof(int2), 2) == cudaSuccess);
    int2 rows[2][4];
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 4; ++x) rows[y][x] = make_int2(x + 10 * y, -(x + 10 * y));
    EXPECT(cudaMemcpy2D(pitched, pitch, rows, sizeof rows[0], sizeof rows[0], 2, cudaMemcpyHostToDevice) == cudaSuccess);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = pitched;
    resource.res.pitch2D.desc = cudaCreateChannelDesc<int2>();
    resource.res.pitch2D.width = 4;
    resource.res.pitch2D.height = 2;
    resource.res.pitch2D.pitchInBytes = pitch;
    const cudaTextureDesc element = sampling(cudaFilterModePoint, cudaAddressModeClamp, false);
    cudaTextureObject_t pairs = 0;
    EXPECT(cudaCreateTextureObject(&pairs, &resource, &element, nullptr) == cudaSuccess);
    // half, 2 x 1, linear: at x = 0.75 the texels around x - 0.5 = 0.25 are 0 and 1, weighed 3/4 and 1/4.
    const cudaChannelFormatDesc half_channel = cudaCreateChannelDescHalf();
    cudaArray_t halves_array = nullptr;
    EXPECT(cudaMallocArray(&halves_array, &half_channel, 2, 1) == cudaSuccess);
    const __half half_texels[2] = {__float2half(2.0f), __float2half(6.0f)};
    EXPECT(cudaMemcpy2DToArray(halves_array, 0, 0, half_texels, sizeof half_texels, sizeof half_texels, 1,
                               cudaMemcpyHostToDevice) == cudaSuccess);
    const cudaTextureObject_t halves = over_array(halves_array, sampling(cudaFilterModeLinear, cudaAddressModeClamp, false));
    checks::Device<float4> colour_out(1);
    checks::Device<int2> pairs_out(1);
    checks::Device<float> halves_out(1);
    fetch_formats<<<1, 1>>>(colour, pairs, halves, colour_out.data, pairs_out.data, halves_out.data);
    const float4 c = colour_out.host()[0];
    EXPECT(c.x == 1.0f && std::fabs(c.y - 0.2f) < 1e-6f && c.z == 0.0f && std::fabs(c.w - 0.4f) < 1e-6f);
    const int2 p = pairs_out.host()[0];
    EXPECT(p.x == 12 && p.y == -12);
    EXPECT(halves_out.host()[0] == 0.75f * 2.0f + 0.25f * 6.0f);
    cudaDestroyTextureObject(colour);
    cudaDestroyTextureObject(pairs);
    cudaDestroyTextureObject(halves);
    cudaFreeArray(colours);
    cudaFreeArray(halves_array);
    cudaFree(pitched);
}

}  // namespace

int main()
{
    check_linear();
    check_1d();
    check_2d();
    check_formats();
    return checks::finish("textures.cu");
}
