// Every CUDA runtime call a kernel.cu may make (grader/steps/integrity/symbols.py, CUDA_CALLS but for what nvcc
// itself writes for <<<...>>>), each checked for what CUDA says it does. grader/tests/emulator/test_emulator_api.py
// compiles it with nvcc, and compiles and runs it on the CPU emulator. main returns how many checks failed;
// what only the emulator promises (its exact numbers, and what it refuses) is under CML_EMULATOR.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

// What CUDA 12's headers call cudaGetDeviceProperties (a macro there); CUDA 13's no longer declare it.
extern "C" cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* properties, int device);

namespace {

int g_failed = 0;

void expect(bool ok, int line, const char* what)
{
    if (ok) return;
    ++g_failed;
    std::printf("every_runtime_call.cu:%d: failed: %s\n", line, what);
}

#define EXPECT(condition) expect((condition), __LINE__, #condition)
#define EXPECT_OK(call) expect((call) == cudaSuccess, __LINE__, #call)

constexpr int kN = 256;
constexpr int kTable = 16;
constexpr int kValues = 8;

__constant__ int c_count;  // a scalar: the symbol calls take it by reference
__constant__ float c_table[kTable];
__device__ int d_values[kValues];

__global__ void scale(float* data, int n, float factor)
{
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) data[i] = data[i] * factor + float(c_count) + c_table[1];
}

__global__ void sum_values(int* out)
{
    atomicAdd(out, d_values[threadIdx.x % kValues]);
}

__global__ void reverse_in_shared(float* out)
{
    extern __shared__ float tile[];
    const int t = int(threadIdx.x);
    tile[t] = float(t);
    __syncthreads();
    out[t] = tile[int(blockDim.x) - 1 - t];
}

bool same_text(const char* a, const char* b)
{
    return a && b && std::strlen(a) == std::strlen(b) && std::memcmp(a, b, std::strlen(a)) == 0;
}

