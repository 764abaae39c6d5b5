"""`docs/freedoms.md`, written from the freedoms, the matrix and the per-check map.

    python -m tests.freedom.docs > docs/freedoms.md

`test_docs.py` fails when the file differs from what this prints.
"""

from __future__ import annotations

from conformance.checks.catalogue import all_checks
from conformance.fuzz import FUZZ_TARGETS
from tests.freedom.check_freedoms import CHECK_FREEDOMS, EVERY_CHECK, NOT_IN_THE_MATRIX
from tests.freedom.freedoms import FREEDOMS
from tests.freedom.matrix import CONFIGURATIONS, FUZZ_SEED, REACH, SUITE_ONLY

INTRO = """\
# What each check leaves to the driver

The contract pins some behaviour and leaves the rest to the driver. A check that
demanded more than the contract would fail correct drivers and teach vendors to waive
it, so every check is proven twice: a deliberately broken driver fails it with its id
(`tests/checks/broken_*.py`), and a matrix of correct drivers, each using freedoms the
contract leaves, passes it (`tests/freedom/`, issue 17, decisions §4.11).

This page is generated: `python -m tests.freedom.docs > docs/freedoms.md`.

## The freedom matrix

Each configuration below is a correct engine or provider: a wrapper over the reference
driver (`tests/freedom/free_engine.py`, `free_provider.py`) that answers with its own
ids, order, pages, cursors, scores, timestamps, errors and faces, and holds another
writer's data beside the run. CI runs, on every configuration, the whole suite and one
fuzz seed (seed {seed}, the smallest number of programs at which the fuzzer uses every
freedom of the configuration; hypothesis's draws are pinned so that the programs do not
depend on which modules the test run imported). Each must pass, with no failed and no
inconclusive check and no call counted as valid input refused, skipping only a check
whose precondition the driver does not offer
(no credential option given, no fetch mode declared for a check that covers every
declared mode, no `documents` family). Every run
must also use each freedom its configuration stands for, so no configuration passes
vacuously, and leave the other writer's data as it found it. Configurations with driver
options, and the rate-limited ones, run through the pytest plugin.
`python benchmarks/bench_freedom.py` prints the run time of each.
"""

LIMITS = """\
## What is not a freedom

Where the contract pins behaviour the matrix does not loosen it: an empty *first*
export page must end the export (contract-reference A9 §4, so empty pages that carry
a cursor come after the first); recall answers exactly `limit` hits when more match
(A9 §11, A@late); ids must be stable (a replay answers the first id) and cursors must
make progress; an undeclared fetch mode is `Unsupported`; a source-attributed
(`external_sync`) entry is denied under `SourceScope([])` (decisions §4.11).
"""


def _freedom_link(freedom_id: str) -> str:
    return f"[`{freedom_id}`](#{freedom_id})"


def _reach(freedom_id: str) -> str:
    note = REACH.get(freedom_id)
    return "" if note is None else f" {note}"


def render() -> str:
    """The whole page."""
    lines = [INTRO.format(seed=FUZZ_SEED), "## Freedoms", ""]
    for freedom in FREEDOMS.values():
        used_by = [c.name for c in CONFIGURATIONS.values() if freedom.id in c.freedoms]
        lines += [
            f"### {freedom.id}",
            "",
            f"{freedom.title} ({', '.join(freedom.profiles)}).{_reach(freedom.id)}",
            "",
            f"Granted by {freedom.grant}",
            "",
            f"Configurations: {', '.join(f'`{name}`' for name in used_by)}.",
            "",
        ]
    lines += [
        "## Configurations",
        "",
        "| configuration | profile | what it does | freedoms | fuzz programs |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in CONFIGURATIONS.values():
        face = " (async)" if c.asynchronous else ""
        plugin = "; through the plugin" if c.via_plugin else ""
        freedoms = ", ".join(_freedom_link(f) for f in c.freedoms)
        lines.append(
            f"| `{c.name}` | {c.profile}{face} | {c.summary}{plugin} | {freedoms} "
            f"| {c.fuzz_examples} |"
        )
    every = ", ".join(_freedom_link(f) for f in EVERY_CHECK)
    lines += [
        "",
        "## What each check leaves open",
        "",
        f"Every check and fuzz target leaves open {every}; beyond those:",
        "",
        "| check | leaves to the driver |",
        "| --- | --- |",
    ]
    for chk in all_checks():
        shown = ", ".join(_freedom_link(f) for f in CHECK_FREEDOMS[chk.id]) or "nothing more"
        if chk.id in NOT_IN_THE_MATRIX:
            shown += f" (not run by the matrix: {NOT_IN_THE_MATRIX[chk.id]})"
        lines.append(f"| `{chk.id}` | {shown} |")
    for target in FUZZ_TARGETS.values():
        own = [f.id for f in FREEDOMS.values() if target.profile in f.profiles]
        left = [f for f in own if f not in EVERY_CHECK and f not in SUITE_ONLY]
        shown = ", ".join(_freedom_link(f) for f in left)
        lines.append(f"| `{target.id}` | every {target.profile} freedom: {shown} |")
    lines += ["", LIMITS]
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(render(), end="")
