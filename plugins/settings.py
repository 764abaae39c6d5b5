"""The kit's settings: `[tool.tinymemory]` in pyproject.toml, overridden by the command line.

Every setting is declared once (`SETTINGS`): the pytest plugin and `tinymemory-conformance
run` add their flags from it, and one validator per setting checks a value from either
place, so a bad value is one line naming where it came from and what is wanted.
"""

from __future__ import annotations

import difflib
import math
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from conformance.fuzz_defaults import DEFAULT_EXAMPLES
from conformance.redaction import redact_options

if sys.version_info >= (3, 11):  # noqa: UP036 - tomli stays the fallback the package declares
    import tomllib
else:  # pragma: no cover - exercised only below 3.11
    import tomli as tomllib

PROFILE_CHOICES = ("engine", "provider", "all")
ISOLATION_CHOICES = ("none", "process")
DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.1
WORKER_PLACEHOLDER = "{worker}"
"""In a driver option's value, replaced by the xdist worker id (`gw0`, ...) or `main`."""


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
    seed: int | None = None
    """The run seed asked for (`--conformance-seed`); None draws one."""
    repeat: int = 1
    """How many times each check runs (`--conformance-repeat`)."""
    concurrency: int = 1
    """How many checks run at once against the driver (`--conformance-concurrency`)."""
    isolation: str = "none"
    """`process`: a Python driver runs in a child process the kit supervises
    (`--driver-isolation`)."""
    driver_from_cli: bool = False
    """Whether `--driver` was given on the command line (not read from the file)."""

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

    def options_for(self, worker: str) -> dict[str, str]:
        """The driver options with `{worker}` replaced by `worker` (`gw0`, or `main`)."""
        return {k: v.replace(WORKER_PLACEHOLDER, worker) for k, v in self.driver_options.items()}

    @property
    def markdown_report(self) -> Path | None:
        """Where the Markdown summary goes: beside the JSON report, with `.md`."""
        return None if self.report is None else self.report.with_suffix(".md")


# -- one validator per kind of value ---------------------------------------------------


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{what}: wanted a non-empty string, got {value!r}")
    return value


