"""Answering questions: the LLM tool-calling agent, the offline planner, and the facade choosing between them."""
