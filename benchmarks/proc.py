"""CPU and memory of a server and every process it started (answer workers, a Chroma server), from /proc."""

from __future__ import annotations

import os
import time
from pathlib import Path


def _stat_fields(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants that are alive now."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int(_stat_fields(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):  # exited while we looked
                continue
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its reaped children, from /proc/<pid>/stat."""
    try:
        fields = _stat_fields(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    return sum(cpu_seconds(pid) for pid in process_tree(root))


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def tree_rss_mb(root: int) -> float:
    return sum(rss_mb(pid) for pid in process_tree(root))


def machine_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine since boot, from /proc/stat."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return sum(ticks) - idle, sum(ticks)


class CpuMeter:
    """CPU used by the server's process tree, by this client and by the whole machine since the meter was made.

    Workers are sampled while they run (a process that exits takes its CPU time with it)."""

    def __init__(self, server_pid: int):
        self.server_pid = server_pid
        self.server, self.client, self.machine = tree_cpu_seconds(server_pid), time.process_time(), machine_ticks()

    def read(self, wall: float) -> dict[str, int]:
        (busy, total), (busy0, total0) = machine_ticks(), self.machine
        return {
            "server_cpu_pct": round(100 * (tree_cpu_seconds(self.server_pid) - self.server) / wall),  # of one core
            "client_cpu_pct": round(100 * (time.process_time() - self.client) / wall),
            "machine_busy_pct": round(100 * (busy - busy0) / max(1, total - total0)),  # of all cores
        }
