"""The tco task: its answer writers and wording."""
