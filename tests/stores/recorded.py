"""The example stores' recorded runs: how each is run, how its report is normalised, and
how two reports' outcomes are compared.

Each adapter under `examples/stores/<name>/` keeps `report.json`: the JSON report of
its suite and fuzz run (fixed seed, `--fuzz-examples FUZZ_EXAMPLES`), with what differs
from run to run normalised away. `python -m tests.stores.record NAME` records it again.
The adapters run under `TINYMEMORY_STORES_PYTHON` when set (CI installs the stores in an
environment of their own), else under this interpreter.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
STORES: Final = ROOT / "examples" / "stores"
SEED: Final = 2026
FUZZ_EXAMPLES: Final = 5
"""Programs per fuzz target: CI's budget for the three stores is about a minute (the
default of 40 takes 40 to 100 s per store)."""
NORMALISED_TIME: Final = "1970-01-01T00:00:00+00:00"


@dataclass(frozen=True)
class Adapter:
    """One example adapter: its folder under `examples/stores/`, driver and distribution."""

    name: str
    distribution: str

    @property
    def folder(self) -> Path:
        return STORES / self.name

    @property
    def recorded(self) -> Path:
        return self.folder / "report.json"


ADAPTERS: Final = {
    adapter.name: adapter
    for adapter in (
        Adapter("langgraph", "tinymemory-langgraph"),
        Adapter("langgraph-sqlite", "tinymemory-langgraph-sqlite"),
        Adapter("qdrant", "tinymemory-qdrant"),
    )
}


def stores_python() -> str:
    """The interpreter the adapters are installed in."""
    return os.environ.get("TINYMEMORY_STORES_PYTHON") or sys.executable


def installed(adapter: Adapter, python: str) -> bool:
    """Whether `python` has the adapter's distribution (and so its store) installed."""
    probe = "import importlib.metadata as m, sys; m.distribution(sys.argv[1])"
    found = subprocess.run(
        [python, "-c", probe, adapter.distribution], capture_output=True, check=False
    )
    return found.returncode == 0


def run_command(adapter: Adapter, report: Path) -> list[str]:
    """The pytest arguments of an adapter's recorded run (after `python -m pytest`)."""
    return [
        "-p",
        "no:cacheprovider",
        # langsmith (a dependency of LangGraph's stores) registers a pytest plugin that
        # takes two seconds to import and has nothing to do here.
        "-p",
        "no:langsmith_plugin",
        "-q",
        f"--driver={adapter.name}",
        "--conformance-seed",
        str(SEED),
        "--fuzz",
        "--fuzz-examples",
        str(FUZZ_EXAMPLES),
        "--conformance-report",
        str(report),
    ]


def run(adapter: Adapter, workdir: Path, python: str) -> tuple[dict[str, Any], str]:
    """Runs the adapter's suite and fuzz in `workdir` (a folder of no project, so only
    the kit's checks are collected); its raw report and the run's output."""
    report = workdir / "report.json"
    done = subprocess.run(
        [python, "-m", "pytest", *run_command(adapter, report)],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    output = done.stdout + done.stderr
    if not report.exists():
        raise RuntimeError(f"`{adapter.name}` wrote no report:\n{output}")
    return json.loads(report.read_text()), output


def _normalise_text(text: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        text = text.replace(prefix, "<site>")
    return text


def normalise(report: dict[str, Any], prefixes: tuple[str, ...] = ()) -> dict[str, Any]:
    """The report with what differs from run to run made constant: the time it was
    written, each check's duration, and the paths of installed files (`prefixes`, in
    tracebacks) written `<site>`."""
    out: dict[str, Any] = json.loads(json.dumps(report))
    out["created_at"] = NORMALISED_TIME
    for entry in out["checks"]:
        entry["duration"] = 0.0
        if entry.get("trace"):
            entry["trace"] = _normalise_text(entry["trace"], prefixes)
        if entry.get("reason"):
            entry["reason"] = _normalise_text(entry["reason"], prefixes)
    return out


def site_prefixes(python: str) -> tuple[str, ...]:
    """The folders `python` imports installed code from, longest first."""
    listing = subprocess.run(
        [python, "-c", "import json, sys; print(json.dumps(sys.path))"],
        capture_output=True,
        text=True,
        check=True,
    )
    folders = [p for p in json.loads(listing.stdout) if p and Path(p).is_dir()]
    return tuple(sorted({str(Path(p)) for p in folders}, key=len, reverse=True))


def outcomes(report: dict[str, Any]) -> list[str]:
    """One line per thing a change must not move unnoticed: the verdict, each profile's
    level, and each check's outcome."""
    lines = [f"verdict: {report['summary']['verdict']}"]
    for profile, entry in sorted(report["profiles"].items()):
        lines.append(f"level {profile}: {entry['level']}")
    for entry in sorted(report["checks"], key=lambda e: str(e["id"])):
        lines.append(f"{entry['id']}: {entry['outcome']}")
    return lines


def outcome_diff(recorded: dict[str, Any], live: dict[str, Any]) -> list[str]:
    """The unified diff of the two reports' outcomes (empty when they agree)."""
    return list(
        difflib.unified_diff(
            outcomes(recorded), outcomes(live), "recorded", "this run", lineterm="", n=0
        )
    )


def reason_of(report: dict[str, Any], check_id: str) -> str:
    """A check's reason in `report` (for a diff's explanation)."""
    for entry in report["checks"]:
        if entry["id"] == check_id:
            return str(entry.get("reason") or "")
    return ""


_CHANGED: Final = re.compile(r"^[+](?P<id>[a-z_]+[.][a-z_.\[\]]+): ")


def changed_checks(diff: list[str]) -> list[str]:
    """The ids of the checks whose outcome this run changed."""
    return [m["id"] for line in diff if (m := _CHANGED.match(line))]


def write(adapter: Adapter, report: dict[str, Any]) -> None:
    """Writes a normalised report as the adapter's recorded one."""
    adapter.recorded.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
