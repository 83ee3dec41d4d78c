"""Offline mode: the planner that answers from the trained reading of a message and the tools, without an LLM."""
