#include "symbolize.hpp"

#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace cml_emu {
namespace {

std::uintptr_t load_bias()
{
    static const std::uintptr_t bias = [] {
        std::uintptr_t b = 0;
        dl_iterate_phdr(
            [](dl_phdr_info* info, std::size_t, void* out) {
                *static_cast<std::uintptr_t*>(out) = info->dlpi_addr;
                return 1;  // the first object is the program itself
            },
            &b);
        return b;
    }();
    return bias;
}

std::string executable()
{
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    return n > 0 ? std::string(path, std::size_t(n)) : std::string();
}

bool on_path(const std::string& program)
{
    return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

// llvm-symbolizer prints, for each address, "function\nfile:line:column\n" per inlined frame, innermost
// first, then an empty line; addr2line -a -f -i prints the address first, then the same pairs.
std::string symbolizer_command(const std::string& exe)
{
    if (const char* chosen = std::getenv("CML_EMU_SYMBOLIZER")) return std::string(chosen) + " --obj=" + exe;
    for (const char* name : {"llvm-symbolizer", "llvm-symbolizer-14", "llvm-symbolizer-15", "llvm-symbolizer-16"})
        if (on_path(name)) return std::string(name) + " --inlining --demangle --obj=" + exe;
    return "addr2line -a -f -i -C -e " + exe;
}

bool is_emulator_header(const std::string& file)
{
    return file.find("/common/emu/include/") != std::string::npos || file.find("/c++/") != std::string::npos ||
           file.find("/include/boost/") != std::string::npos;
}

SourceLocation pick(const std::vector<std::pair<std::string, std::string>>& frames)
{
    SourceLocation location;
    if (frames.empty()) return location;
    location.function = readable_function(frames.back().first);
    std::string chosen = frames.front().second;
    for (const auto& frame : frames) {
        if (!is_emulator_header(frame.second)) {
            chosen = frame.second;
            break;
        }
    }
    // file:line:column, or file:line
    std::size_t colon = chosen.rfind(':');
    std::size_t previous = colon == std::string::npos ? colon : chosen.rfind(':', colon - 1);
    if (previous != std::string::npos && chosen.find_first_not_of("0123456789", previous + 1) == colon) {
        location.file = chosen.substr(0, previous);
        location.line = std::atoi(chosen.c_str() + previous + 1);
    } else if (colon != std::string::npos) {
        location.file = chosen.substr(0, colon);
        location.line = std::atoi(chosen.c_str() + colon + 1);
    }
    if (location.file == "??") location.file.clear();
    return location;
}

}  // namespace

std::string readable_function(std::string name)
{
    const std::string anonymous = "(anonymous namespace)::";
    for (std::size_t at; (at = name.find(anonymous)) != std::string::npos;) name.erase(at, anonymous.size());
    return name;
}

std::vector<SourceLocation> symbolize(const std::vector<const void*>& addresses, bool return_addresses)
{
    static std::mutex mutex;
    static std::map<std::pair<const void*, bool>, SourceLocation> cache;
    std::lock_guard<std::mutex> lock(mutex);

    std::vector<const void*> missing;
    for (const void* a : addresses)
        if (!cache.count({a, return_addresses})) missing.push_back(a);
    if (!missing.empty()) {
        const std::string exe = executable();
        char input[] = "/tmp/cml_emu_addresses_XXXXXX";
        const int fd = mkstemp(input);
        if (fd >= 0) {
            close(fd);
            {
                std::ofstream out(input);
                for (const void* a : missing)
                    out << "0x" << std::hex << (std::uintptr_t(a) - load_bias() - (return_addresses ? 1 : 0)) << "\n";
            }
            const std::string command = symbolizer_command(exe);
            const bool addr2line = command.rfind("addr2line", 0) == 0;
            std::string output;
            if (FILE* pipe = popen((command + " < " + input + " 2>/dev/null").c_str(), "r")) {
                char buffer[4096];
                while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
                pclose(pipe);
            }
            std::remove(input);
            std::istringstream lines(output);
            std::string line;
            std::vector<std::vector<std::pair<std::string, std::string>>> per_address;
            std::vector<std::pair<std::string, std::string>> frames;
            auto flush = [&] {
                per_address.push_back(frames);
                frames.clear();
            };
            if (addr2line) {
                bool started = false;
                while (std::getline(lines, line)) {
                    if (line.rfind("0x", 0) == 0) {
                        if (started) flush();
                        started = true;
                        continue;
                    }
                    std::string file;
                    std::getline(lines, file);
                    frames.emplace_back(line, file);
                }
                if (started) flush();
            } else {
                while (std::getline(lines, line)) {
                    if (line.empty()) {
                        flush();
                        continue;
                    }
                    std::string file;
                    std::getline(lines, file);
                    frames.emplace_back(line, file);
                }
            }
            for (std::size_t i = 0; i < missing.size(); ++i)
                cache[{missing[i], return_addresses}] = i < per_address.size() ? pick(per_address[i]) : SourceLocation{};
        }
    }
    std::vector<SourceLocation> out;
    out.reserve(addresses.size());
    for (const void* a : addresses) out.push_back(cache[{a, return_addresses}]);
    return out;
}

}  // namespace cml_emu
