"""GPU-memory estimator: inference and training memory per GPU, fit verdicts, largest batch or context."""
