"""What the project's tests share: building and grading on the CPU emulator in the build folder the tests share
(grading.py), and the cases graded end to end or judged from their recorded evidence (cases.py)."""
