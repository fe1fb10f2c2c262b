"""A tiny Chrome DevTools Protocol driver over ``--remote-debugging-pipe`` (no websocket, no package).

Drives Debian's headless Chromium (``/usr/bin/chromium``) to open a page, run JavaScript in it,
type into it and take screenshots: enough to look at a report as a person would and to test its
filters. Messages are JSON objects separated by NUL bytes; Chromium reads them on fd 3 and
writes on fd 4 (see the DevTools protocol's "pipe" transport).

    with Browser.launch() as b:
        b.open("file:///tmp/run/report.html")
        b.type_into("#filter-text", "bert")
        print(b.eval("document.getElementById('filter-count').textContent"))
        b.screenshot(Path("shot.png"), width=1280, height=2000)
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "Browser", "CdpError", "find_chromium"]

CHROMIUM = "/usr/bin/chromium"
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--remote-debugging-pipe",
)


class CdpError(RuntimeError):
    """Chromium answered a command with an error, died, or did not answer in time."""


def find_chromium() -> str | None:
    """Debian's Chromium if it is installed (``/usr/bin/chromium``, else ``chromium`` on PATH)."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    return shutil.which("chromium")


def _high(fd: int) -> int:
    """``fd`` moved to a number above 4, so that dup2 onto fds 3 and 4 in the child cannot clobber it."""
    if fd > 4:
        return fd
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


class Browser:
    """One headless Chromium and one page in it."""

    def __init__(
        self, proc: subprocess.Popen[bytes], write_fd: int, read_fd: int, profile: str
    ) -> None:
        self._proc, self._w, self._r, self._profile = proc, write_fd, read_fd, profile
        self._buf = b""
        self._next = 0
        self._events: list[dict[str, Any]] = []
        self.session: str | None = None

    @classmethod
    def launch(cls, binary: str | None = None, timeout: float = 30.0) -> Browser:
        """Start Chromium with a fresh profile and attach to a new blank page."""
        exe = binary or find_chromium()
        if exe is None:
            raise CdpError("chromium not found (apt-get install chromium)")
        to_child_r, to_child_w = (_high(x) for x in os.pipe())
        from_child_r, from_child_w = (_high(x) for x in os.pipe())
        profile = tempfile.mkdtemp(prefix="cdp-profile-")

        def child() -> None:  # pragma: no cover - runs in the child
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        proc = subprocess.Popen(
            [exe, *_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child,
            close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        b = cls(proc, to_child_w, from_child_r, profile)
        b.timeout = timeout
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        b.session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        b.send("Page.enable", session=True)
        b.send("Runtime.enable", session=True)
        return b

    timeout: float = 30.0

    # -------------------------------------------------------------------- protocol

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("chromium did not answer in time")
            ready, _, _ = select.select([self._r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise CdpError(f"chromium closed the pipe (exit code {self._proc.poll()})")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        msg: dict[str, Any] = json.loads(raw)
        return msg

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False
    ) -> dict[str, Any]:
        """Send one command (to the page's session when ``session``) and return its result."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            got = self._read_message(deadline)
            if got.get("id") == self._next:
                if "error" in got:
                    raise CdpError(f"{method}: {got['error']}")
                result: dict[str, Any] = got.get("result", {})
                return result
            if "method" in got:
                self._events.append(got)

    def wait_event(self, method: str) -> dict[str, Any]:
        """The next event ``method`` of the page (events already received count)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for i, ev in enumerate(self._events):
                if ev.get("method") == method and ev.get("sessionId") == self.session:
                    del self._events[: i + 1]
                    params: dict[str, Any] = ev.get("params", {})
                    return params
            self._events.append(self._read_message(deadline))

    # -------------------------------------------------------------------- page

    def open(self, url: str) -> float:
        """Load ``url`` and wait for its load event; return the seconds it took."""
        self._events.clear()
        t0 = time.perf_counter()
        self.send("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")
        return time.perf_counter() - t0

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable values only)."""
        got = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in got:
            det = got["exceptionDetails"]
            what = (det.get("exception") or {}).get("description") or det.get("text")
            raise CdpError(f"script error in {expression[:80]!r}: {what}")
        return got.get("result", {}).get("value")

    def type_into(self, selector: str, text: str) -> None:
        """Focus the element ``selector`` and type ``text`` as keyboard input (fires ``input`` events)."""
        self.eval(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text}, session=True)

    def screenshot(self, path: Path, width: int = 1280, height: int = 2000) -> None:
        """A PNG of the page's top ``width`` × ``height`` pixels after the current scroll position."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        got = self.send("Page.captureScreenshot", {"format": "png"}, session=True)
        Path(path).write_bytes(base64.b64decode(got["data"]))

    def close(self) -> None:
        """Close Chromium and remove its profile."""
        with contextlib.suppress(CdpError, OSError):
            self.send("Browser.close")
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._w, self._r):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
