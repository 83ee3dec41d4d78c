"""One module per kind of answer the offline planner gives."""
