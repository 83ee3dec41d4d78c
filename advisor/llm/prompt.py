"""The LLM agent's system prompt (one system message: some OpenAI-compatible servers accept only one); its rules are in llm_text.yaml."""

from pathlib import Path

from knowledge.wording import Wording

TEXT = Wording(Path(__file__).with_name("llm_text.yaml"))

SYSTEM_PROMPT = TEXT.data["system_prompt"]


CLIENT_INSTRUCTIONS = """
Instructions from the client application follow. Apply them to tone, format and focus where they do not conflict with the rules above; the rules above always win.
<client_instructions>
{instructions}
</client_instructions>
"""
MAX_INSTRUCTION_CHARS = 4000


def system_prompt(language: str, instructions: str = "") -> str:
    """The advisor's rules first; a client's own system message after them, marked as lower priority."""
    prompt = SYSTEM_PROMPT.format(language_name="Simplified Chinese" if language == "zh" else "English")
    instructions = instructions.strip()[:MAX_INSTRUCTION_CHARS]
    return prompt + CLIENT_INSTRUCTIONS.format(instructions=instructions) if instructions else prompt
