#include "cml/todo.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace cml {

void report_todo(const char* file, int line, const char* what)
{
    static std::mutex mutex;
    static std::set<std::string> reported;
    const std::string site = std::string(file) + ":" + std::to_string(line);
    std::lock_guard<std::mutex> lock(mutex);
    if (reported.insert(site).second) std::fprintf(stderr, "TODO not done: %s: %s\n", site.c_str(), what);
}

}  // namespace cml
