"""A class: every submission in a folder graded, one worker per GPU (batch.py) or on a Slurm cluster
(slurm.py), the results merged per student (collect.py), with the roster (roster.py) and the late policy
(late.py)."""
