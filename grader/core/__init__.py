"""What every other part of the grader shares: its configuration (config.py: labs.toml and each GPU's
thresholds), the plain data one step passes to the next (model.py), a grade read back from its JSON
(recorded.py), how a command ends (exits.py), and how a file someone reads is written, whole or not at all
(atomic.py). It imports no other part of the grader."""
