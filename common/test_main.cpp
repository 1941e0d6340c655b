// Main of every lab's doctest suite, as the test program (linked with a kernel.cu) and as the lab's checker
// (linked with stand-ins instead, run with --replay RECORD): common/cml/record.hpp says why there are two.
// Before anything else, and before any code under test can run, it takes the file the grader gave it and
// sets the limits the grader asked for (cml/confine.hpp); then it prints the seed and, with no GPU, why the
// GPU cases are skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <nvtx3/nvToolsExt.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cml/confine.hpp"
#include "cml/device_facts.hpp"
#include "cml/random.hpp"
#include "cml/record.hpp"

namespace {

// Meson's (and ctest's) exit code for "skipped".
constexpr int kExitSkipped = 77;
// The harness itself could not start (no record to replay, no confinement): not a failed test.
constexpr int kExitHarness = 3;

// Writes where each case starts and ends into the record (and, in the checker, moves the replay along).
struct RecordListener : doctest::IReporter {
    explicit RecordListener(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override { cml::record::run_ended(); }
    void test_case_start(const doctest::TestCaseData& data) override { cml::record::case_started(data.m_name); }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override { cml::record::case_ended(); }
    void test_case_exception(const doctest::TestCaseException& e) override
    {
        cml::record::case_failed(e.error_string.c_str());
    }
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData& data) override { cml::record::case_skipped(data.m_name); }
};

REGISTER_LISTENER("cml-record", 1, RecordListener);

// --replay PATH (the checker) is ours, not doctest's: taken out of the arguments doctest sees.
std::string take_replay_argument(std::vector<char*>& args)
{
    for (std::size_t i = 1; i + 1 < args.size(); ++i) {
        if (std::strcmp(args[i], "--replay") == 0) {
            const std::string path = args[i + 1];
            args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
            return path;
        }
    }
    return "";
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<char*> args(argv, argv + argc);
    try {
        cml::confine_if_asked();
        const std::string replay = take_replay_argument(args);
        if (!replay.empty()) {
            cml::record::start_replaying(replay);
        } else if (std::FILE* record = cml::record::open_report_file()) {
            cml::record::start_writing(record);
            // What the code under test prints goes to stderr: stdout is left to the tools that watch it.
            ::dup2(STDERR_FILENO, STDOUT_FILENO);
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
        return kExitHarness;
    }
    // stderr, because the grader asks doctest for XML on stdout or in a file.
    std::fprintf(stderr, "seed %llu (set CML_SEED=%llu to repeat this run's inputs)\n",
                 static_cast<unsigned long long>(cml::run_seed()),
                 static_cast<unsigned long long>(cml::run_seed()));
    if (!cml::gpu_available())
        std::fprintf(stderr, "GPU test cases skipped: %s\n", cml::gpu_absence_reason().c_str());
    // NVTX reads NVTX_INJECTION64_PATH at its first call: made here, before the tools' variables are hidden, so
    // that a tool's NVTX injection (on a GPU, the schedule check's recorder) sees the ranges of every test case.
    nvtxInitialize(nullptr);
    cml::hide_tool_variables_if_asked();  // CUDA has started (gpu_available): the tools are in

    doctest::Context context(int(args.size()), args.data());
    const int status = context.run();
    if (context.shouldExit()) return status;
    // Every lab case needs a GPU: without one nothing ran, and that is "skipped", not "passed".
    if (status == 0 && !cml::gpu_available()) {
        std::fprintf(stderr,
                     "Nothing ran: every case needs a GPU (%s). Without one, the CPU emulator's build of this program "
                     "runs them: ./cml grade --lab N, or the NN_name_student_emu_test program in the build folder.\n",
                     cml::gpu_absence_reason().c_str());
        return kExitSkipped;
    }
    return status;
}