def _number(value: object, what: str) -> float:
    if isinstance(value, bool):
        raise SettingsError(f"{what}: wanted a number, got {value!r}")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise SettingsError(f"{what}: wanted a number, got {value!r}") from None
    if not isinstance(value, int | float):
        raise SettingsError(f"{what}: wanted a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise SettingsError(f"{what}: wanted a finite number of seconds >= 0, got {value!r}")
    return number


def _integer(value: object, what: str, least: int) -> int:
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{what}: wanted a whole number >= {least}, got {value!r}")
    if value < least:
        raise SettingsError(f"{what}: wanted a whole number >= {least}, got {value}")
    return value


def _at_least(least: int) -> Callable[[object, str], int]:
    """The check of a whole number >= `least`."""
    return lambda value, what: _integer(value, what, least)


def _boolean(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{what}: wanted true or false (a TOML boolean), got {value!r}")
    return value


def _driver_spec(value: object, what: str) -> str:
    # In pyproject.toml a command may be a list of arguments: it names an exec: driver.
    if isinstance(value, list):
        try:
            return exec_spec(value)
        except SettingsError:
            raise SettingsError(
                f"{what}: a command as a list must be a non-empty list of strings, got {value!r}"
            ) from None
    if isinstance(value, str) and not value.strip():
        raise SettingsError(
            f"{what.strip()}: the driver name is empty; give an entry-point name (see "
            f"`tinymemory-conformance drivers`), package.module:attr, or exec:COMMAND"
        )
    if not isinstance(value, str):
        raise SettingsError(
            f"{what}: wanted a name, a module:attr spec, an exec:COMMAND string, or a "
            f"command as a list of strings, got {value!r}"
        )
    return value


def _report_path(value: object, what: str) -> str:
    text = _text(value, what)
    suffix = Path(text).suffix.lower()
    if suffix == ".md":
        raise SettingsError(
            f"{what}: {text!r} is a Markdown path, but the report is JSON; give a .json "
            f"path (the Markdown summary is written beside it, as {Path(text).stem}.md)"
        )
    if suffix in (".html", ".htm"):
        raise SettingsError(
            f"{what}: {text!r} is an HTML path, but the report is JSON; give a .json "
            f"path (the HTML page is written beside it, as {Path(text).stem}.html)"
        )
    return text


@dataclass(frozen=True)
class Setting:
    """One setting: its key in `[tool.tinymemory]`, its flag, and how a value is checked."""

    key: str
    help: str
    check: Callable[[object, str], Any] | None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    flag: bool = False
    """A command-line switch without a value (`--fuzz`)."""
    repeatable: bool = False

    @property
    def option(self) -> str:
        """The command-line flag."""
        return f"--{self.key}"

    @property
    def dest(self) -> str:
        """The attribute pytest stores the flag's value under."""
        return self.key.replace("-", "_")


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "driver",
        "driver to hold to the contract: an entry-point name of the group "
        "tinymemory.drivers, package.module:attr, or exec:COMMAND (a process speaking the "
        "driver protocol, docs/protocol.md)",
        _driver_spec,
        metavar="NAME",
    ),
    Setting(
        "driver-option",
        "an option for the driver (repeatable); `{worker}` in a value becomes the xdist "
        "worker id (gw0, ...) or `main`",
        None,
        metavar="KEY=VALUE",
        repeatable=True,
    ),
    Setting(
        "profile",
        "which profile's checks to run (default: all the driver offers)",
        None,
        choices=PROFILE_CHOICES,
    ),
    Setting(
        "conformance-report",
        "write the JSON report here (a .json path), and a Markdown summary beside it",
        _report_path,
        metavar="PATH",
    ),
    Setting(
        "driver-isolation",
        "where a Python driver runs: `none`, in the kit's process (default), or `process`, "
        "in a child process the kit supervises, so a crash (os._exit, a segfault) fails "
        "the check that caused it and a fresh process serves the rest",
        None,
        choices=ISOLATION_CHOICES,
    ),
    Setting("waivers", "TOML file of waived check ids", _text, metavar="PATH"),
    Setting(
        "driver-timeout",
        "per-call time limit in seconds; a call past it makes its check inconclusive "
        "(default 60; 0 disables)",
        _number,
        metavar="SECONDS",
    ),
    Setting(
        "driver-retries",
        "retries of a transient (Unavailable) error, with backoff (default 3)",
        _at_least(0),
        metavar="N",
    ),
    Setting(
        "driver-backoff",
        "first backoff between retries, in seconds, doubling (default 0.1)",
        _number,
        metavar="SECONDS",
    ),
    Setting(
        "conformance-seed",
        "the run seed (default: drawn and printed); the same seed replays the run exactly",
        _at_least(0),
        metavar="N",
    ),
    Setting(
        "conformance-repeat",
        "run each selected check N times, each with its own seed derived from the run "
        "seed; the report says 'failed k of N' (default 1)",
        _at_least(1),
        metavar="N",
    ),
    Setting(
        "conformance-concurrency",
        "run up to N checks at once against the one driver instance (threads; async "
        "drivers: tasks on one loop), for a store behind a network; a driver that is not "
        "thread-safe runs one check at a time (default 1)",
        _at_least(1),
        metavar="N",
    ),
    Setting("fuzz", "also run the property-based fuzzing items", _boolean, flag=True),
    Setting(
        "fuzz-examples",
        f"programs per fuzz target (default {DEFAULT_EXAMPLES})",
        _at_least(1),
        metavar="N",
    ),
    Setting(
        "fuzz-seed",
        "seed of the fuzz run (default: derived from the run seed)",
        _at_least(0),
        metavar="N",
    ),
    Setting(
        "fuzz-repro-dir",
        "write each fuzz failure here as a standalone pytest regression test",
        _text,
        metavar="DIR",
    ),
)
_BY_KEY = {s.key: s for s in SETTINGS}


def add_flags(
    add: Callable[..., object],
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Declare every setting's flag through `add` (pytest's `addoption`, or argparse's
    `add_argument`); values stay strings, checked by `merge` like the file's."""
    for setting in SETTINGS:
        names = [setting.option, *(aliases or {}).get(setting.key, ())]
        common: dict[str, Any] = {"dest": setting.dest, "help": setting.help}
        if setting.flag:
            add(*names, action="store_true", default=None, **common)
        elif setting.repeatable:
            add(*names, action="append", default=[], metavar=setting.metavar, **common)
        else:
            add(*names, metavar=setting.metavar, choices=setting.choices, **common)


_FILE_KEYS = frozenset({*(s.key for s in SETTINGS if s.key != "driver-option"), "driver-options"})


# -- reading pyproject.toml ---------------------------------------------------------------


@dataclass(frozen=True)
class FileTable:
    """The `[tool.tinymemory]` table found for a run, and the file it came from."""

    table: Mapping[str, Any]
    folder: Path
    path: Path | None = None
    unreadable: str | None = None
    """Why the nearest file that mentions the kit could not be read (then `table` is empty)."""

    def where(self, key: str) -> str:
        """`[tool.tinymemory] KEY in PATH`, for messages."""
        return f"[tool.tinymemory] {key} in {self.path}"


