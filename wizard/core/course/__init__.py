"""Course profiles: what a course asks of a student's machine, written once by the instructor."""
