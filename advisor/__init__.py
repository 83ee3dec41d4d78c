"""GPU Advisor: agent, retrieval and interfaces around the pure tools in ``tools``."""
