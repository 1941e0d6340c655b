// A launch through every kind of kernel expression nvcc takes before <<<...>>>: a name, a qualified name, a
// template instance, an element of an array of kernels, a member of a struct (by . and by ->), a pointer and
// its dereference, a call that returns a kernel, in an if and after a return. Each kernel adds its own amount
// to one counter, so the sum says that every launch ran once. Run on the CPU emulator by
// grader/tests/emulator/test_emulator_device_api.py; main returns how many checks failed.
#include "checks.cuh"

namespace kernels {
__global__ void add(int* counter, int amount) { atomicAdd(counter, amount); }
}  // namespace kernels

namespace {

template <int Times>
__global__ void add_times(int* counter, int amount)
{
    atomicAdd(counter, Times * amount);
}

using Kernel = void (*)(int*, int);

struct Table {
    Kernel kernel;
    Kernel more[2];
};

Kernel pick(int which) { return which == 0 ? kernels::add : add_times<2>; }

void launch_and_return(int* counter) { return kernels::add<<<1, 1>>>(counter, 1000); }

}  // namespace

int main()
{
    checks::Device<int> counter(1);
    int* c = counter.data;
    const Kernel table[] = {kernels::add, add_times<3>};
    const Table s{kernels::add, {add_times<2>, add_times<4>}};
    const Table* ps = &s;
    Kernel pointer = add_times<5>;
    Kernel* pointer_to = &pointer;
    kernels::add<<<1, 1>>>(c, 1);                 // 1
    add_times<2><<<1, 1>>>(c, 1);                 // 2
    table[1]<<<1, 1>>>(c, 1);                     // 3
    s.kernel<<<1, 1>>>(c, 10);                    // 10
    ps->more[1]<<<1, 1>>>(c, 10);                 // 40
    pointer<<<1, 1>>>(c, 10);                     // 50
    (*pointer_to)<<<dim3(1), dim3(1), 0, nullptr>>>(c, 20);  // 100
    pick(1)<<<1, 1>>>(c, 100);                    // 200
    if (c) (*pointer)<<<1, 1>>>(c, 20);           // 100
    launch_and_return(c);                          // 1000
    EXPECT(counter.host()[0] == 1 + 2 + 3 + 10 + 40 + 50 + 100 + 200 + 100 + 1000);
    return checks::finish("launches.cu");
}
