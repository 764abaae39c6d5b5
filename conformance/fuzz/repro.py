"""Reproduction files: a shrunk failing program as a standalone pytest regression test.

The file rebuilds the driver (``plugins.registry.resolve_driver(spec, options)``),
makes a differential with ``<Differential>.for_driver(driver)`` (which probes retention
as the fuzzer did) and calls the recorded steps in order, checking the invariants
after each, exactly as the machine did. No hypothesis search runs, so the file
keeps working across Hypothesis versions and kit changes that would invalidate an
example database; a vendor commits it as a regression test.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import re
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.bridge import SyncFace
from conformance.checks.outcome import ConformanceFailure
from conformance.driver import Profile
from conformance.fuzz.steps import IMPORTS, Step, program

__all__ = ["driver_spec_of", "repro_source", "write_repro"]

_DIFFERENTIAL = {
    "engine": ("conformance.fuzz.engine_machine", "EngineDifferential"),
    "provider": ("conformance.fuzz.provider_machine", "ProviderDifferential"),
}


def driver_spec_of(driver: Any) -> str | None:
    """A `module:Class` spec that builds a driver like `driver`, when its class is importable
    and takes no arguments; `None` otherwise."""
    target = driver.target if isinstance(driver, SyncFace) else driver
    cls = type(target)
    if "<locals>" in cls.__qualname__ or cls.__module__ in ("__main__", "builtins"):
        return None
    try:
        found: Any = importlib.import_module(cls.__module__)
        for part in cls.__qualname__.split("."):
            found = getattr(found, part)
        required = [
            p
            for p in inspect.signature(cls).parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    if found is not cls or required:
        return None
    return f"{cls.__module__}:{cls.__qualname__}"


def _test_name(target_id: str, body: str) -> str:
    digest = hashlib.sha256(body.encode()).hexdigest()[:10]
    return f"test_{re.sub(r'[^A-Za-z0-9]', '_', target_id)}_{digest}"


def repro_source(
    target_id: str,
    profile: Profile,
    steps: list[Step],
    failure: ConformanceFailure,
    *,
    seed: int | None,
    driver_spec: str | None,
    driver_options: Mapping[str, str] | None = None,
) -> tuple[str, str]:
    """The regression test's name and the source of its file."""
    module, cls = _DIFFERENTIAL[profile]
    lines = program(steps)
    body = "\n".join(lines)
    name = _test_name(target_id, body)
    found = "derandomized" if seed is None else f"seed {seed}"
    # Inside a docstring: backslashes and triple quotes must not end or escape it.
    said = str(failure).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    reason = textwrap.fill(
        said, width=88, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False
    )
    if driver_spec is None:
        build = (
            "    # The fuzzer was handed a driver object it could not name; build it here.\n"
            '    raise NotImplementedError("fill in how to build the driver under test")'
        )
    else:
        build = f"    return resolve_driver(DRIVER_SPEC, DRIVER_OPTIONS).make({profile!r})"
    calls = textwrap.indent(body, " " * 8)
    source = f'''# ruff: noqa: E501 (the recorded arguments make long lines)
"""Regression test written by the tinymemory-conformance fuzzer
({target_id}, {found}).

    {reason}

It rebuilds the driver and replays the shrunk failing program as plain calls on a
differential, with the comparisons the fuzzer made; no hypothesis search runs.
It passes once the driver answers as the contract pins.
"""

from __future__ import annotations

{chr(10).join(IMPORTS)}
from {module} import {cls}
from plugins.registry import resolve_driver

DRIVER_SPEC: str | None = {driver_spec!r}
DRIVER_OPTIONS: dict[str, str] = {dict(driver_options or {})!r}


def build_driver() -> object:
    """The driver under test."""
{build}


def {name}() -> None:
    m = {cls}.for_driver(build_driver())
    try:
{calls}
    finally:
        m.teardown()


# Keep the imports the recorded arguments may need.
__all__ = ["ce", "cp", "datetime"]
'''
    return name, source


def write_repro(
    directory: Path,
    target_id: str,
    profile: Profile,
    steps: list[Step],
    failure: ConformanceFailure,
    *,
    seed: int | None,
    driver_spec: str | None,
    driver_options: Mapping[str, str] | None = None,
) -> Path:
    """Write the regression test into `directory` (created if missing); its path."""
    name, source = repro_source(
        target_id,
        profile,
        steps,
        failure,
        seed=seed,
        driver_spec=driver_spec,
        driver_options=driver_options,
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path
