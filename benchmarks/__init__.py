"""`make bench`: speed, quality and memory targets, printed as one table (never timed tests)."""
