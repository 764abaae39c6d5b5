"""Waivers: expected failures as data, each with a reason, an issue link and an expiry date.

["engine.recall"]
reason = "recall is answered by a model we do not run in CI"
issue = "https://github.com/acme/acme-memory/issues/12"
expires = 2027-03-31
"""

from __future__ import annotations

import datetime as dt
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
            raise WaiverError(
                f"waiver file {path} waives `{check_id}`, which is not a check id nor a "
                f"fuzz target; `tinymemory-conformance checks` lists the checks"
            )
        if not isinstance(table, dict):
            raise WaiverError(f"waiver `{check_id}` must be a table with reason, issue, expires")
        missing = [k for k in ("reason", "issue", "expires") if k not in table]
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
