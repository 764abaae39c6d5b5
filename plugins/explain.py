"""`tinymemory-conformance explain CHECK_ID`: one check, or fuzz target, told in full.

Its title, the rules it enforces quoted from the contract pages, what it does step by
step, the broken behaviours it is proven against, and how to run it alone.
"""

from __future__ import annotations

import difflib
import inspect
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.checks.catalogue import all_checks
from conformance.checks.faults import faults_for
from conformance.rules import clause_refs, rules

if TYPE_CHECKING:
    from conformance.fuzz.runner import FuzzTarget

__all__ = ["UnknownCheck", "explain", "known_ids"]

_MODE_SUFFIX = re.compile(r"\[[a-z]+\]$")


class UnknownCheck(LookupError):
    """An id that names no check or fuzz target; the message names the closest ones."""


@dataclass(frozen=True)
class _Explained:
    id: str
    title: str
    profile: str
    clause: str
    steps: str
    run: str
    storage: bool


def _fuzz_targets() -> Mapping[str, FuzzTarget]:
    # Imported on use: the fuzz package brings hypothesis, which no other command needs.
    from conformance.fuzz.runner import FUZZ_TARGETS

    return FUZZ_TARGETS


def known_ids() -> list[str]:
    """Every check id, engine first, then every fuzz target id."""
    return [c.id for c in all_checks()] + list(_fuzz_targets())


def _lookup(check_id: str) -> _Explained:
    # A report names a per-mode run `engine.fetch_filters[keyword]`: that is the check.
    wanted = _MODE_SUFFIX.sub("", check_id.strip())
    for chk in all_checks():
        if chk.id == wanted:
            return _Explained(
                chk.id,
                chk.title,
                chk.profile,
                chk.clause,
                inspect.cleandoc(chk.doc) or "(no description)",
                f"pytest --driver=NAME -k '{chk.id}'",
                chk.storage,
            )
    target = _fuzz_targets().get(wanted)
    if target is not None:
        steps = textwrap.fill(
            f"Drives random sequences of the {target.profile} profile's operations against "
            f"the driver and against the reference {target.profile} (an empty store for a "
            "driver that retains nothing) side by side, and after every step compares what "
            "the rules above pin. Malformed requests must be refused and change nothing. A "
            "failure is shrunk to a short sequence; with --fuzz-repro-dir it is written as a "
            "standalone regression test replaying the exact calls.",
            width=86,
        )
        return _Explained(
            target.id,
            target.title,
            target.profile,
            target.clause,
            steps,
            f"pytest --driver=NAME --fuzz -k '{target.id}'",
            False,
        )
    close = difflib.get_close_matches(wanted, known_ids(), n=3, cutoff=0.5)
    hint = f"closest: {', '.join(close)}" if close else "see `tinymemory-conformance checks`"
    raise UnknownCheck(f"unknown check id {check_id!r}; {hint}")


def _indent(text: str, prefix: str) -> str:
    return textwrap.indent(text, prefix, lambda line: bool(line.strip()))


def _rules_section(clause: str) -> list[str]:
    lines = ["Rules it enforces"]
    try:
        refs = clause_refs(clause)
    except ValueError:
        return [*lines, f"  {clause}", ""]
    known = rules()
    for ref in refs:
        rule = known.get(ref)
        if rule is None:
            lines.append(f"  {ref} (the rule text is not installed; see docs/contract/)")
            continue
        lines += [f"  {ref}: {rule.title}", _indent(rule.text, "      "), ""]
    return lines


def explain(check_id: str) -> str:
    """The full account of one check or fuzz target; `UnknownCheck` for an unknown id."""
    found = _lookup(check_id)
    kind = "fuzz target" if found.id in _fuzz_targets() else "check"
    header = f"{found.profile} profile {kind}"
    if found.storage:
        header += "; a storage check, skipped for a driver that retains nothing"
    lines = [f"{found.id}: {found.title}", f"({header})", ""]
    lines += _rules_section(found.clause)
    lines += ["What it does", _indent(found.steps, "  "), ""]
    faults = faults_for(found.id)
    proven = [f"  - {fault.driver}: {fault.description}" for fault in faults]
    if found.storage:
        proven.append("  - the null driver (retains nothing), made to run it anyway")
    lines += ["Proven against", *(proven or ["  (no broken driver yet)"]), ""]
    lines += [
        "Run it alone",
        f"  {found.run}",
        f"  tinymemory-conformance run --driver NAME -k '{found.id}'",
    ]
    if kind == "fuzz target":
        lines[-1] += " --fuzz"
    return "\n".join(lines)
