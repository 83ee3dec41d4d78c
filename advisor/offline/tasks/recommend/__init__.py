"""The recommend task: its answer writers and wording."""
