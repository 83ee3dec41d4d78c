"""The serving task: its answer writers and wording."""
