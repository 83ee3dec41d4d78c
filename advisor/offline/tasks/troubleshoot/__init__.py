"""The troubleshoot task: its answer writers and wording."""
