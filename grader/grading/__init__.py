"""A grading run: the student's submission (submission.py), the run decided once (session.py) with the sizes it
draws (sizes.py), the folder that gets built (workspace.py), each lab graded step by step (grade.py), what the
steps saw turned into checks (checks.py), and a recorded grade's speed checks judged again (rejudge.py)."""
