"""A `chroma run` child process on 127.0.0.1, for `gpu-advisor serve --workers N` without ADVISOR_CHROMA_URL.

Several processes must not open one embedded Chroma store at once, so the serve command starts
Chroma's own server on the same directory the embedded store uses (the on-disk format is the
same: an index built by `make index` is served as it is) and every worker talks to it over HTTP.
It dies with the command: stopped on exit, and on Linux also if the command is killed.
"""

from __future__ import annotations

import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: this process gets SIGTERM when its parent dies (used between fork and exec, and by workers)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:  # not Linux/glibc: the normal shutdown still stops it
        pass


def chroma_cli() -> str:
    beside = Path(sys.executable).with_name("chroma")
    found = str(beside) if beside.exists() else shutil.which("chroma")
    if not found:
        raise FileNotFoundError("the `chroma` command (from the chromadb package) is not installed")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class ChromaProcess:
    def __init__(self, path: Path, log_path: Path, port: int | None = None):
        self.path, self.log_path = Path(path), Path(log_path)
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            command = [chroma_cli(), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)]
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            preexec_fn=die_with_parent)  # fmt: skip
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chroma exited with code {self.process.returncode}; see {self.log_path}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"chroma did not listen on 127.0.0.1:{self.port} within {timeout_s:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
