// How the texture unit blends an fp32 image under linear filtering, set beside models of it: the figures behind
// the model in tests/12_readonly_texture/reference.hpp (texture_blend_at) and the CPU emulator's
// (common/emu/src/textures.cpp). On a machine with a GPU:
//     nvcc -arch=native -o texture_blend tools/probes/texture_blend.cu && ./texture_blend
// Each model's worst and mean distance from what tex2D<float> returned, over random points of a 64 x 64 texture
// (unnormalized coordinates, clamped) of four kinds: random along one axis only (the weight along that axis is
// seen alone), random in both, and random in both around 100 (what depends on the texels' size).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

constexpr int kSide = 64;
constexpr int kPoints = 20000;

__global__ void fetch(cudaTextureObject_t texture, const float* x, const float* y, float* out, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<float>(texture, x[k], y[k]);
}

std::vector<float> fetched(const std::vector<float>& texels, const std::vector<float>& x, const std::vector<float>& y)
{
    cudaArray_t array = nullptr;
    const cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    cudaMallocArray(&array, &format, kSide, kSide);
    cudaMemcpy2DToArray(array, 0, 0, texels.data(), kSide * 4, kSide * 4, kSide, cudaMemcpyHostToDevice);
    cudaResourceDesc source{};
    source.resType = cudaResourceTypeArray;
    source.res.array.array = array;
    cudaTextureDesc how{};
    how.addressMode[0] = how.addressMode[1] = cudaAddressModeClamp;
    how.filterMode = cudaFilterModeLinear;
    how.readMode = cudaReadModeElementType;
    cudaTextureObject_t texture = 0;
    cudaCreateTextureObject(&texture, &source, &how, nullptr);
    float *x_dev = nullptr, *y_dev = nullptr, *out_dev = nullptr;
    cudaMalloc(&x_dev, x.size() * 4);
    cudaMalloc(&y_dev, y.size() * 4);
    cudaMalloc(&out_dev, x.size() * 4);
    cudaMemcpy(x_dev, x.data(), x.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(y_dev, y.data(), y.size() * 4, cudaMemcpyHostToDevice);
    fetch<<<(int(x.size()) + 255) / 256, 256>>>(texture, x_dev, y_dev, out_dev, int(x.size()));
    std::vector<float> out(x.size());
    cudaMemcpy(out.data(), out_dev, out.size() * 4, cudaMemcpyDeviceToHost);
    cudaFree(x_dev);
    cudaFree(y_dev);
    cudaFree(out_dev);
    cudaDestroyTextureObject(texture);
    cudaFreeArray(array);
    return out;
}

double nearest_step(double w) { return std::floor(w * 256.0 + 0.5) / 256.0; }

// The four texels around a point and its two exact fractions.
struct Around {
    double t00, t10, t01, t11, a, b;
};

Around around(const std::vector<float>& texels, float x, float y)
{
    const double xb = double(x) - 0.5, yb = double(y) - 0.5;
    const long i = long(std::floor(xb)), j = long(std::floor(yb));
    auto at = [&](long u, long v) {
        u = u < 0 ? 0 : u > kSide - 1 ? kSide - 1 : u;
        v = v < 0 ? 0 : v > kSide - 1 ? kSide - 1 : v;
        return double(texels[std::size_t(v) * kSide + std::size_t(u)]);
    };
    return {at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1), xb - double(i), yb - double(j)};
}

double bilinear(const Around& p, double a, double b)
{
    return (1 - b) * ((1 - a) * p.t00 + a * p.t10) + b * ((1 - a) * p.t01 + a * p.t11);
}

}  // namespace

int main()
{
    unsigned state = 777;
    auto uniform = [&] {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) / 16777216.0f;
    };
    std::vector<float> x(kPoints), y(kPoints);
    for (int k = 0; k < kPoints; ++k) {
        x[k] = 1.0f + uniform() * (kSide - 2);
        y[k] = 1.0f + uniform() * (kSide - 2);
    }
    const std::vector<std::pair<const char*, std::function<double(const Around&)>>> models = {
        {"exact weights", [](const Around& p) { return bilinear(p, p.a, p.b); }},
        {"each weight to the nearest 1/256", [](const Around& p) { return bilinear(p, nearest_step(p.a), nearest_step(p.b)); }},
        {"each weight to the step below", [](const Around& p) { return bilinear(p, std::floor(p.a * 256) / 256, std::floor(p.b * 256) / 256); }},
        {"nearest, and the far texel's weight a b to the nearest 1/256",
         [](const Around& p) {
             const double a = nearest_step(p.a), b = nearest_step(p.b), w11 = nearest_step(a * b);
             return (1 - a - b + w11) * p.t00 + (a - w11) * p.t10 + (b - w11) * p.t01 + w11 * p.t11;
         }},
    };
    const char* kinds[] = {"random along x only", "random along y only", "random in both", "random in both, in [100, 101)"};
    for (int kind = 0; kind < 4; ++kind) {
        std::vector<float> row(kSide), column(kSide), texels(kSide * kSide);
        for (float& v : row) v = uniform();
        for (float& v : column) v = uniform();
        for (int j = 0; j < kSide; ++j)
            for (int i = 0; i < kSide; ++i)
                texels[j * kSide + i] = kind == 0 ? row[i] : kind == 1 ? column[j] : (kind == 3 ? 100.0f : 0.0f) + uniform();
        const std::vector<float> got = fetched(texels, x, y);
        std::printf("%s:\n", kinds[kind]);
        for (const auto& [name, model] : models) {
            double worst = 0, sum = 0;
            for (int k = 0; k < kPoints; ++k) {
                const double off = std::fabs(double(got[k]) - model(around(texels, x[k], y[k])));
                worst = std::fmax(worst, off);
                sum += off;
            }
            std::printf("  %-62s worst %.3g, mean %.3g\n", name, worst, sum / kPoints);
        }
    }
    cudaDeviceProp properties{};
    cudaGetDeviceProperties(&properties, 0);
    std::printf("on %s\n", properties.name);
    return 0;
}
