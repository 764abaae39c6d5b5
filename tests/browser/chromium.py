"""Debian's headless Chromium, driven from the command line (no automation library): the
DOM after the page's script ran (`--dump-dom`) and a screenshot (`--screenshot`), both
from one run of the browser."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Final

import pytest

REQUIRE: Final = "TINYMEMORY_REQUIRE_BROWSER"
"""Set to `1` (CI does), a missing browser fails the tests instead of skipping them."""
INSTALLING: Final = "TINYMEMORY_CHROMIUM_STATUS"
"""A file CI's background install of the browser writes its exit status to when done: the
tests wait for it (the rest of the suite does not)."""
INSTALL_WAIT: Final = 600.0
"""Seconds to wait for that install."""
ARTIFACTS: Final = "TINYMEMORY_ARTIFACTS"
"""Where the screenshots go; default `.ci/artifacts/` in the checkout."""
ROOT: Final = Path(__file__).resolve().parents[2]

# No network, no first-run work, no sandbox (CI runs as root): the page is a local file.
FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
TIMEOUT: Final = 90.0
"""Seconds one browser run may take (a cold start on a loaded two-core machine)."""


def _installed() -> None:
    """Wait for CI's background install of the browser, if one is under way; fail the
    test, with the install's output, when it failed."""
    status = os.environ.get(INSTALLING)
    if not status:
        return
    path = Path(status)
    deadline = time.monotonic() + INSTALL_WAIT
    while not path.is_file() or not path.read_text().strip():
        if time.monotonic() > deadline:
            pytest.fail(f"the browser's install did not end within {INSTALL_WAIT:g} s")
        time.sleep(0.5)
    code = path.read_text().strip()
    if code != "0":
        log = path.with_suffix(".log")
        shown = log.read_text()[-3000:] if log.is_file() else "(no log)"
        pytest.fail(f"installing the browser failed (status {code}):\n{shown}")


def chromium() -> str:
    """The browser's path, once CI's install of it has ended; skips the test when there
    is none, or fails it when `TINYMEMORY_REQUIRE_BROWSER=1`."""
    _installed()
    found = shutil.which("chromium")
    if found is not None:
        return found
    why = "no chromium on PATH (apt-get install chromium)"
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{why}, and {REQUIRE}=1 requires it")
    pytest.skip(why)


def artifacts() -> Path:
    """The folder CI keeps: `$TINYMEMORY_ARTIFACTS`, or `.ci/artifacts/`."""
    folder = Path(os.environ.get(ARTIFACTS) or ROOT / ".ci" / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _run(browser: str, *args: str) -> str:
    with tempfile.TemporaryDirectory(prefix="tinymemory-chromium-") as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def load(browser: str, url: str, shot: Path | None = None, size: str = "1280,1400") -> str:
    """The page's DOM, serialised after its scripts ran; with `shot`, also a PNG there of
    the page's first `size` pixels (one browser run does both)."""
    args = ["--dump-dom", url]
    if shot is not None:
        shot.unlink(missing_ok=True)
        args = [f"--window-size={size}", f"--screenshot={shot}", *args]
    dom = _run(browser, *args)
    assert "<html" in dom, dom[:500]
    if shot is not None:
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot
    return dom


class Element:
    """One element of a parsed page: its tag, attributes, children and text."""

    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[Element | str] = []

    def text(self) -> str:
        """Its text, descendants' included."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> list[Element]:
        """It and every element below it, in document order."""
        found = [self]
        for child in self.children:
            if isinstance(child, Element):
                found += child.iter()
        return found

    @property
    def hidden(self) -> bool:
        """Whether it carries the `hidden` attribute."""
        return "hidden" in self.attrs


VOID: Final = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    ]
)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        # The browser's serialisation closes every element it opened, in order.
        assert self.open[-1].tag == tag, (self.open[-1].tag, tag)
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(dom: str) -> Element:
    """The serialised DOM as a tree; fails on an unbalanced tag."""
    builder = _Builder()
    builder.feed(dom)
    builder.close()
    assert builder.open == [builder.root], [e.tag for e in builder.open]
    return builder.root
