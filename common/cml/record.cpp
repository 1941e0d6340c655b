#include "cml/record.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cml/check.hpp"

namespace cml::record {
namespace {

// One record is a tag, a length and that many bytes.
enum Tag : char {
    kCase = 'C',     // a case started: its name
    kSkipped = 'S',  // a case was skipped: its name
    kFailed = 'F',   // an exception ended the case: its message
    kEnded = 'E',    // the case ran to its end
    kData = 'D',     // the bytes of one copy from device to host
    kRunEnded = 'Z', // every case ran
};

struct Chunk {
    const unsigned char* bytes;
    std::uint64_t size;
};

struct Case {
    std::string name;
    bool skipped = false;
    bool ended = false;
    std::string failure;
    std::vector<Chunk> chunks;
};

// The most of a case's name or failure message the checker reads: both are the student's to write (an exception's
// text), no case of ours has a longer name, and the grader shows 4 kB of a message (grader/execution/proc.py,
// MESSAGE_LIMIT). Longer ones would only grow the checker's memory and its report.
constexpr std::uint64_t kMaxTextBytes = 4096;

std::FILE* writing = nullptr;

// The checker's view of the record: every case of the test program, in the order it ran them.
struct Replay {
    std::vector<Case> cases;
    bool complete = false;     // the run-ended mark was there
    std::size_t cursor = 0;    // the next case of the record to match
    const Case* current = nullptr;
    std::size_t chunk = 0;     // the next chunk of the current case
    std::string missing;       // why the current case has no record
};
Replay* replay = nullptr;

void put(Tag tag, const void* bytes, std::uint64_t size)
{
    if (writing == nullptr) return;
    std::fwrite(&tag, 1, 1, writing);
    std::fwrite(&size, sizeof size, 1, writing);
    if (size > 0) std::fwrite(bytes, 1, size, writing);
    std::fflush(writing);  // what a crash leaves must be whole records
}

void put(Tag tag, const std::string& text) { put(tag, text.data(), text.size()); }

// Reads the records at `data`; a record cut short ends the list there.
Replay parse(const unsigned char* data, std::size_t size)
{
    Replay parsed;
    std::size_t at = 0;
    constexpr std::size_t kHeader = 1 + sizeof(std::uint64_t);
    while (size - at >= kHeader) {
        const char tag = char(data[at]);
        std::uint64_t length = 0;
        std::memcpy(&length, data + at + 1, sizeof length);
        at += kHeader;
        if (length > size - at) break;
        const unsigned char* body = data + at;
        const std::uint64_t kept = tag == kData ? 0 : std::min(length, kMaxTextBytes);
        const std::string text(reinterpret_cast<const char*>(body), kept);
        at += length;
        if (tag == kCase || tag == kSkipped) {
            parsed.cases.push_back(Case{text, tag == kSkipped, tag == kSkipped, "", {}});
        } else if (parsed.cases.empty()) {
            if (tag == kRunEnded) parsed.complete = true;
            continue;
        } else if (tag == kData) {
            parsed.cases.back().chunks.push_back(Chunk{body, length});
        } else if (tag == kFailed) {
            parsed.cases.back().failure =
                kept < length ? text + " [... " + std::to_string(length - kept) + " bytes cut ...]" : text;
        } else if (tag == kEnded) {
            parsed.cases.back().ended = true;
        } else if (tag == kRunEnded) {
            parsed.complete = true;
        }
    }
    return parsed;
}

}  // namespace

std::FILE* open_report_file()
{
    const char* given = std::getenv(kPathVariable);
    const char* path = given != nullptr && *given != '\0' ? given : kPath;
    const int fd = ::open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    return fd < 0 ? nullptr : ::fdopen(fd, "wb");
}

void start_writing(std::FILE* file) { writing = file; }

void start_replaying(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) throw std::runtime_error("cannot read the record " + path);
    const std::size_t size = std::size_t(info.st_size);
    void* mapped = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
    ::close(fd);
    if (mapped == MAP_FAILED) throw std::runtime_error("cannot map the record " + path);
    replay = new Replay(parse(static_cast<const unsigned char*>(mapped), size));  // lives as long as the process
}

bool replaying() { return replay != nullptr; }

void case_started(const std::string& name)
{
    put(kCase, name);
    if (replay == nullptr) return;
    replay->current = nullptr;
    replay->chunk = 0;
    for (std::size_t i = replay->cursor; i < replay->cases.size(); ++i) {
        if (replay->cases[i].name == name) {
            replay->current = &replay->cases[i];
            replay->cursor = i + 1;
            return;
        }
    }
    replay->missing = replay->complete
                          ? "the program under test did not run this case"
                          : "the program under test stopped before this case (it crashed, timed out or exited)";
}

void case_skipped(const std::string& name) { put(kSkipped, name); }
void case_failed(const std::string& why) { put(kFailed, why); }
void case_ended() { put(kEnded, "", 0); }
void run_ended() { put(kRunEnded, "", 0); }

void copy_to_host(void* host, const void* device, std::size_t bytes)
{
    if (replay == nullptr) {
        CML_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
        put(kData, host, bytes);
        return;
    }
    const Case* current = replay->current;
    if (current == nullptr) throw NotRecorded(replay->missing);
    if (current->skipped) throw NotRecorded("skipped by the program under test (a stretch goal not attempted)");
    if (replay->chunk < current->chunks.size()) {
        const Chunk& chunk = current->chunks[replay->chunk++];
        if (chunk.size != bytes)
            throw NotRecorded("the program under test recorded " + std::to_string(chunk.size) + " bytes where this "
                              "case reads " + std::to_string(bytes));
        std::memcpy(host, chunk.bytes, bytes);
        return;
    }
    if (!current->failure.empty()) throw NotRecorded(current->failure);
    if (!current->ended) throw NotRecorded("the program under test stopped during this case (it crashed, timed out or exited)");
    throw NotRecorded("the program under test recorded fewer results than this case reads");
}

}  // namespace cml::record
