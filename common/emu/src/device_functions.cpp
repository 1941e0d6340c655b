// What device code calls that needs the emulator's own state: __activemask(), the fences, the clock, clusters
// (a launch without __cluster_dims__ has clusters of one block, the block itself), and which memory space an
// address points into, with the conversions between a generic address and one of a space (cvta).
#include <atomic>
#include <cstdint>

#include "cml_emu/device.hpp"
#include "cml_emu/warp.hpp"
#include "worker.hpp"

extern char __start_cml_emu_constant[] __attribute__((weak));

namespace cml_emu {
namespace {

bool in_shared(const void* pointer)
{
    return t_thread && t_worker->shared().holds(std::uintptr_t(pointer), 1);
}

bool in_global(const void* pointer, Space space)
{
    if (!t_thread) return false;
    const Region* region = t_worker->block().launch->global.find(std::uintptr_t(pointer), 1);
    return region && region->space == space;
}

std::uintptr_t shared_base() { return t_thread ? t_worker->shared().base() : 0; }
std::uintptr_t constant_base() { return std::uintptr_t(__start_cml_emu_constant); }

}  // namespace
}  // namespace cml_emu

using cml_emu::t_thread;
using cml_emu::t_worker;

// The lanes that reached this call site together: its file, line and column name it.
unsigned __activemask(unsigned line, unsigned column, const char* file)
{
    const std::uint64_t site = std::uint64_t(std::uintptr_t(file)) * 1000003u ^ std::uint64_t(line) << 20 ^ column;
    return unsigned(cml_emu::warp_collective(cml_emu::WarpOp::active, 0, site, 0, 32));
}

void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
void __threadfence_cluster() { std::atomic_thread_fence(std::memory_order_seq_cst); }
long long clock64() { return static_cast<long long>(__builtin_ia32_rdtsc()); }

dim3 __clusterDim() { return dim3(1, 1, 1); }
dim3 __clusterIdx() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
dim3 __clusterGridDimInClusters() { return gridDim; }
dim3 __clusterRelativeBlockIdx() { return dim3(0, 0, 0); }
unsigned __clusterDimIsSpecified() { return 0; }
unsigned __clusterRelativeBlockRank() { return 0; }
unsigned __clusterSizeInBlocks() { return 1; }
// A cluster's barrier, split in two, holds the cluster's threads, the block's here: the wait is the barrier.
void __cluster_barrier_arrive() {}
void __cluster_barrier_arrive_relaxed() {}
void __cluster_barrier_wait() { __syncthreads(); }
void* __cluster_map_shared_rank(const void* pointer, unsigned target_block_rank)
{
    return target_block_rank == 0 ? const_cast<void*>(pointer) : nullptr;
}
unsigned __cluster_query_shared_rank(const void*) { return 0; }

unsigned __isGlobal(const void* p) { return cml_emu::in_global(p, cml_emu::Space::global); }
unsigned __isShared(const void* p) { return cml_emu::in_shared(p); }
unsigned __isConstant(const void* p) { return cml_emu::in_global(p, cml_emu::Space::constant); }
unsigned __isLocal(const void* p) { return t_thread && t_thread->stack.holds(std::uintptr_t(p), 1); }
unsigned __isGridConstant(const void* p) { return t_thread && t_worker->arguments.holds(std::uintptr_t(p), 1); }
unsigned __isClusterShared(const void* p) { return cml_emu::in_shared(p); }
unsigned __isCtaShared(const void* p) { return cml_emu::in_shared(p); }

// Shared and constant addresses count from the start of their space, as on a GPU; the others are generic ones.
std::size_t __cvta_generic_to_global(const void* p) { return std::uintptr_t(p); }
std::size_t __cvta_generic_to_shared(const void* p) { return std::uintptr_t(p) - cml_emu::shared_base(); }
std::size_t __cvta_generic_to_constant(const void* p) { return std::uintptr_t(p) - cml_emu::constant_base(); }
std::size_t __cvta_generic_to_local(const void* p) { return std::uintptr_t(p); }
std::size_t __cvta_generic_to_grid_constant(const void* p) { return std::uintptr_t(p); }
void* __cvta_global_to_generic(std::size_t a) { return reinterpret_cast<void*>(a); }
void* __cvta_shared_to_generic(std::size_t a) { return reinterpret_cast<void*>(a + cml_emu::shared_base()); }
void* __cvta_constant_to_generic(std::size_t a) { return reinterpret_cast<void*>(a + cml_emu::constant_base()); }
void* __cvta_local_to_generic(std::size_t a) { return reinterpret_cast<void*>(a); }
void* __cvta_grid_constant_to_generic(std::size_t a) { return reinterpret_cast<void*>(a); }