void errors()
{
    EXPECT(same_text(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue"));
    EXPECT(cudaGetErrorString(cudaErrorInvalidValue) != nullptr);
    float* pointer = nullptr;
    EXPECT(cudaMalloc(reinterpret_cast<void**>(&pointer), 64) == cudaSuccess);
    EXPECT(cudaMemcpy(pointer, nullptr, 64, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    EXPECT(cudaPeekAtLastError() == cudaErrorInvalidValue);  // kept
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);     // and cleared
    EXPECT(cudaGetLastError() == cudaSuccess);
    EXPECT_OK(cudaFree(pointer));
}

void device_queries()
{
    int count = 0, device = -1;
    EXPECT_OK(cudaGetDeviceCount(&count));
    EXPECT(count >= 1);
    EXPECT_OK(cudaGetDevice(&device));
    EXPECT(device == 0);
    cudaDeviceProp properties{}, properties_v2{};
    EXPECT_OK(cudaGetDeviceProperties(&properties, 0));
    EXPECT_OK(cudaGetDeviceProperties_v2(&properties_v2, 0));
    EXPECT(same_text(properties.name, properties_v2.name));
    int multiprocessors = 0;
    EXPECT_OK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(multiprocessors == properties.multiProcessorCount && multiprocessors > 0);
    size_t stack = 0;
    EXPECT_OK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    EXPECT(stack > 0);
    size_t free = 0, total = 0;
    EXPECT_OK(cudaMemGetInfo(&free, &total));
    EXPECT(total > 0 && free <= total);
    int runtime = 0, driver = 0;
    EXPECT_OK(cudaRuntimeGetVersion(&runtime));
    EXPECT_OK(cudaDriverGetVersion(&driver));
    EXPECT(runtime >= 12000 && driver >= runtime);
#ifdef CML_EMULATOR
    EXPECT(properties.multiProcessorCount == 132 && properties.maxThreadsPerMultiProcessor == 2048);
#endif
}

void memory()
{
    int* a = nullptr;
    int* b = nullptr;
    int host[kN], back[kN];
    for (int i = 0; i < kN; ++i) host[i] = i;
    EXPECT_OK(cudaMalloc(reinterpret_cast<void**>(&a), sizeof host));
    EXPECT_OK(cudaMallocAsync(reinterpret_cast<void**>(&b), sizeof host, 0));
    EXPECT_OK(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpyAsync(b, a, sizeof host, cudaMemcpyDeviceToDevice, 0));
    EXPECT_OK(cudaMemsetAsync(b, 0, 4 * sizeof(int), 0));
    EXPECT_OK(cudaMemset(b + kN - 1, 0xff, sizeof(int)));
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT_OK(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost));
    EXPECT(back[0] == 0 && back[3] == 0 && back[4] == 4 && back[kN - 2] == kN - 2 && back[kN - 1] == -1);
    EXPECT_OK(cudaFreeAsync(b, 0));
    EXPECT_OK(cudaFree(a));
}

// A 5 x 3 matrix of chars: into pitched device memory, a fill of a 2 x 2 corner, and back at another pitch.
void pitched_memory()
{
    constexpr int kWidth = 5, kHeight = 3, kHostPitch = 7;
    char host[kHeight][kWidth], back[kHeight][kHostPitch];
    for (int r = 0; r < kHeight; ++r)
        for (int c = 0; c < kWidth; ++c) host[r][c] = char(10 * r + c);
    std::memset(back, 0, sizeof back);
    char* device = nullptr;
    size_t pitch = 0;
    EXPECT_OK(cudaMallocPitch(reinterpret_cast<void**>(&device), &pitch, kWidth, kHeight));
    EXPECT(pitch >= size_t(kWidth) && pitch % 32 == 0);
    EXPECT_OK(cudaMemcpy2D(device, pitch, host, kWidth, kWidth, kHeight, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemset2D(device, pitch, 0x7f, 2, 2));
    EXPECT_OK(cudaMemset2DAsync(device + pitch * 2, pitch, 0x70, 1, 1, 0));
    EXPECT_OK(cudaMemcpy2DAsync(back, kHostPitch, device, pitch, kWidth, kHeight, cudaMemcpyDeviceToHost, 0));
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT(back[0][0] == 0x7f && back[1][1] == 0x7f && back[0][2] == 2 && back[1][4] == 14);
    EXPECT(back[2][0] == 0x70 && back[2][1] == 21 && back[0][kWidth] == 0);
    EXPECT(cudaMemcpy2D(device, pitch, host, kWidth, pitch + 1, 1, cudaMemcpyHostToDevice) ==
           cudaErrorInvalidPitchValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidPitchValue);
    EXPECT_OK(cudaFree(device));
}

void symbols()
{
    const int count = 3;
    float table[kTable], back[kTable];
    for (int i = 0; i < kTable; ++i) table[i] = float(i) / 2;
    EXPECT_OK(cudaMemcpyToSymbol(c_count, &count, sizeof count));
    EXPECT_OK(cudaMemcpyToSymbolAsync(c_table, table, sizeof table, 0, cudaMemcpyHostToDevice, 0));
    EXPECT_OK(cudaMemcpyFromSymbol(back, c_table, sizeof back));
    EXPECT(back[kTable - 1] == table[kTable - 1]);
    int count_back = 0;
    EXPECT_OK(cudaMemcpyFromSymbolAsync(&count_back, c_count, sizeof count_back, 0, cudaMemcpyDeviceToHost, 0));
    EXPECT(count_back == count);
    EXPECT_OK(cudaMemcpyToSymbol(c_table, table + 4, sizeof(float), sizeof(float)));  // c_table[1] = 2
    size_t size = 0;
    EXPECT_OK(cudaGetSymbolSize(&size, c_table));
    EXPECT(size == sizeof table);
    EXPECT_OK(cudaGetSymbolSize(&size, c_count));
    EXPECT(size == sizeof(int));
    // Past the end of the variable: refused, as CUDA refuses it.
    EXPECT(cudaMemcpyToSymbol(c_count, table, 2 * sizeof(int)) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    // A __device__ variable, through its address: written with cudaMemcpy, read by a kernel.
    int* values = nullptr;
    EXPECT_OK(cudaGetSymbolAddress(reinterpret_cast<void**>(&values), d_values));
    int host_values[kValues];
    for (int i = 0; i < kValues; ++i) host_values[i] = i + 1;
    EXPECT_OK(cudaMemcpy(values, host_values, sizeof host_values, cudaMemcpyHostToDevice));
    int* sum = nullptr;
    EXPECT_OK(cudaMalloc(reinterpret_cast<void**>(&sum), sizeof(int)));
    EXPECT_OK(cudaMemset(sum, 0, sizeof(int)));
    void* sum_argument[] = {&sum};
    EXPECT_OK(cudaLaunchKernel(sum_values, dim3(1), dim3(32), sum_argument));
    EXPECT_OK(cudaDeviceSynchronize());
    int total = 0;
    EXPECT_OK(cudaMemcpy(&total, sum, sizeof total, cudaMemcpyDeviceToHost));
    EXPECT(total == 4 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8));
    EXPECT_OK(cudaFree(sum));
}

void launches_and_kernel_attributes()
{
    float* data = nullptr;
    float host[kN];
    for (int i = 0; i < kN; ++i) host[i] = float(i);
    EXPECT_OK(cudaMalloc(reinterpret_cast<void**>(&data), sizeof host));
    EXPECT_OK(cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice));
    int n = kN;
    float factor = 2.0f;
    void* arguments[] = {&data, &n, &factor};
    EXPECT_OK(cudaFuncSetCacheConfig(scale, cudaFuncCachePreferL1));
    EXPECT_OK(cudaLaunchKernel(scale, dim3(kN / 64), dim3(64), arguments));                     // data[i] = 2 i + 3 + 2
    EXPECT_OK(cudaLaunchCooperativeKernel(scale, dim3(kN / 128), dim3(128), arguments, 0, 0));  // 2 (2 i + 5) + 5
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost));
    EXPECT(host[0] == 15.0f && host[kN - 1] == 4.0f * (kN - 1) + 15.0f);

    int blocks = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(scale), 256, 0));
    EXPECT(blocks >= 1 && blocks <= 8);
    int with_flags = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&with_flags, scale, 256, 0, cudaOccupancyDefault));
    EXPECT(with_flags == blocks);
    cudaDeviceProp properties{};
    EXPECT_OK(cudaGetDeviceProperties(&properties, 0));
    const int resident = blocks * properties.multiProcessorCount * 256 / 128;  // blocks of 128 that fit at once
    EXPECT(cudaLaunchCooperativeKernel(scale, dim3(resident + 1), dim3(128), arguments) ==
           cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);

    // More than 48 KB of dynamic shared memory: refused until the kernel's attribute allows it.
    constexpr size_t kBig = 64 * 1024;
    float* out = nullptr;
    EXPECT_OK(cudaMalloc(reinterpret_cast<void**>(&out), 128 * sizeof(float)));
    void* out_argument[] = {&out};
    EXPECT(cudaLaunchKernel(reverse_in_shared, dim3(1), dim3(128), out_argument, kBig) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT_OK(cudaFuncSetAttribute(reverse_in_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kBig)));
    EXPECT_OK(cudaLaunchKernel(reverse_in_shared, dim3(1), dim3(128), out_argument, kBig));
    EXPECT_OK(cudaDeviceSynchronize());
    float reversed[128];
    EXPECT_OK(cudaMemcpy(reversed, out, sizeof reversed, cudaMemcpyDeviceToHost));
    EXPECT(reversed[0] == 127.0f && reversed[127] == 0.0f);
    cudaFuncAttributes attributes{};
    EXPECT_OK(cudaFuncGetAttributes(&attributes, reverse_in_shared));
    EXPECT(attributes.maxDynamicSharedSizeBytes == int(kBig) && attributes.maxThreadsPerBlock >= 128);
    size_t available = 0;
    EXPECT_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&available, reverse_in_shared, 2, 128));
    EXPECT(available > 0 && available <= kBig);
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_in_shared, 128, kBig));
    EXPECT(blocks >= 1 && blocks <= 3);  // 3 of 64 KB (and what the system keeps) fit in 228 KB
#ifdef CML_EMULATOR
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0));
    EXPECT(blocks == 8);        // 2048 threads of a multiprocessor; registers are not emulated
    EXPECT(available == kBig);  // half of 228 KB, less 1 KB, is more than the kernel's 64 KB
    // A kernel cast to void* has no type the emulator could call it with: refused, saying so.
    EXPECT(cudaLaunchKernel(reinterpret_cast<const void*>(scale), dim3(1), dim3(64), arguments) ==
           cudaErrorNotSupported);
    EXPECT(cudaGetLastError() == cudaErrorNotSupported);
#endif
    EXPECT_OK(cudaFree(out));
    EXPECT_OK(cudaFree(data));
}

}  // namespace

int main()
{
    errors();
    device_queries();
    memory();
    pitched_memory();
    symbols();
    launches_and_kernel_attributes();
    std::printf("%d checks failed\n", g_failed);
    return g_failed;
}
