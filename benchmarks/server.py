"""The real server, started as users start it: time to first answer, and resident memory under use."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from advisor.config import Settings
from advisor.nlu.reader import shared_understanding
from advisor.retrieval.chroma_server import free_port
from advisor.retrieval.index import ensure_index

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ["我有一个70亿参数模型，该选什么卡？", "rent or buy 8×H100?", "混合精度训练有什么好处？", "How much VRAM for Llama 3.1 70B at 32k?"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure_server(requests: int = 40, timeout_s: float = 120) -> list[dict]:
    ensure_index()  # cold start means a fresh process, not a first-ever index build
    # nor a first-ever training after the understanding data or code changed: the model cache is made first.
    shared_understanding(Settings.from_env().data_dir)
    port = free_port()
    env = {**os.environ, "ADVISOR_PORT": str(port), "ADVISOR_HOST": "127.0.0.1"}
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=30) as client:
            first_answer = None
            while time.perf_counter() - start < timeout_s:
                try:
                    response = client.post(f"{url}/api/chat", json={"message": QUESTIONS[0], "history": []})
                    if response.status_code == 200:
                        first_answer = time.perf_counter() - start
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
            for i in range(requests):
                client.post(f"{url}/api/chat", json={"message": QUESTIONS[i % len(QUESTIONS)], "history": []})
            client.get(f"{url}/")  # the UI page too
            rss = rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return [
        {"name": "cold start → first answer (app.py)", "result": f"{first_answer:.1f} s" if first_answer else "no answer", "target": "< 20 s", "ok": bool(first_answer and first_answer < 20)},
        {"name": f"server RSS after {requests} chats", "result": f"{rss:.0f} MB", "target": "< 1.5 GB", "ok": rss < 1536},
    ]