def _tinymemory_table(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read it: {exc}") from exc
    # A file that never names the kit cannot configure it: it is not parsed at all, so
    # an unrelated project's pyproject.toml never meets this plugin.
    if "tinymemory" not in text:
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML: {exc}") from exc
    tool = data.get("tool", {})
    table = tool.get("tinymemory") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise SettingsError(f"[tool.tinymemory] in {path} must be a table")
    return table


def read_pyproject(start: Path) -> FileTable:
    """The nearest `[tool.tinymemory]` table at or above `start`.

    The nearest table wins, so a driver's own pyproject.toml is read even where pytest
    chose a rootdir further up. Only files whose text mentions `tinymemory` are parsed;
    when the nearest such file is unreadable, the result says why and holds no table.
    """
    for folder in (start, *start.parents):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            table = _tinymemory_table(path)
        except SettingsError as exc:
            return FileTable({}, folder, path, unreadable=str(exc))
        if table is not None:
            return FileTable(table, folder, path)
    return FileTable({}, start)


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


def _file_options(file: FileTable) -> dict[str, str]:
    raw = file.table.get("driver-options", {})
    if not isinstance(raw, dict):
        raise SettingsError(f"{file.where('driver-options')} must be a table of strings")
    options: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, bool):
            options[str(key)] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            options[str(key)] = str(value)
        else:
            raise SettingsError(
                f"{file.where('driver-options')}: {key} must be a string or a number, got {value!r}"
            )
    return options


def closest(name: str, valid: Iterable[str]) -> str | None:
    """The valid name `name` was most likely meant as, if any is close."""
    found = difflib.get_close_matches(name, sorted(valid), n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_keys(file: FileTable) -> str | None:
    """`[tool.tinymemory] in PATH has an unknown key `drvier` (did you mean `driver`?)`,
    when the table has keys the kit does not know."""
    unknown = sorted(set(file.table) - _FILE_KEYS)
    if not unknown:
        return None
    shown = []
    for key in unknown:
        near = closest(key, _FILE_KEYS)
        shown.append(f"`{key}`" + (f" (did you mean `{near}`?)" if near else ""))
    noun = "key" if len(unknown) == 1 else "keys"
    return f"[tool.tinymemory] in {file.path} has an unknown {noun} {', '.join(shown)}"


def inert_note(file: FileTable) -> str | None:
    """What to tell a project that asks for no run but has tried to configure one: an
    unreadable file that mentions the kit, or a table with unknown keys and no driver."""
    if file.unreadable is not None:
        return file.unreadable
    unknown = unknown_keys(file)
    return None if unknown is None else f"{unknown}, and no driver"


def driver_asked(cli: Mapping[str, Any], file: FileTable) -> bool:
    """Whether a run is asked for: `--driver` (even empty: that is a mistake to name), or
    `driver` in the file table."""
    return cli.get("driver") is not None or "driver" in file.table


def merge(file: FileTable, cli: Mapping[str, Any]) -> KitSettings:
    """Settings from the file table, each overridden by the command line when given there.

    `cli` maps setting keys to the raw values pytest parsed (None when not given).
    """
    if file.unreadable is not None:
        raise SettingsError(file.unreadable)
    unknown = unknown_keys(file)
    if unknown is not None:
        raise SettingsError(f"{unknown}; its keys are {', '.join(sorted(_FILE_KEYS))}")

    def pick(key: str) -> Any:
        setting = _BY_KEY[key]
        value = cli.get(key)
        if value is not None:
            what = f"{setting.option} {value}"
        elif key in file.table:
            value, what = file.table[key], file.where(key)
        else:
            return None
        if setting.choices is not None and value not in setting.choices:
            raise SettingsError(f"{what}: wanted one of {', '.join(setting.choices)}")
        return value if setting.check is None else setting.check(value, what)

    options = _file_options(file)
    options.update(cli.get("driver-options") or {})

    def path(key: str) -> Path | None:
        value = pick(key)
        if value is None:
            return None
        # A path from the file is relative to the file's directory; one from the
        # command line is relative to where pytest was started.
        candidate = Path(value)
        from_file = cli.get(key) is None
        return file.folder / candidate if from_file and not candidate.is_absolute() else candidate

    timeout = pick("driver-timeout")
    retries = pick("driver-retries")
    backoff = pick("driver-backoff")
    return KitSettings(
        driver=pick("driver"),
        driver_options=options,
        profile=pick("profile") or "all",
        report=path("conformance-report"),
        waivers=path("waivers"),
        timeout=DEFAULT_TIMEOUT if timeout is None else (timeout or None),
        retries=DEFAULT_RETRIES if retries is None else retries,
        backoff=DEFAULT_BACKOFF if backoff is None else backoff,
        fuzz=bool(pick("fuzz")),
        fuzz_examples=pick("fuzz-examples"),
        fuzz_seed=pick("fuzz-seed"),
        fuzz_repro_dir=path("fuzz-repro-dir"),
        seed=pick("conformance-seed"),
        repeat=pick("conformance-repeat") or 1,
        concurrency=pick("conformance-concurrency") or 1,
        isolation=pick("driver-isolation") or "none",
        driver_from_cli=bool(cli.get("driver")),
    )
