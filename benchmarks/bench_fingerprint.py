"""How fast ``fingerprint`` is, beside the floor of hashing pre-built canonical JSON.

Run: ``python benchmarks/bench_fingerprint.py``. For each sample item it prints
fingerprints per second, the floor (``json.dumps`` of the canonical dict, already
built, plus SHA-256 over the same bytes) measured in the same run, and the ratio.
The goal is a ratio of at most 3.
"""

from __future__ import annotations

import hashlib
import json
import sys
import timeit
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

# Run as a script from a checkout, the package may not be installed: use the checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.engine import (
    LearningKind,
    MemoryMeta,
    Namespace,
    Role,
    SourceKind,
    SourceRef,
    StoreItem,
    Turn,
    canonical_json,
    conversation,
    document,
    fingerprint,
    learning,
)

GOAL_RATIO = 3.0


def typical_learning() -> StoreItem:
    """A learning as an agent writes one: namespace, workspace, tags, source, evidence."""
    meta = MemoryMeta(
        namespace=Namespace.parse("team:acme/agent:writer"),
        workspace="/home/priya/projects/atlas",
        agent_id="writer",
        source=SourceRef(kind=SourceKind.CONVERSATION, id="thread-2025-05-06"),
        tags=["style", "preferences"],
        observed_at=datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC),
    )
    return learning(
        "The user prefers short answers with a code sample first, then the explanation.",
        LearningKind.PREFERENCE,
        0.75,
        meta,
        evidence="said so twice in this thread",
    )


def four_kb_document() -> StoreItem:
    """A 4 KB markdown document read from a repository file."""
    paragraph = (
        '## Caching\n\nThe service keeps a "warm" cache of résumé renders — keyed by '
        "user id and template — and evicts entries after 15 minutes.\tSee `cache.rs`.\n"
    )
    body = (paragraph * (4096 // len(paragraph) + 1))[:4096]
    meta = MemoryMeta(
        workspace="/home/priya/projects/atlas",
        folder="/home/priya/projects/atlas/docs",
        file_path="/home/priya/projects/atlas/docs/caching.md",
        language="en",
        repo="acme/atlas",
        commit="9f2c1e7",
        source=SourceRef(kind=SourceKind.FILE, id="atlas-docs"),
        tags=["docs", "caching"],
    )
    return document(body, meta, title="Caching", mime="text/markdown")


def timed_conversation() -> StoreItem:
    """A four-turn conversation whose turns carry times at 0, 3, 6 and 9 fractional digits."""
    times = (
        "2025-05-06T07:08:09Z",
        "2025-05-06T07:08:10.250Z",
        "2025-05-06T07:08:11.250001Z",
        "2025-05-06T07:08:12.250000001Z",
    )
    turns = [
        Turn(role=Role.USER if index % 2 == 0 else Role.ASSISTANT, text=text, at=at)
        for index, (text, at) in enumerate(
            zip(
                (
                    "what does the cache keep?",
                    "résumé renders, keyed by user id and template",
                    "for how long?",
                    "15 minutes, then they are evicted",
                ),
                times,
                strict=True,
            )
        )
    ]
    meta = MemoryMeta(
        thread_id="thread-2025-05-06",
        source=SourceRef(kind=SourceKind.CONVERSATION, id="thread-2025-05-06"),
    )
    return conversation(turns, meta)


def floor(canonical: Any) -> Callable[[], str]:
    """The floor: serialise the already-built canonical dict and hash the same bytes."""

    def run() -> str:
        text = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    return run


def per_second(function: Callable[[], object]) -> float:
    """Calls per second: the best of several timed runs."""
    number = 20_000
    best = min(timeit.repeat(function, number=number, repeat=7))
    return number / best


def main() -> int:
    """Prints the figures; exits 1 when a ratio misses the goal."""
    missed = False
    for name, item in (
        ("typical learning", typical_learning()),
        ("4 KB document", four_kb_document()),
        ("timed conversation", timed_conversation()),
    ):
        canonical = json.loads(canonical_json(item))
        floor_run = floor(canonical)
        # The floor hashes exactly the bytes the fingerprint hashes.
        assert floor_run() == fingerprint(item)
        ours = per_second(partial(fingerprint, item))
        theirs = per_second(floor_run)
        ratio = theirs / ours
        missed |= ratio > GOAL_RATIO
        print(
            f"{name:>18}: fingerprint {ours:>10,.0f}/s   floor {theirs:>10,.0f}/s   "
            f"ratio {ratio:.2f}x (goal <= {GOAL_RATIO:.0f}x)"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
