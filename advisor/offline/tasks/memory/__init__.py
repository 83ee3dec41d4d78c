"""The memory task: its answer writers and wording."""
