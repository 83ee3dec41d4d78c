"""The dialogue task: its answer writers and wording."""
