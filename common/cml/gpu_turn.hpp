// The GPU to one benchmark alone, for its timed part only: the other labs graded at once keep it the rest of the time.
//
// The grader grades a submission's labs at once, and a benchmark's timings must see no other program on the
// GPU. Starting CUDA, drawing the inputs and computing the expected results take seconds and need no such
// quiet, so a benchmark does them beside the other labs' tests, sanitizers and ncu runs. Before its first
// launch it asks the grader for the GPU through the socket CML_GPU_TURN names (grader/execution/gpu_turn.py) and waits
// until the grader answers: from then on nothing else of the grader's runs on the GPU, until its last launch.
#pragma once

#include <string>

namespace cml {

// The socket's path, and the variable gone before any code under test runs; "" where the grader gave none
// (a benchmark run by hand, by calibrate, or on the CPU emulator: it goes on at once).
std::string take_gpu_turn_socket();

// Asks for the GPU through `socket` and blocks until it is given; the turn lasts until end_gpu_turn() or the
// program's end. Nothing to do for "". Throws where the grader cannot be reached: timings taken without the
// turn would not be alone.
void wait_for_gpu_turn(const std::string& socket);

// The launches are over: the others may have the GPU while this program writes its results and ends.
void end_gpu_turn();

}  // namespace cml
