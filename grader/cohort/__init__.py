"""A class: the plan of a batch, by the submissions' names (plan.py); each student's turn, reading their
submission under limits (reading.py) and grading what is not graded yet (batch.py, one grader process each:
grader_process.py), one worker per GPU, or on a Slurm cluster (slurm.py); what makes a result current
(current.py); one batch at a time on an output folder (output_lock.py); the results merged per student
(collect.py), with the roster (roster.py) and the late policy (late.py)."""
