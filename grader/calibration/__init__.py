"""Calibration: each GPU's thresholds measured from the reference solution and the kernels of the repository's
variants/ folder (calibrate.py), those kernels listed and their recorded verdicts judged (variants.py), and
the audit of the mistakes that keep a lab's results right (audit.py)."""
