"""Procurement proposals: the need read from a conversation, built from the tools, rendered as HTML, PDF or Markdown."""
