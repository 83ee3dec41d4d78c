"""One package per task the offline planner answers: its answer writers and their wording (text files)."""
