"""The steps of grading one lab, each on its own: the build (build.py, and student_steps.py for the steps that
read a student's bytes) and what it may not do (integrity/), the tests (suite.py), the sanitizers
(sanitize.py), the profiler's counters (profile.py, with occupancy.py's arithmetic), the benchmark (bench.py),
the compiler's resource report (resources.py), the machine code's loads (sass.py), and how long each step's program may run (time_limits.py)."""
