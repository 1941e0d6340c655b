"""Running programs: the sandbox every program built from a submission runs in (sandbox.py), one step run as a
subprocess with a time limit (proc.py), a stop asked by a signal, which ends them all (stopping.py), and the GPU:
what this machine has (gpu.py), its sharing by the labs graded at once (gpu_lock.py), and by every grader on the
card through lock files (gpu_lock_files.py), and a benchmark's turn on it alone (gpu_turn.py)."""
