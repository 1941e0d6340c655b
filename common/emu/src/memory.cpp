#include "memory.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

// Bounds of the sections of the __constant__ and __device__ variables (device.hpp, rewrite.py), made by the
// linker; weak, so a program without such variables links too.
extern "C" {
extern char __start_cml_emu_constant[] __attribute__((weak));
extern char __stop_cml_emu_constant[] __attribute__((weak));
extern char __start_cml_emu_device[] __attribute__((weak));
extern char __stop_cml_emu_device[] __attribute__((weak));
}

namespace cml_emu {
namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::uintptr_t, Allocation> allocations;  // by start
    std::map<std::uintptr_t, Allocation> mapped_host;  // by start: host memory a kernel may reach
    std::set<std::uintptr_t> owned_host;               // the mapped ranges allocate_mapped_host made
};

Registry& registry()
{
    static Registry* r = new Registry;  // never destroyed: frees may come from static destructors
    return *r;
}

bool inside(const char* lo, const char* hi, std::uintptr_t address, std::size_t size)
{
    return lo && address >= std::uintptr_t(lo) && address + size <= std::uintptr_t(hi);
}

// True when [address, address + bytes) lies inside one of `ranges` (by start); the registry's mutex held.
bool inside_one(const std::map<std::uintptr_t, Allocation>& ranges, std::uintptr_t address, std::size_t bytes)
{
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin()) return false;
    --it;
    return address + bytes <= it->second.start + it->second.size;
}

// The variables of one section, from the symbol table of the program's file: the linker's __start_ symbol
// is where the section lies now, so a variable lies at that plus its offset in the section.
void add_variables(const char* image, const ElfW(Ehdr)& header, const char* section_name, const char* start,
                   std::vector<Allocation>& out)
{
    if (!start) return;
    const auto* sections = reinterpret_cast<const ElfW(Shdr)*>(image + header.e_shoff);
    const char* names = image + sections[header.e_shstrndx].sh_offset;
    for (unsigned index = 0; index < header.e_shnum; ++index) {
        if (std::strcmp(names + sections[index].sh_name, section_name) != 0) continue;
        const ElfW(Addr) section_address = sections[index].sh_addr;
        for (unsigned t = 0; t < header.e_shnum; ++t) {
            if (sections[t].sh_type != SHT_SYMTAB) continue;
            const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(image + sections[t].sh_offset);
            for (std::size_t k = 0; k < sections[t].sh_size / sizeof(ElfW(Sym)); ++k) {
                const ElfW(Sym)& symbol = symbols[k];
                if (symbol.st_shndx != index || ELF64_ST_TYPE(symbol.st_info) != STT_OBJECT || symbol.st_size == 0)
                    continue;
                out.push_back(Allocation{std::uintptr_t(start) + (symbol.st_value - section_address), symbol.st_size});
            }
        }
    }
}

// Every __device__ and __constant__ variable of the program, sorted by start. Empty when the program's file
// has no symbol table (stripped), where the symbol calls then find no variable.
std::vector<Allocation> read_device_variables()
{
    std::vector<Allocation> variables;
    const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || fstat(fd, &info) != 0 || std::size_t(info.st_size) < sizeof(ElfW(Ehdr))) {
        if (fd >= 0) close(fd);
        return variables;
    }
    void* mapped = mmap(nullptr, std::size_t(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (mapped == MAP_FAILED) return variables;
    const char* image = static_cast<const char*>(mapped);
    const auto& header = *reinterpret_cast<const ElfW(Ehdr)*>(image);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_shoff != 0) {
        add_variables(image, header, "cml_emu_constant", __start_cml_emu_constant, variables);
        add_variables(image, header, "cml_emu_device", __start_cml_emu_device, variables);
    }
    munmap(mapped, std::size_t(info.st_size));
    std::sort(variables.begin(), variables.end(),
              [](const Allocation& a, const Allocation& b) { return a.start < b.start; });
    return variables;
}

}  // namespace

const Allocation* device_variable(const void* symbol)
{
    static const std::vector<Allocation> variables = read_device_variables();
    const auto address = std::uintptr_t(symbol);
    auto it = std::lower_bound(variables.begin(), variables.end(), address,
                               [](const Allocation& v, std::uintptr_t a) { return v.start < a; });
    return it != variables.end() && it->start == address ? &*it : nullptr;
}

void* allocate_global(std::size_t bytes)
{
    // 256-byte aligned like cudaMalloc, with a red zone on each side.
    const std::size_t rounded = (bytes + 255) / 256 * 256;
    auto* raw = static_cast<char*>(std::aligned_alloc(256, rounded + 2 * kRedZone));
    if (!raw) return nullptr;
    const auto start = std::uintptr_t(raw + kRedZone);
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().allocations[start] = Allocation{start, bytes};
    return raw + kRedZone;
}

