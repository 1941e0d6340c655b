// Source lines of code addresses, from the program's debug information (llvm-symbolizer, or addr2line).
#pragma once

#include <string>
#include <vector>

namespace cml_emu {

struct SourceLocation {
    std::string function;  // the function the code was compiled into (the kernel, when inlined into it)
    std::string file;      // of the innermost frame outside the emulator's own headers
    int line = 0;
    std::string where() const { return file.empty() ? "?" : file + ":" + std::to_string(line); }
};

// `return_addresses`: addresses pushed by calls (the access callbacks' callers), so the call itself is the
// instruction before; otherwise the addresses of functions.
std::vector<SourceLocation> symbolize(const std::vector<const void*>& addresses, bool return_addresses);

// "vector_add_kernel(float const*, ...)" without "(anonymous namespace)::".
std::string readable_function(std::string name);

}  // namespace cml_emu
