// The record of a test run: what the code under test computed, case by case. A lab's test program, which
// links the student's kernel.cu, writes it to the file the grader gives it; the lab's checker, built from the
// same test.cpp without any kernel.cu, runs the same cases with the same seed and reads each result back from
// the record instead of from the GPU. So the checker's verdict, the one the grader uses, comes from a
// process the student's code never ran in: a forged result must be a correct one (SECURITY.md).
#pragma once

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace cml::record {

// Where a program writes, in every run the grader makes of it: the sandbox binds the file here.
constexpr const char* kPath = "/cml/record";
// The same file where sandboxes are turned off (grader --no-sandbox): its path, from this variable.
constexpr const char* kPathVariable = "CML_RECORD";

// The file the grader gave this program, opened for writing: taken first thing in main, before any code
// under test has run. nullptr when there is none (a person running the program by hand).
std::FILE* open_report_file();

// The test program writes its record to `file`; the checker replays the record at `path`.
void start_writing(std::FILE* file);
void start_replaying(const std::string& path);
bool replaying();

// Where each test case starts and ends, as doctest runs them (common/test_main.cpp's listener).
void case_started(const std::string& name);
void case_skipped(const std::string& name);
void case_failed(const std::string& why);  // an exception ended the case early
void case_ended();
void run_ended();  // every case ran: a record without this mark was cut short (a crash, a time-out)

// A copy from device to host that a test goes on to check (DeviceBuffer::download). Written down in the
// test program; in the checker, read back from the record instead of the device.
void copy_to_host(void* host, const void* device, std::size_t bytes);

// What the checker says where the record has no result for it: the case failed for this reason.
struct NotRecorded : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace cml::record
