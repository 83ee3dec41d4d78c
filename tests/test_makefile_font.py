"""`make install` provides the CJK font the PDF proposal needs, and never fails when it cannot."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _recording_apt(tmp_path: Path, exit_code: int = 0) -> tuple[Path, Path]:
    log = tmp_path / "apt.log"
    script = tmp_path / "apt-get"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexit {exit_code}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, log


def _make_font(tmp_path: Path, font: Path, apt: Path, user_id: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", "-C", str(ROOT), "cjk-font", f"CJK_FONT={font}", f"APT_GET={apt}", f"USER_ID={user_id}"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip


def test_missing_font_is_installed_as_root(tmp_path):
    apt, log = _recording_apt(tmp_path)
    done = _make_font(tmp_path, tmp_path / "absent.ttc", apt, "0")
    assert done.returncode == 0
    assert "install -y -qq fonts-wqy-microhei" in log.read_text()


def test_present_font_installs_nothing(tmp_path):
    apt, log = _recording_apt(tmp_path)
    font = tmp_path / "present.ttc"
    font.write_bytes(b"font")
    done = _make_font(tmp_path, font, apt, "0")
    assert done.returncode == 0 and not log.exists()
    assert done.stdout == ""


@pytest.mark.parametrize("user_id, apt_exit", [("1000", 0), ("0", 100)])
def test_set_up_carries_on_when_the_font_cannot_be_installed(tmp_path, user_id, apt_exit):
    apt, log = _recording_apt(tmp_path, apt_exit)
    done = _make_font(tmp_path, tmp_path / "absent.ttc", apt, user_id)
    assert done.returncode == 0
    assert "ADVISOR_CJK_FONT" in done.stdout
    assert log.exists() == (user_id == "0")


def test_install_target_depends_on_the_font():
    dry_run = subprocess.run(["make", "-n", "-p", "-C", str(ROOT), "cjk-font", "CJK_FONT=/"],
                             capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
    install_rule = next(line for line in dry_run.stdout.splitlines() if line.startswith("install:"))
    assert "cjk-font" in install_rule
