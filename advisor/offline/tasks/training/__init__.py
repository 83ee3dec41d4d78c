"""The training task: its answer writers and wording."""
