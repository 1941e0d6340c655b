#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace cml_emu {
namespace {

int env_int(const char* name, int fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? std::atoi(value) : fallback;
}

Options read_options()
{
    Options o;
    if (const char* checks = std::getenv("CML_EMU_CHECK")) {
        std::stringstream list(checks);
        for (std::string tool; std::getline(list, tool, ',');) {
            const bool all = tool == "all";
            o.memcheck |= all || tool == "memcheck";
            o.racecheck |= all || tool == "racecheck";
            o.initcheck |= all || tool == "initcheck";
            o.schedule |= tool == "schedule";  // not in "all": it judges only the calls a test marks
            if (!all && tool != "memcheck" && tool != "racecheck" && tool != "initcheck" && tool != "schedule" &&
                !tool.empty())
                std::fprintf(stderr, "cml_emu: CML_EMU_CHECK: no check named '%s' (there are memcheck, racecheck, "
                                     "initcheck, all and schedule)\n", tool.c_str());
        }
    }
    if (const char* profile = std::getenv("CML_EMU_PROFILE")) o.profile = profile;
    if (const char* aspects = std::getenv("CML_EMU_SCHEDULE")) o.schedule_aspects = aspects;
    o.print_limit = env_int("CML_EMU_PRINT_LIMIT", o.print_limit);
    o.error_exitcode = env_int("CML_EMU_ERROR_EXITCODE", o.error_exitcode);
    o.workers = env_int("CML_EMU_WORKERS", 0);
    o.stack_bytes = std::size_t(env_int("CML_EMU_STACK_KB", int(o.stack_bytes / 1024))) * 1024;
    return o;
}

}  // namespace

const Options& options()
{
    static const Options o = read_options();
    return o;
}

}  // namespace cml_emu