bool free_global(void* pointer)
{
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        if (registry().allocations.erase(std::uintptr_t(pointer)) == 0) return false;
    }
    std::free(static_cast<char*>(pointer) - kRedZone);
    return true;
}

void* allocate_mapped_host(std::size_t bytes)
{
    const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
    auto* raw = static_cast<char*>(std::aligned_alloc(256, rounded + 2 * kRedZone));
    if (!raw) return nullptr;
    const auto start = std::uintptr_t(raw + kRedZone);
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().mapped_host[start] = Allocation{start, bytes};
    registry().owned_host.insert(start);
    return raw + kRedZone;
}

bool free_mapped_host(void* pointer)
{
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        if (registry().owned_host.erase(std::uintptr_t(pointer)) == 0) return false;
        registry().mapped_host.erase(std::uintptr_t(pointer));
    }
    std::free(static_cast<char*>(pointer) - kRedZone);
    return true;
}

void map_host(void* pointer, std::size_t bytes)
{
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().mapped_host[std::uintptr_t(pointer)] = Allocation{std::uintptr_t(pointer), bytes};
}

void unmap_host(void* pointer)
{
    std::lock_guard<std::mutex> lock(registry().mutex);
    if (registry().owned_host.count(std::uintptr_t(pointer)) == 0) registry().mapped_host.erase(std::uintptr_t(pointer));
}

bool is_mapped_host(const void* pointer, std::size_t bytes)
{
    std::lock_guard<std::mutex> lock(registry().mutex);
    return inside_one(registry().mapped_host, std::uintptr_t(pointer), bytes);
}

bool is_device_range(const void* pointer, std::size_t bytes)
{
    const auto address = std::uintptr_t(pointer);
    if (inside(__start_cml_emu_constant, __stop_cml_emu_constant, address, bytes) ||
        inside(__start_cml_emu_device, __stop_cml_emu_device, address, bytes))
        return true;
    std::lock_guard<std::mutex> lock(registry().mutex);
    return inside_one(registry().allocations, address, bytes);
}

bool device_allocation(std::uintptr_t address, Allocation* holding)
{
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().allocations.upper_bound(address);
    if (it == registry().allocations.begin()) return false;
    --it;
    if (address >= it->second.start + std::max<std::size_t>(it->second.size, 1)) return false;
    *holding = it->second;
    return true;
}

GlobalMemory GlobalMemory::now()
{
    GlobalMemory memory;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        for (const auto* map : {&registry().allocations, &registry().mapped_host}) {
            for (const auto& [start, allocation] : *map) {
                memory.allocations_.push_back(allocation);
                memory.regions_.push_back(Region{start, start + allocation.size, Space::global});
            }
        }
    }
    std::sort(memory.allocations_.begin(), memory.allocations_.end(),
              [](const Allocation& a, const Allocation& b) { return a.start < b.start; });
    if (__start_cml_emu_constant)
        memory.regions_.push_back(Region{std::uintptr_t(__start_cml_emu_constant),
                                         std::uintptr_t(__stop_cml_emu_constant), Space::constant});
    if (__start_cml_emu_device)
        memory.regions_.push_back(Region{std::uintptr_t(__start_cml_emu_device), std::uintptr_t(__stop_cml_emu_device),
                                         Space::global});
    std::sort(memory.regions_.begin(), memory.regions_.end(),
              [](const Region& a, const Region& b) { return a.start < b.start; });
    return memory;
}

const Region* GlobalMemory::find(std::uintptr_t address, std::size_t size) const
{
    // The last region starting at or before the access: none of them overlap.
    auto after = std::upper_bound(regions_.begin(), regions_.end(), address,
                                  [](std::uintptr_t a, const Region& r) { return a < r.start; });
    if (after == regions_.begin()) return nullptr;
    const Region& region = *(after - 1);
    return region.holds(address, size) ? &region : nullptr;
}

const Allocation* GlobalMemory::nearest(std::uintptr_t address) const
{
    auto after = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                                  [](std::uintptr_t a, const Allocation& b) { return a < b.start; });
    const Allocation* best = nullptr;
    std::uintptr_t distance = UINTPTR_MAX;
    if (after != allocations_.begin()) {
        best = &*(after - 1);
        const std::uintptr_t end = best->start + best->size;
        distance = address >= end ? address - end : 0;
    }
    if (after != allocations_.end() && after->start - address < distance) best = &*after;
    return best;
}

}  // namespace cml_emu
