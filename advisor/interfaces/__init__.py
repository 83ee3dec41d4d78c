"""Adapters that expose the advisor: REST/OpenAI API, embed page, Gradio UI, Slack and CLI."""
