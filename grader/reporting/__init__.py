"""What a graded run comes to: its points (score.py), the report on the terminal and in JSON (report.py), and
the exports for the platforms people use (export/)."""
