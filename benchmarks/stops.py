"""How many stops one message makes on its way through the offline planner (issue #34: "one message makes 42 stops in
17 files and returns 25 times to a file it had left"): a report, never a failure.

Followed from ``OfflinePlanner.answer`` with ``sys.setprofile``, counting only the project's own functions under
``advisor/`` (the understanding, the router, the answer writers; the calculators under ``tools/`` and the data loaders
under ``knowledge/`` are counted apart):

- functions: distinct functions entered;
- files: distinct files entered;
- stops: calls that cross from one file into another (a call within the same file is no stop);
- returns: stops into a file the message had already entered and left;
- paths: distinct (from file, into file) pairs among the stops (the shape of the path, without its repeats).

The planner answers one warm-up message first, so loading the models and the data files is not counted.
Run alone: ``python -m benchmarks.stops``.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("advisor", "tools", "knowledge")
FOLLOWED = "advisor"
# three typical messages: a sizing, a recommendation in Chinese, a rent-or-buy follow-up
MESSAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("can two 4090s run Qwen2.5-32B in 4-bit?", ()),
    ("我们要部署Llama-3-70B，每天一千个用户，需要几张H100？", ()),
    ("and if we rent instead?", ("How much memory does Llama 3 70B need for inference in FP16?",)),
)
WARM_UP = "how much VRAM does a 7B model need?"


@dataclass
class Stops:
    message: str
    functions: set[tuple[str, str]] = field(default_factory=set)
    files: Counter = field(default_factory=Counter)  # file → times entered from another file
    stops: int = 0
    returns: int = 0
    paths: set[tuple[str, str]] = field(default_factory=set)
    other_layers: Counter = field(default_factory=Counter)  # tools/, knowledge/ → stops into them

    def row(self) -> dict:
        busiest = ", ".join(f"{name} {count}" for name, count in self.files.most_common(3))
        return {
            "name": f"stops per message: {self.message[:40]}",
            "result": f"{self.stops} stops in {len(self.files)} files, {len(self.functions)} functions, {self.returns} returns, "
            f"{len(self.paths)} paths (most entered: {busiest}; tools/ {self.other_layers['tools']}, knowledge/ {self.other_layers['knowledge']})",
            "target": "report only: fewer is better",
            "ok": True,
            "soft": True,
        }


def _layer_and_file(filename: str) -> tuple[str, str] | None:
    try:
        relative = Path(filename).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    layer = relative.split("/", 1)[0]
    return (layer, relative) if layer in LAYERS else None


def follow(planner, message: str, earlier: tuple[str, ...] = ()) -> Stops:
    """The stops ``planner.answer`` makes for ``message`` after the user messages ``earlier`` (each given a stub reply)."""
    from advisor.contract import ChatTurn

    history = [ChatTurn(role=role, content=text) for said in earlier for role, text in (("user", said), ("assistant", "…"))]
    found = Stops(message)
    stack: list[str | None] = []  # the project file of each open frame (None: a library's)
    left: set[str] = set()
    placed: dict[str, tuple[str, str] | None] = {}

    def nearest() -> str | None:
        return next((name for name in reversed(stack) if name is not None), None)

    def profile(frame, event, _arg) -> None:
        if event == "call":
            filename = frame.f_code.co_filename
            where = placed.get(filename)
            if filename not in placed:
                where = placed[filename] = _layer_and_file(filename)
            if where is None:
                stack.append(None)
                return
            layer, name = where
            caller = nearest()
            stack.append(name)
            if layer != FOLLOWED:
                if caller is not None and caller.startswith(FOLLOWED + "/"):
                    found.other_layers[layer] += 1
                return
            found.functions.add((name, frame.f_code.co_name))
            if caller == name:
                return
            found.stops += 1
            if name in left:
                found.returns += 1
            found.files[name] += 1
            if caller is not None:
                left.add(caller)
                found.paths.add((caller, name))
        elif event == "return" and stack:
            stack.pop()

    sys.setprofile(profile)
    try:
        planner.answer(message, history)
    finally:
        sys.setprofile(None)
    return found


def measure(messages=MESSAGES) -> list[Stops]:
    from advisor.config import Settings
    from advisor.deps import shared_registry
    from advisor.offline.planner import OfflinePlanner

    planner = OfflinePlanner(shared_registry(), cache_dir=Settings.from_env().data_dir)
    planner.answer(WARM_UP, [])
    return [follow(planner, message, earlier) for message, earlier in messages]


def rows() -> list[dict]:
    return [stops.row() for stops in measure()]


if __name__ == "__main__":
    for stops in measure():
        print(stops.row()["name"], "→", stops.row()["result"])
