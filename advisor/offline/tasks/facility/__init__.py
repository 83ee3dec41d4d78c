"""The facility task: its answer writers and wording."""
