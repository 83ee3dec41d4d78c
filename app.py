"""Start GPU Advisor (web UI, REST/OpenAI API, wiki embed): `python app.py` or `make run`.

Settings come from ADVISOR_* environment variables (host/port default to 127.0.0.1:7860).
"""

import os
import sys

# Before anything imports Gradio: no usage analytics leave the machine.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

from advisor.cli import main  # noqa: E402  (the environment must be set first)

if __name__ == "__main__":
    sys.exit(main(["serve"]))
