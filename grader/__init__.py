"""The cuda-memory-labs grader: build, test, sanitize, benchmark, score and report each lab."""
