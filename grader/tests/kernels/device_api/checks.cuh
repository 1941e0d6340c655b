// What the device API's test programs share: checks that count what failed, and a kernel's results brought back
// to the host. Each program's main returns how many checks failed, and prints it.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace checks {

inline int& failed()
{
    static int count = 0;
    return count;
}

inline void expect(bool ok, const char* file, int line, const char* what)
{
    if (ok) return;
    ++failed();
    std::printf("%s:%d: failed: %s\n", file, line, what);
}

// How many representable values of T lie between got and want (0: the same value; NaNs equal each other).
template <class T>
double ulps(T got, long double want)
{
    if (std::isnan(got) && std::isnan(want)) return 0;
    if (std::isinf(want) || std::isinf(got)) return T(want) == got ? 0 : 1e30;
    const long double step = std::nextafter(T(std::fabs(want)), T(INFINITY)) - T(std::fabs(want));
    return double(std::fabs((long double)got - want) / (step > 0 ? step : 1));
}

// A buffer on the device, filled from the host, read back.
template <class T>
struct Device {
    T* data = nullptr;
    std::size_t count = 0;
    explicit Device(std::size_t n, const T* from = nullptr) : count(n)
    {
        cudaMalloc(reinterpret_cast<void**>(&data), n * sizeof(T));
        if (from) {
            cudaMemcpy(data, from, n * sizeof(T), cudaMemcpyHostToDevice);
        } else {
            cudaMemset(data, 0, n * sizeof(T));
        }
    }
    explicit Device(const std::vector<T>& from) : Device(from.size(), from.data()) {}
    ~Device() { cudaFree(data); }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;
    std::vector<T> host() const
    {
        std::vector<T> out(count);
        cudaDeviceSynchronize();
        cudaMemcpy(out.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost);
        return out;
    }
};

inline int finish(const char* program)
{
    const cudaError_t error = cudaDeviceSynchronize();
    if (error != cudaSuccess) {
        ++failed();
        std::printf("%s: %s\n", program, cudaGetErrorString(error));
    }
    std::printf("%d checks failed\n", failed());
    return failed();
}

}  // namespace checks

#define EXPECT(condition) ::checks::expect((condition), __FILE__, __LINE__, #condition)
// A value within `bound` units in the last place of the reference.
#define EXPECT_ULPS(got, want, bound)                                                                          \
    do {                                                                                                       \
        const double cml_ulps = ::checks::ulps((got), (want));                                                 \
        if (cml_ulps > (bound)) std::printf("  got %.17Lg, want %.17Lg: %.1f ulps\n", (long double)(got),       \
                                            (long double)(want), cml_ulps);                                    \
        ::checks::expect(cml_ulps <= (bound), __FILE__, __LINE__, #got " within " #bound " ulps of " #want);   \
    } while (0)
