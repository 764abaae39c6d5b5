"""Reproduction files: a shrunk failing program as a standalone pytest regression test.

The file rebuilds the driver (``plugins.registry.resolve_driver(spec, options)``),
opens a ``FuzzSession`` on a fresh instance of it (which probes retention as the fuzzer
did) and runs the recorded programs as plain calls, comparing after each step exactly
as the fuzzer's replay did. When the fault needs history (the programs the fuzzer ran
on the same instance before the failing one), those programs come first. No
hypothesis search runs, so the file keeps working across Hypothesis versions and kit
changes that would invalidate an example database; a vendor commits it as a
regression test.

The runner writes a file only after replaying it on a fresh instance and seeing it
fail. A file never holds a secret: options whose values are credentials are read from
the environment (``TINYMEMORY_DRIVER_OPTION_<KEY>``; the test skips, naming the
variable, when it is unset), and the failure quoted in its docstring is redacted.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import re
import textwrap
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from conformance.bridge import SyncFace
from conformance.fuzz.steps import IMPORTS, Step, program
from conformance.report import redact_text

__all__ = [
    "OPTION_ENVIRONMENT_PREFIX",
    "driver_option",
    "driver_spec_of",
    "option_variable",
    "repro_source",
    "write_repro",
]

OPTION_ENVIRONMENT_PREFIX = "TINYMEMORY_DRIVER_OPTION_"
"""Environment variables a regression file reads secret driver options from."""


def option_variable(key: str) -> str:
    """The environment variable holding driver option `key` (`api_key` →
    `TINYMEMORY_DRIVER_OPTION_API_KEY`)."""
    return OPTION_ENVIRONMENT_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", key).upper()


def driver_option(key: str) -> str:
    """The value of secret driver option `key`, from its environment variable; skips
    the calling test, naming the variable, when it is unset."""
    name = option_variable(key)
    value = os.environ.get(name)
    if value is None:
        import pytest

        pytest.skip(f"set {name} to the driver option `{key}` (secrets are never written here)")
    return value


def driver_spec_of(driver: Any) -> str | None:
    """A `module:Class` spec that builds a driver like `driver`, when its class is importable
    and takes no arguments; `None` otherwise."""
    target = driver.target if isinstance(driver, SyncFace) else driver
    cls = target if isinstance(target, type) else type(target)
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


def _options_source(options: Mapping[str, str], secrets: Collection[str]) -> str:
    if not options:
        return "{}"
    lines = []
    for key, value in options.items():
        shown = f"driver_option({key!r})" if value in secrets else repr(value)
        lines.append(f"        {key!r}: {shown},")
    return "{\n" + "\n".join(lines) + "\n    }"


def _block(steps: list[Step], comment: str) -> list[str]:
    lines = [f"    with fuzz.program() as m:{comment}"]
    body = program(steps) or ["pass"]
    lines += [f"        {line}" for line in body]
    return lines


def repro_source(
    target_id: str,
    programs: list[list[Step]],
    failure: str,
    *,
    seed: int | None,
    driver_spec: str,
    driver_options: Mapping[str, str] | None = None,
    secrets: Collection[str] = (),
    full_every: int = 1,
) -> tuple[str, str]:
    """The regression test's name and the source of its file.

    `programs` run in order on one instance, the last one failing; `failure` is the
    message it fails with (redacted here of every value in `secrets`).
    """
    blocks: list[str] = []
    history = len(programs) - 1
    for number, steps in enumerate(programs[:-1], start=1):
        blocks += _block(steps, f"  # history: program {number} of {history}")
    blocks += _block(programs[-1], "  # the failing program" if history else "")
    body = "\n".join(blocks)
    name = _test_name(target_id, body)
    found = "derandomized" if seed is None else f"seed {seed}"
    said = redact_text(failure, secrets)
    # Inside a docstring: backslashes and triple quotes must not end or escape it.
    said = said.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    reason = textwrap.indent(
        "\n".join(
            textwrap.fill(line, width=84, break_long_words=False, break_on_hyphens=False)
            for line in said.splitlines()
        ),
        "    ",
    )
    needs = (
        f"\nThe fault shows only after {history} earlier program(s) on the same driver\n"
        "instance, so they run first, in the order the fuzzer ran them.\n"
        if history
        else ""
    )
    options = dict(driver_options or {})
    uses_secret = any(value in secrets for value in options.values())
    secret_note = (
        "\nSecret driver options are read from the environment "
        f"({OPTION_ENVIRONMENT_PREFIX}<KEY>);\n"
        "the test skips, naming the variable, when one is unset.\n"
        if uses_secret
        else ""
    )
    source = f'''# ruff: noqa: E501 (the recorded arguments make long lines)
"""Regression test written by the tinymemory-conformance fuzzer
({target_id}, {found}).

{reason}

It rebuilds the driver and replays the shrunk failing program as plain calls on a
differential, comparing with the reference after every step as the fuzzer did; no
hypothesis search runs. It passes once the driver answers as the contract pins.
{needs}{secret_note}"""

from __future__ import annotations

{chr(10).join(IMPORTS)}
from conformance.fuzz import FuzzSession, driver_option
from plugins.registry import resolve_driver

DRIVER_SPEC: str = {driver_spec!r}


def driver_options() -> dict[str, str]:
    """The driver's options (secret ones from the environment)."""
    return {_options_source(options, secrets)}


def {name}() -> None:
    fuzz = FuzzSession.start(
        {target_id!r}, resolve_driver(DRIVER_SPEC, driver_options()), full_every={full_every}
    )
    try:
{textwrap.indent(body, "    ")}
    finally:
        fuzz.shutdown()


# Keep the imports the recorded arguments may need.
__all__ = ["ce", "cp", "datetime", "driver_option"]
'''
    return name, source


def write_repro(directory: Path, name: str, source: str) -> Path:
    """Write a regression test's source into `directory` (created if missing); its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path
