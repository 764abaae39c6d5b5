"""The kit's settings: `[tool.tinymemory]` in pyproject.toml, overridden by the command line."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from conformance.redaction import redact_options

if sys.version_info >= (3, 11):  # noqa: UP036 - tomli stays the fallback the package declares
    import tomllib
else:  # pragma: no cover - exercised only below 3.11
    import tomli as tomllib

PROFILE_CHOICES = ("engine", "provider", "all")
DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.1


class SettingsError(ValueError):
    """A setting is malformed; the message names it and says what is expected."""


@dataclass(frozen=True)
class KitSettings:
    """Everything a conformance run is configured by."""

    driver: str | None = None
    driver_options: Mapping[str, str] = field(default_factory=dict)
    profile: str = "all"
    report: Path | None = None
    waivers: Path | None = None
    timeout: float | None = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    backoff: float = DEFAULT_BACKOFF
    fuzz: bool = False
    fuzz_examples: int | None = None
    fuzz_seed: int | None = None
    fuzz_repro_dir: Path | None = None

    def profiles(self) -> tuple[str, ...]:
        """The profiles asked for."""
        return ("engine", "provider") if self.profile == "all" else (self.profile,)

    def __repr__(self) -> str:
        # Credentials redacted: a traceback that prints the settings must not print a key.
        shown = {
            f.name: redact_options(self.driver_options)
            if f.name == "driver_options"
            else getattr(self, f.name)
            for f in fields(self)
        }
        return f"KitSettings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


def _tinymemory_table(path: Path) -> dict[str, Any] | None:
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    table = data.get("tool", {}).get("tinymemory")
    if table is not None and not isinstance(table, dict):
        raise SettingsError(f"[tool.tinymemory] in {path} must be a table")
    return table


def read_pyproject(start: Path) -> tuple[dict[str, Any], Path]:
    """The nearest `[tool.tinymemory]` table at or above `start`, and its file's directory.

    The nearest table wins, so a driver's own pyproject.toml is read even where pytest
    chose a rootdir further up. Without one: ({}, start).
    """
    for folder in (start, *start.parents):
        path = folder / "pyproject.toml"
        if path.is_file():
            table = _tinymemory_table(path)
            if table is not None:
                return table, folder
    return {}, start


def exec_spec(argv: Sequence[object]) -> str:
    """The `exec:` driver spec of a command given as an argument list."""
    if not argv or not all(isinstance(arg, str) for arg in argv):
        raise SettingsError(
            f"[tool.tinymemory] driver as a list is a command: a non-empty list of strings, "
            f"got {argv!r}"
        )
    return "exec:" + shlex.join(str(arg) for arg in argv)


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """`KEY=VALUE` strings to a dict; a pair without `=` is an error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SettingsError(f"--driver-option takes KEY=VALUE, got {pair!r}")
        options[key.strip()] = value
    return options


_FILE_KEYS = {
    "driver",
    "driver-options",
    "profile",
    "conformance-report",
    "waivers",
    "driver-timeout",
    "driver-retries",
    "driver-backoff",
    "fuzz",
    "fuzz-examples",
    "fuzz-seed",
    "fuzz-repro-dir",
}


def merge(file: Mapping[str, Any], cli: Mapping[str, Any], rootdir: Path) -> KitSettings:
    """Settings from the file table, each overridden by the command line when given there."""
    unknown = sorted(set(file) - _FILE_KEYS)
    if unknown:
        raise SettingsError(
            f"[tool.tinymemory] has unknown keys {unknown}; known: {sorted(_FILE_KEYS)}"
        )

    def pick(key: str) -> Any:
        value = cli.get(key)
        return value if value is not None else file.get(key)

    driver = pick("driver")
    if isinstance(driver, list):
        driver = exec_spec(driver)
    elif driver is not None and not isinstance(driver, str):
        raise SettingsError(
            "[tool.tinymemory] driver must be a name, a module:attr spec, an exec:COMMAND "
            "string, or a command as a list of strings"
        )

    file_options = file.get("driver-options", {})
    if not isinstance(file_options, dict):
        raise SettingsError("[tool.tinymemory] driver-options must be a table of strings")
    options = {str(k): str(v) for k, v in file_options.items()}
    options.update(cli.get("driver-options") or {})

    profile = pick("profile") or "all"
    if profile not in PROFILE_CHOICES:
        raise SettingsError(f"profile must be one of {PROFILE_CHOICES}, got {profile!r}")
    timeout = pick("driver-timeout")
    timeout_value = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    retries = pick("driver-retries")

    def path(key: str) -> Path | None:
        value = pick(key)
        if value is None:
            return None
        # A path from the file is relative to the file's directory; one from the
        # command line is relative to where pytest was started.
        candidate = Path(value)
        from_file = cli.get(key) is None
        return rootdir / candidate if from_file and not candidate.is_absolute() else candidate

    fuzz_examples = pick("fuzz-examples")
    fuzz_seed = pick("fuzz-seed")
    return KitSettings(
        driver=driver,
        driver_options=options,
        profile=profile,
        report=path("conformance-report"),
        waivers=path("waivers"),
        timeout=None if timeout_value <= 0 else timeout_value,
        retries=DEFAULT_RETRIES if retries is None else int(retries),
        backoff=float(pick("driver-backoff") or DEFAULT_BACKOFF),
        fuzz=bool(pick("fuzz")),
        fuzz_examples=None if fuzz_examples is None else int(fuzz_examples),
        fuzz_seed=None if fuzz_seed is None else int(fuzz_seed),
        fuzz_repro_dir=path("fuzz-repro-dir"),
    )
