"""`make load`: many concurrent clients against the real server on loopback, with 1 and then 2 answer workers.

Each server is started as users start it (`gpu-advisor serve --workers N`, which is `app.py` for
N = 1), with the rate limit raised for the run, and first answers every question once in a row:
those answers are the reference. Then ``--clients`` asyncio clients send the same questions for
``--seconds`` through `/api/chat` and `/v1/chat/completions` (JSON and SSE). A request counts as
an error unless it returns 200 with exactly the reference answer: a race or state leaking between
requests (or between worker processes) shows up as a different answer, not only as a 500. A
traceback in the server log is an error too. The answers of every worker count must match the
single-process ones.

Printed as tables plus the throughput ratio, and written to ``test-artifacts/load.json``. The CPU
used by the client, the server (with its workers and Chroma server) and the whole machine is
measured, so the report says what limited throughput.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from advisor.retrieval.chroma_server import free_port
from benchmarks.load_client import Connection, HttpError
from benchmarks.load_mix import ENDPOINT_CYCLE, SCENARIOS, Endpoint, Scenario, history_questions, request_for
from benchmarks.proc import CpuMeter, tree_rss_mb
from benchmarks.server import ROOT

ARTIFACTS = ROOT / "test-artifacts"
MAX_CLIENTS, MAX_SECONDS, MAX_REQUESTS = 256, 600, 200_000
REQUEST_TIMEOUT_S = 60.0
START_TIMEOUT_S = 240.0
RSS_SAMPLE_S = 0.25
TIMELINE_S = 5.0
# Tool failures that are the server's fault (a crash caught by the registry), never the user's.
SERVER_FAULT_CODES = {"internal_error"}
# Answers from an LLM endpoint are neither reproducible nor ours to load test.
DROPPED_VARIABLES = ("ADVISOR_LLM_BASE_URL", "ADVISOR_LLM_API_KEY", "ADVISOR_API_TOKEN", "ADVISOR_HOST", "ADVISOR_PORT",
                     "ADVISOR_TRUSTED_PROXIES")  # fmt: skip
TARGETS = {"speedup": 1.6, "p95_ms": 1000.0}  # 2 workers against 1, on 2 cores; p95 with 2 workers at 32 clients


def bounded(low: int, high: int):
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=bounded(1, MAX_CLIENTS), default=32, help="concurrent clients (default 32)")
    parser.add_argument("--seconds", type=bounded(1, MAX_SECONDS), default=60, help="length of the timed run (default 60)")
    parser.add_argument("--max-requests", type=bounded(1, MAX_REQUESTS), default=MAX_REQUESTS, help="stop early after this many")
    parser.add_argument("--workers", type=worker_counts, default=(1, 2), help="answer-worker counts to run one after another (default 1,2)")
    parser.add_argument("--output", type=Path, default=ARTIFACTS / "load.json", help="where the JSON numbers go")
    return parser.parse_args(argv)


def worker_counts(text: str) -> tuple[int, ...]:
    counts = tuple(bounded(1, 16)(part) for part in text.split(",") if part.strip())
    if not counts:
        raise argparse.ArgumentTypeError("give at least one worker count, e.g. 1,2")
    return counts


# --- the server ---------------------------------------------------------------------------
def server_env(port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_VARIABLES}
    env.update(
        ADVISOR_HOST="127.0.0.1", ADVISOR_PORT=str(port), ADVISOR_RATE_LIMIT="1000000",
        HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False", ANONYMIZED_TELEMETRY="False",
    )  # fmt: skip
    return env


def ensure_index(env: dict[str, str]) -> str:
    """Build the index in a separate process, so the embedder never weighs on the client."""
    done = subprocess.run(
        [sys.executable, "-m", "advisor.cli", "index", "--if-missing"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    output = (done.stdout or done.stderr).strip()
    return output.splitlines()[-1] if output else f"index check exited with code {done.returncode}"


@contextmanager
def running_app(log_path: Path, workers: int = 1):
    """Start `gpu-advisor serve --workers N` on a free loopback port; yield (base URL, pid); stop it afterwards."""
    port = free_port()
    env = server_env(port)
    print(ensure_index(env))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "advisor.cli", "serve", "--workers", str(workers)]
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_up(url, process)
            yield url, process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_until_up(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    with httpx.Client(timeout=5, trust_env=False) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with code {process.returncode}; see the server log")
            try:
                if client.get(f"{url}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
    raise RuntimeError(f"the server did not answer /healthz within {START_TIMEOUT_S:.0f} s")


# --- the clients --------------------------------------------------------------------------
@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {e: [] for e in ("api_chat", "openai", "openai_stream")})
    errors: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(map(len, self.latencies.values())) + len(self.errors)


def server_faults(tool_calls: list[dict]) -> list[str]:
    return [f"{c['name']}: {c['error']['code']}" for c in tool_calls if c.get("error") and c["error"].get("code") in SERVER_FAULT_CODES]


async def fetch_answer(connection: Connection, endpoint: Endpoint, scenario: Scenario, answers: dict[str, str]) -> tuple[str, list[dict]]:
    """(answer text, tool calls) as the endpoint returns them; raises ValueError on any protocol fault."""
    path, body = request_for(endpoint, scenario, answers)
    status, headers, payload = await connection.request("POST", path, body)
    if status != 200:
        raise ValueError(f"HTTP {status}: {payload[:200]!r}")
    if endpoint == "openai_stream":
        if not headers.get("content-type", "").startswith("text/event-stream"):
            raise ValueError(f"stream sent as {headers.get('content-type')}")
        events = [e.removeprefix("data: ") for e in payload.decode().split("\n\n") if e]
        if events[-1:] != ["[DONE]"]:
            raise ValueError("stream ended without [DONE]")
        return "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1]), []
    data = json.loads(payload)
    if endpoint == "openai":
        return data["choices"][0]["message"]["content"], data["advisor"]["tool_calls"]
    return data["answer"], data["tool_calls"]


async def reference_answers(connection: Connection) -> tuple[dict[str, str], list[str]]:
    """Each question answered once, one at a time: what every loaded answer must equal."""
    answers: dict[str, str] = {}
    warnings = []
    for question in history_questions():
        answers[question], _ = await fetch_answer(connection, "api_chat", Scenario("history", question, "en"), answers)
    for scenario in SCENARIOS:
        answers[scenario.name], calls = await fetch_answer(connection, "api_chat", scenario, answers)
        missing = {c["name"] for c in calls if (c.get("error") or {}).get("code") == "unknown_tool"}
        if missing:
            warnings.append(f"{scenario.name}: calls unregistered tool(s) {', '.join(sorted(missing))}")
        if server_faults(calls):
            raise RuntimeError(f"{scenario.name} fails even without load: {server_faults(calls)}")
    return answers, warnings


async def client_loop(worker: int, connection: Connection, answers, tally: Tally, deadline: float, max_requests: int) -> None:
    step = worker
    try:
        while time.monotonic() < deadline and tally.requests < max_requests:
            scenario = SCENARIOS[(worker * 7 + step) % len(SCENARIOS)]
            endpoint = ENDPOINT_CYCLE[step % len(ENDPOINT_CYCLE)]
            step += 1
            started = time.perf_counter()
            try:
                answer, calls = await fetch_answer(connection, endpoint, scenario, answers)
                problem = "; ".join(server_faults(calls))
                if answer != answers[scenario.name]:
                    problem = problem or "answer differs from the sequential one"
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, HttpError, ValueError, KeyError, IndexError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
                await connection.close()  # the stream may be mid-response: start clean
            if problem:
                tally.errors.append(f"{endpoint} {scenario.name}: {problem}")
            else:
                tally.latencies[endpoint].append(time.perf_counter() - started)
    finally:
        await connection.close()


async def sample_rss(pid: int, stop: asyncio.Event, peak: list[float], timeline: list[int]) -> None:
    """Track the peak RSS, and keep one sample per ``TIMELINE_S`` to tell a plateau from a leak."""
    started = time.monotonic()
    while not stop.is_set():
        rss = tree_rss_mb(pid)
        peak[0] = max(peak[0], rss)
        if time.monotonic() - started >= len(timeline) * TIMELINE_S:
            timeline.append(round(rss))
        try:
            await asyncio.wait_for(stop.wait(), RSS_SAMPLE_S)
        except asyncio.TimeoutError:
            pass


async def run_load(url: str, pid: int, args: argparse.Namespace) -> tuple[dict, dict[str, str]]:
    host, port = url.removeprefix("http://").split(":")
    connect = lambda: Connection(host, int(port), REQUEST_TIMEOUT_S)  # noqa: E731
    probe = connect()
    answers, warnings = await reference_answers(probe)
    rss_before = tree_rss_mb(pid)
    tally, peak, timeline, stop = Tally(), [rss_before], [], asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, stop, peak, timeline))
    meter, started = CpuMeter(pid), time.monotonic()
    deadline = started + args.seconds
    await asyncio.gather(*(client_loop(i, connect(), answers, tally, deadline, args.max_requests) for i in range(args.clients)))
    wall = time.monotonic() - started
    usage = meter.read(wall)
    stop.set()
    await sampler
    rss = {"before": round(rss_before), "peak_sampled": round(peak[0]), "after": round(tree_rss_mb(pid)), "every_5s": timeline}
    if (await probe.request("GET", "/healthz"))[0] != 200:
        tally.errors.append("/healthz failed after the run")
    await probe.close()
    return summarize(tally, wall, usage, rss, warnings), answers


# --- the report ---------------------------------------------------------------------------
def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    if not ordered:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}

    def at(q: float) -> float:  # nearest rank
        return round(1000 * ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.5) - 1))], 1)

    return {"p50_ms": at(0.50), "p95_ms": at(0.95), "p99_ms": at(0.99), "max_ms": round(1000 * ordered[-1], 1)}


def summarize(tally: Tally, wall: float, usage: dict[str, int], rss: dict, warnings: list[str]) -> dict:
    everything = [s for samples in tally.latencies.values() for s in samples]
    return {
        "requests": tally.requests,
        "seconds": round(wall, 1),
        "throughput_rps": round(tally.requests / wall, 1),
        "latency": percentiles(everything),
        "by_endpoint": {e: {"requests": len(s), **percentiles(s)} for e, s in tally.latencies.items()},
        "errors": len(tally.errors),
        "error_samples": tally.errors[:10],
        "server_rss_mb": rss,
        **usage,
        "warnings": warnings,
    }


def bottleneck_note(result: dict, cpus: int, workers: int = 1) -> str:
    """Who limited the throughput: the client, the server, or other work on the machine."""
    client, server, machine = result["client_cpu_pct"], result["server_cpu_pct"], result["machine_busy_pct"]
    facts = f"{cpus} cores; client {client}% of one core, server {server}% of one core, machine {machine}% busy overall"
    if client >= 50:
        return f"{facts}: the client used over half a core, so throughput may be client-bound."
    if server >= 85 * min(workers, cpus):
        return f"{facts}: the client was not the bottleneck; the server was CPU-bound ({workers} answer process(es))."
    if machine >= 90:
        return f"{facts}: the client was not the bottleneck; other processes competed for the CPU, so the numbers are low."
    return f"{facts}: the client was not the bottleneck."


def traceback_lines(log_path: Path) -> list[str]:
    text = log_path.read_text(encoding="utf-8", errors="replace")
    return [line for line in text.splitlines() if line.startswith("Traceback") or " 500 Internal" in line]


def print_table(result: dict, config: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    workers = config.get("workers", 1)
    table = Table(title=f"Load: {workers} answer worker(s), {config['clients']} clients × {config['seconds']} s on {config['url']}")
    for column in ("endpoint", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms"):
        table.add_column(column, justify="right")
    rows = [*result["by_endpoint"].items(), ("all", {"requests": result["requests"], **result["latency"]})]
    for name, row in rows:
        table.add_row(name, str(row["requests"]), *(f"{row[k]:.1f}" for k in ("p50_ms", "p95_ms", "p99_ms", "max_ms")))
    console = Console()
    console.print(table)
    rss = result["server_rss_mb"]
    console.print(
        f"{result['requests']} requests · throughput {result['throughput_rps']} req/s · errors {result['errors']} · "
        f"server RSS {rss['before']} MB before, {rss['peak_sampled']} MB peak, {rss['after']} MB after"
    )
    console.print(result["note"])
    for line in result["warnings"] + result["error_samples"]:
        console.print(f"  ! {line}", markup=False)


def run_one(args: argparse.Namespace, workers: int) -> tuple[dict, dict[str, str], str]:
    log_path = args.output.with_name(f"load-server-{workers}w.log")
    with running_app(log_path, workers) as (url, pid):
        result, answers = asyncio.run(run_load(url, pid, args))
    tracebacks = traceback_lines(log_path)
    result["errors"] += len(tracebacks)
    result["error_samples"] += tracebacks[:5]
    result["note"] = bottleneck_note(result, os.cpu_count() or 1, workers)
    # Throughput per CPU-second the server actually got: comparable even when other work shares the machine.
    result["requests_per_server_cpu_s"] = round(result["requests"] / max(result["server_cpu_pct"] / 100 * result["seconds"], 1e-9), 1)
    result["server_log"] = str(log_path)
    return result, answers, url


def compare(runs: dict[int, dict]) -> dict:
    """Throughput of the largest worker count against one worker, and whether the targets are met."""
    if 1 not in runs or len(runs) < 2:
        return {}
    most = max(runs)
    ratio = round(runs[most]["throughput_rps"] / max(runs[1]["throughput_rps"], 1e-9), 2)
    p95 = runs[most]["latency"]["p95_ms"]
    errors = sum(r["errors"] for r in runs.values())
    met = ratio >= TARGETS["speedup"] and p95 < TARGETS["p95_ms"] and errors == 0
    efficiency = round(runs[most]["requests_per_server_cpu_s"] / max(runs[1]["requests_per_server_cpu_s"], 1e-9), 2)
    return {"workers": most, "speedup": ratio, "p95_ms": p95, "errors": errors, "cpu_efficiency": efficiency, "targets": TARGETS, "met": met}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_before = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    runs: dict[int, dict] = {}
    reference: dict[str, str] | None = None
    for workers in args.workers:
        result, answers, url = run_one(args, workers)
        if reference is None:
            reference = answers
        differing = sorted(k for k in reference if answers.get(k) != reference[k])
        if differing:  # another process must give the very same answer
            result["errors"] += len(differing)
            result["error_samples"] += [f"answer differs from the first server's: {k}" for k in differing[:5]]
        config = {"clients": args.clients, "seconds": args.seconds, "url": url, "workers": workers}
        print_table(result, config)
        runs[workers] = result
    summary = compare(runs)
    report = {
        "command": " ".join(["python -m benchmarks.load", *(argv if argv is not None else sys.argv[1:])]),
        "machine": {"cpus": cpus, "load_average_before": round(load_before, 2), "python": sys.version.split()[0]},
        "config": {"clients": args.clients, "seconds": args.seconds, "questions": len(SCENARIOS), "endpoints": list(ENDPOINT_CYCLE)},
        "runs": {str(w): r for w, r in runs.items()},
        "comparison": summary,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if summary:
        verdict = "met" if summary["met"] else "NOT met"
        print(f"{summary['workers']} workers vs 1: {summary['speedup']}× throughput (target ≥ {TARGETS['speedup']}×), "
              f"p95 {summary['p95_ms']:.0f} ms (target < {TARGETS['p95_ms']:.0f}), {summary['errors']} errors: targets {verdict}. "
              f"Requests per server CPU-second: {summary['cpu_efficiency']:.0%} of one worker's (below 100% = cost of the extra processes).")  # fmt: skip
    print(f"Numbers written to {args.output}.")
    return 0 if all(r["errors"] == 0 for r in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
