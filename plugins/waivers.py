"""Waivers: expected failures as data, each with a reason, an issue link and an expiry date.

["engine.recall"]
reason = "recall is answered by a model we do not run in CI"
issue = "https://github.com/acme/acme-memory/issues/12"
expires = 2027-03-31
"""

from __future__ import annotations

import datetime as dt
import difflib
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):  # noqa: UP036 - tomli stays the fallback the package declares
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class WaiverError(ValueError):
    """The waiver file is malformed or names a check that does not exist."""


@dataclass(frozen=True)
class Waiver:
    """One waived check (or fuzz target)."""

    check_id: str
    reason: str
    issue: str
    expires: dt.date

    def expired(self, today: dt.date) -> bool:
        """Whether the waiver has run out (it lapses the day after `expires`)."""
        return today > self.expires


def load_waivers(path: Path, known_ids: Collection[str]) -> dict[str, Waiver]:
    """Read and validate a waiver file against `known_ids` (the catalogue's check ids
    and the fuzz targets')."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError as exc:
        raise WaiverError(f"waiver file {path} does not exist") from exc
    except IsADirectoryError as exc:
        raise WaiverError(f"waiver file {path} is a directory; give the TOML file") from exc
    except OSError as exc:
        raise WaiverError(f"waiver file {path} cannot be read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise WaiverError(f"waiver file {path} is not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise WaiverError(f"waiver file {path} is not UTF-8 text: {exc}") from exc
    waivers: dict[str, Waiver] = {}
    for check_id, table in data.items():
        if check_id not in known_ids:
            raise WaiverError(_unknown_id(path, check_id, table, known_ids))
        if not isinstance(table, dict):
            raise WaiverError(f"waiver `{check_id}` must be a table with reason, issue, expires")
        unknown = [k for k in table if k not in WAIVER_KEYS]
        if unknown:
            raise WaiverError(_unknown_keys(check_id, unknown))
        missing = [k for k in WAIVER_KEYS if k not in table]
        if missing:
            raise WaiverError(f"waiver `{check_id}` lacks {', '.join(missing)}")
        expires = table["expires"]
        if isinstance(expires, dt.datetime) or not isinstance(expires, dt.date):
            raise WaiverError(f"waiver `{check_id}`: expires must be a date like 2027-03-31")
        reason, issue = table["reason"], table["issue"]
        if not (isinstance(reason, str) and reason.strip()):
            raise WaiverError(f"waiver `{check_id}`: reason must be a non-empty string")
        if not (isinstance(issue, str) and issue.strip()):
            raise WaiverError(f"waiver `{check_id}`: issue must be a non-empty link")
        waivers[check_id] = Waiver(check_id, reason, issue, expires)
    return waivers


WAIVER_KEYS = ("reason", "issue", "expires")
"""The keys of one waiver's table, all required."""


def _dotted(prefix: str, value: object) -> list[str]:
    """The dotted names TOML made tables of: `[provider.x]` unquoted is `provider` > `x`."""
    if not isinstance(value, dict) or any(k in WAIVER_KEYS for k in value):
        return [prefix]
    return [name for key, sub in value.items() for name in _dotted(f"{prefix}.{key}", sub)]


def _unknown_id(path: Path, check_id: str, table: object, known_ids: Collection[str]) -> str:
    """Why `check_id` is not a check id, with the likeliest fix."""
    nested = [name for name in _dotted(check_id, table) if name in known_ids]
    if nested:
        name = nested[0]
        return (
            f"waiver file {path}: the table [{name}] is read by TOML as `{name.partition('.')[2]}` "
            f'inside a table `{check_id}`, as its id is not quoted; write ["{name}"]'
        )
    close = difflib.get_close_matches(check_id, sorted(known_ids), n=1, cutoff=0.6)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    return (
        f"waiver file {path} waives `{check_id}`, which is not a check id nor a fuzz "
        f"target{hint}; "
        f"`tinymemory-conformance checks` lists them"
    )


def _unknown_keys(check_id: str, unknown: list[str]) -> str:
    """`waiver `x` has an unknown key `reson` (did you mean `reason`?); ...`"""
    shown = []
    for key in unknown:
        close = difflib.get_close_matches(str(key), WAIVER_KEYS, n=1, cutoff=0.6)
        shown.append(f"`{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
    noun = "key" if len(unknown) == 1 else "keys"
    return (
        f"waiver `{check_id}` has an unknown {noun} {', '.join(shown)}; a waiver's keys are "
        f"{', '.join(WAIVER_KEYS)}"
    )
