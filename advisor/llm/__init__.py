"""LLM mode: one LangChain tool-calling agent per endpoint, its middleware, and the checks on its answers.

Importing this package imports nothing from LangChain; ``agent``, ``chat_model``, ``loop``,
``tool_guard`` and ``text_tools`` do, so offline mode never loads them.
"""
