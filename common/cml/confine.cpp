#include "cml/confine.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char** environ;

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace cml {
namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
#error "confine.cpp knows the system calls of x86-64 and AArch64 only"
#endif

constexpr rlim_t kMaxFileBytes = rlim_t(4) << 30;  // the record of the largest lab is a few hundred MB
constexpr rlim_t kMaxCpuSeconds = 1200;            // past every step's own time limit
constexpr rlim_t kMaxDataBytes = rlim_t(8) << 30;  // host memory: the largest benchmark needs a few GB

class Filter {
public:
    Filter()
    {
        // Another architecture's calls (x32 on x86-64 too) could name other numbers: refuse them all.
        load(offsetof(seccomp_data, arch));
        jump_unless(kArch, 1, 0);
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
        load(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
        code_.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // __X32_SYSCALL_BIT
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
#endif
    }

    void refuse(long call, int error = EPERM)
    {
        jump_unless(unsigned(call), 0, 1);
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | unsigned(error)));
    }

    // `call` only when its first argument (a pid or thread-group id) is this process's own pid.
    void only_to_self(long call, unsigned pid)
    {
        jump_unless(unsigned(call), 0, 4);
        load(offsetof(seccomp_data, args[0]));
        jump_unless(pid, 0, 1);
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
        load(offsetof(seccomp_data, nr));
    }

    // clone() of a thread (CLONE_THREAD set) only: a new process is refused.
    void threads_only(long call)
    {
        jump_unless(unsigned(call), 0, 4);
        load(offsetof(seccomp_data, args[0]));
        code_.push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
        load(offsetof(seccomp_data, nr));
    }

    void install()
    {
        code_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        sock_fprog program{static_cast<unsigned short>(code_.size()), code_.data()};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
            throw std::runtime_error(std::string("cannot confine the program (seccomp): ") + std::strerror(errno));
    }

private:
    void load(std::size_t offset) { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, unsigned(offset))); }
    void jump_unless(unsigned value, unsigned char if_equal, unsigned char otherwise)
    {
        code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, if_equal, otherwise));
    }

    std::vector<sock_filter> code_;
};

void limit(int resource, rlim_t value)
{
    const rlimit bound{value, value};
    if (setrlimit(resource, &bound) != 0)
        throw std::runtime_error(std::string("cannot set a resource limit: ") + std::strerror(errno));
}

bool asked()
{
    const char* confine = std::getenv("CML_CONFINE");
    return confine != nullptr && std::strcmp(confine, "1") == 0;
}

}  // namespace

void hide_tool_variables_if_asked()
{
    if (!asked()) return;
    // What the grader itself sets (grader/execution/sandbox.py, suite.py), and the CPU emulator's settings; and what
    // Nsight Compute's injection reads again while it profiles a kernel (measured on the H100, 2026-11-24:
    // with them hidden every profiled kernel failed with "UnknownError"; without NV_COMPUTE_PROFILER_PERFWORKS_DIR
    // alone too). CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH and LD_PRELOAD, read at start only, stay hidden.
    const std::string kept[] = {"CML_", "PATH=", "HOME=", "LD_LIBRARY_PATH=", "CUDA_VISIBLE_DEVICES=",
                                "NV_COMPUTE_PROFILER_PERFWORKS_DIR=", "NV_CUDA_START_SUSPENDED=",
                                "NVIDIA_PROCESS_INJECTION_", "NV_NSIGHT_INJECTION_", "NV_TPS_LAUNCH_TOKEN="};
    std::vector<std::string> hidden;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string variable = *entry;
        bool keep = false;
        for (const std::string& prefix : kept) keep = keep || variable.rfind(prefix, 0) == 0;
        if (!keep) hidden.push_back(variable.substr(0, variable.find('=')));
    }
    for (const std::string& name : hidden) unsetenv(name.c_str());
}

void confine_if_asked()
{
    if (!asked()) return;
    limit(RLIMIT_FSIZE, kMaxFileBytes);
    limit(RLIMIT_CPU, kMaxCpuSeconds);
    limit(RLIMIT_DATA, kMaxDataBytes);
    limit(RLIMIT_CORE, 0);
    Filter filter;
    // No new processes (threads are fine): nothing outlives the program, and nothing runs beside it.
#ifdef SYS_fork
    filter.refuse(SYS_fork);
#endif
#ifdef SYS_vfork
    filter.refuse(SYS_vfork);
#endif
    filter.threads_only(SYS_clone);
    filter.refuse(SYS_clone3, ENOSYS);  // the C library then makes its threads with clone()
    // No tracing of, or writing into, another process: the tool watching this one stays as it is.
    filter.refuse(SYS_ptrace);
    filter.refuse(SYS_process_vm_readv);
    filter.refuse(SYS_process_vm_writev);
    // Signals to this process only: not to the sanitizer or profiler that started it.
    const unsigned self = unsigned(getpid());
    filter.only_to_self(SYS_kill, self);
    filter.only_to_self(SYS_tgkill, self);
    filter.refuse(SYS_tkill);
    // No new namespaces, from which the rules above could be dodged.
    filter.refuse(SYS_unshare);
    filter.refuse(SYS_setns);
    filter.install();
}

}  // namespace cml
