"""The concept task: its answer writers and wording."""
