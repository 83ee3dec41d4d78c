"""The specs task: its answer writers and wording."""
