// What a test program or benchmark forbids itself before any code under test runs, when the grader asks
// (CML_CONFINE=1, the same in every run): starting processes, tracing or signalling any other process, and
// files or CPU time past a bound. Kept by the kernel for the rest of the process's life, exec included. The
// sandbox (grader/execution/sandbox.py) is what keeps the machine safe; this keeps the measurement honest: a program
// that cannot fork leaves nothing running after it, and one that cannot trace or signal the sanitizer or
// profiler watching it cannot change what that tool reports. SECURITY.md has the whole picture.
#pragma once

namespace cml {

// Does nothing unless CML_CONFINE=1; throws std::runtime_error when asked and it cannot.
void confine_if_asked();

// Once CUDA has started, and so any sanitizer or profiler has injected itself, every variable but the
// grader's own and the few Nsight Compute reads while profiling is removed (CML_CONFINE=1 only): the ones
// through which the tools inject themselves would otherwise tell a watched run from a plain one.
void hide_tool_variables_if_asked();

}  // namespace cml
