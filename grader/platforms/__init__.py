"""Where courses grade: Gradescope's autograder (gradescope.py) and GitHub Classroom (classroom.py), with the
scripts and workflows they install in templates/."""
