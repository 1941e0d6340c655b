#include "symbolize.hpp"

#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

std::string find_on_path(const std::string& program)
{
    if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
    const char* path = std::getenv("PATH");
    std::istringstream folders(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        const std::string candidate = folder + "/" + program;
        if (!folder.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

// A symbolizer started once and kept, reading addresses on its standard input: a confined program
// (cml/confine.hpp) may not start processes, so it is started before the confinement (see kStartEarly).
// llvm-symbolizer prints, for each address, "function\nfile:line:column\n" per inlined frame, innermost
// first, then an empty line. addr2line -a -f -i prints the address first, then the same pairs, and no end
// mark: each address is followed by 0x0, whose echo ends the answer.
class Symbolizer {
public:
    Symbolizer()
    {
        std::vector<std::string> argv;
        const std::string exe = executable();
        std::vector<std::string> names = {"llvm-symbolizer", "llvm-symbolizer-14", "llvm-symbolizer-15",
                                          "llvm-symbolizer-16"};
        if (const char* chosen = std::getenv("CML_EMU_SYMBOLIZER")) names = {chosen};
        for (const std::string& name : names) {
            const std::string found = find_on_path(name);
            if (!found.empty()) {
                argv = {found, "--inlining", "--demangle", "--obj=" + exe};
                break;
            }
        }
        if (argv.empty()) {
            const std::string found = find_on_path("addr2line");
            if (found.empty()) return;
            argv = {found, "-a", "-f", "-i", "-C", "-e", exe};
            addr2line_ = true;
        }
        start(argv);
    }

    // The frames of one address, innermost first; none when there is no symbolizer.
    std::vector<std::pair<std::string, std::string>> frames(std::uintptr_t address)
    {
        std::vector<std::pair<std::string, std::string>> found;
        if (to_ == nullptr) return found;
        std::fprintf(to_, addr2line_ ? "0x%zx\n0x0\n" : "0x%zx\n", std::size_t(address));
        std::fflush(to_);
        std::string line;
        if (addr2line_ && !read_line(line)) return found;  // the address's echo
        while (read_line(line)) {
            if (!addr2line_ && line.empty()) break;
            if (addr2line_ && line.rfind("0x", 0) == 0) {  // the echo of 0x0: its own answer follows
                read_line(line);
                read_line(line);
                break;
            }
            std::string file;
            read_line(file);
            found.emplace_back(line, file);
        }
        return found;
    }

private:
    void start(const std::vector<std::string>& argv)
    {
        int in[2], out[2];
        if (pipe(in) != 0) return;
        if (pipe(out) != 0) {
            close(in[0]);
            close(in[1]);
            return;
        }
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        const pid_t child = fork();
        if (child == 0) {
            dup2(in[0], STDIN_FILENO);
            dup2(out[1], STDOUT_FILENO);
            const int null = ::open("/dev/null", O_WRONLY);
            if (null >= 0) dup2(null, STDERR_FILENO);
            for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
            execv(args[0], args.data());
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        if (child < 0) {
            close(in[1]);
            close(out[0]);
            return;
        }
        std::signal(SIGPIPE, SIG_IGN);  // a symbolizer that died gives no lines, not a killed program
        to_ = fdopen(in[1], "w");
        from_ = fdopen(out[0], "r");
    }

    bool read_line(std::string& line)
    {
        line.clear();
        if (from_ == nullptr) return false;
        for (int c; (c = std::fgetc(from_)) != EOF;) {
            if (c == '\n') return true;
            line.push_back(char(c));
        }
        return !line.empty();
    }

    bool addr2line_ = false;
    std::FILE* to_ = nullptr;
    std::FILE* from_ = nullptr;
};

Symbolizer& symbolizer()
{
    static Symbolizer one;
    return one;
}

// Under CML_CONFINE=1 the program may start no process once main() has begun: start the symbolizer now.
const bool kStartEarly = [] {
    const char* confine = std::getenv("CML_CONFINE");
    if (confine != nullptr && std::strcmp(confine, "1") == 0) symbolizer();
    return true;
}();

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
    std::vector<SourceLocation> out;
    out.reserve(addresses.size());
    for (const void* a : addresses) {
        auto [known, added] = cache.try_emplace({a, return_addresses});
        if (added) {
            const std::uintptr_t offset = std::uintptr_t(a) - load_bias() - (return_addresses ? 1 : 0);
            known->second = pick(symbolizer().frames(offset));
        }
        out.push_back(known->second);
    }
    return out;
}

}  // namespace cml_emu
