"""`gpu-advisor` run as a real subprocess, the way users call it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from advisor.contract import AdvisorResponse
from advisor.deps import shared_registry
from knowledge.catalog import load_catalog
from tests.live_server import CHINESE_7B_QUESTION, GPU_NAME
from tools.gpu_specs import CHINA_BUYABLE


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Offline, no LLM endpoint, a private data dir, and a wide terminal so tables do not wrap."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ADVISOR_", "OPENAI_", "SLACK_"))}
    return {**clean, "HF_HUB_OFFLINE": "1", "ADVISOR_DATA_DIR": str(tmp_path_factory.mktemp("cli")), "COLUMNS": "200"}


def run_cli(env, *args, **extra_env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "advisor.cli", *args], capture_output=True, text=True, timeout=180, env={**env, **extra_env}
    )


def assert_bilingual_failure(result: subprocess.CompletedProcess, code: str) -> None:
    assert result.returncode == 2, result.stderr
    assert f"[{code}]" in result.stderr and re.search(r"错误：.*[\u4e00-\u9fff]", result.stderr)
    assert "Traceback" not in result.stderr + result.stdout


def test_help_is_instant_because_nothing_heavy_is_imported():
    probe = "import sys, advisor.cli; print(sorted(m for m in ('fastapi', 'gradio', 'langchain', 'chromadb', 'torch', 'advisor.deps') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "[]"
    result = subprocess.run([sys.executable, "-m", "advisor.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ("ask", "tool", "gpus", "models", "index", "serve", "slack"):
        assert command in result.stdout


def test_tool_prints_the_registry_result_as_json(env):
    args = {"gpus": ["H100", "MI300X"]}
    result = run_cli(env, "tool", "compare_gpus", "--json", json.dumps(args))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == shared_registry().run("compare_gpus", args).model_dump(mode="json")


def test_tool_with_bad_json_fails_with_a_bilingual_message(env):
    assert_bilingual_failure(run_cli(env, "tool", "compare_gpus", "--json", "{gpus: [H100]"), "malformed_json")
    assert_bilingual_failure(run_cli(env, "tool", "compare_gpus", "--json", '["H100"]'), "invalid_arguments")


def test_tool_with_invalid_arguments_or_name_fails_cleanly(env):
    assert_bilingual_failure(run_cli(env, "tool", "compare_gpus", "--json", '{"gpus": []}'), "invalid_arguments")
    unknown_gpu = run_cli(env, "tool", "compare_gpus", "--json", '{"gpus": ["H1000"]}')
    assert_bilingual_failure(unknown_gpu, "unknown_gpu")
    assert "H100" in unknown_gpu.stderr  # the suggestion
    assert_bilingual_failure(run_cli(env, "tool", "compare_gpu"), "unknown_tool")


def test_gpus_table_filters_by_vendor_and_china(env):
    amd = run_cli(env, "gpus", "--vendor", "AMD")
    assert amd.returncode == 0, amd.stderr
    catalog = load_catalog().gpus
    assert all(g.id in amd.stdout for g in catalog if g.vendor == "AMD")
    assert "h100-sxm" not in amd.stdout
    china = json.loads(run_cli(env, "gpus", "--china", "--json").stdout)["gpus"]
    assert china and all(g["china"] in CHINA_BUYABLE for g in china)
    assert {g["id"] for g in china} == {g.id for g in catalog if g.china in CHINA_BUYABLE}


def test_models_lists_the_catalog(env):
    result = run_cli(env, "models")
    assert result.returncode == 0
    assert all(m.id in result.stdout for m in load_catalog().models)


def test_ask_json_prints_the_response_contract(env):
    result = run_cli(env, "ask", "--json", CHINESE_7B_QUESTION)
    assert result.returncode == 0, result.stderr
    response = AdvisorResponse.model_validate_json(result.stdout)
    assert response.language == "zh" and response.mode == "offline"
    assert re.search(GPU_NAME, response.answer) and "GB" in response.answer


def test_ask_reads_history_and_rejects_a_broken_file(env, tmp_path):
    good = tmp_path / "history.json"
    good.write_text(json.dumps([{"role": "user", "content": CHINESE_7B_QUESTION}, {"role": "assistant", "content": "RTX 4090"}]))
    assert run_cli(env, "ask", "--json", "--history", str(good), "那训练呢？").returncode == 0
    broken = tmp_path / "broken.json"
    broken.write_text('[{"role": "user", "content": ')
    assert_bilingual_failure(run_cli(env, "ask", "--history", str(broken), "hi"), "malformed_json")
    wrong_role = tmp_path / "role.json"
    wrong_role.write_text('[{"role": "wizard", "content": "x"}]')
    assert_bilingual_failure(run_cli(env, "ask", "--history", str(wrong_role), "hi"), "invalid_arguments")


def test_config_errors_name_the_variable_without_a_traceback(env):
    result = run_cli(env, "ask", "hi", ADVISOR_PORT="seventy")
    assert result.returncode == 2
    assert "ADVISOR_PORT" in result.stderr and "Traceback" not in result.stderr
    result = run_cli(env, "ask", "hi", ADVISOR_LLM_BASE_URL="http://127.0.0.1:9/v1")
    assert result.returncode == 2 and "ADVISOR_LLM_MODEL" in result.stderr
