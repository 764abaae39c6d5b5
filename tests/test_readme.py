"""The README's examples run as written, and say what they show."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def block_under(heading: str) -> str:
    """The first Python block of the section titled `heading`."""
    section = README.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, f"no python example under {heading!r}"
    return found.group(1)


@pytest.mark.parametrize("heading", ["The contract in Python", "The Section API"])
def test_example_runs(heading: str) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(block_under(heading), f"README: {heading}", "exec"), namespace)


def test_contract_example_comments_are_true() -> None:
    from conformance import engine, provider

    item = engine.learning("prefers tabs", engine.LearningKind.PREFERENCE, 0.8)
    assert item.fingerprint() == "8a8f01f6a30ffa27d488a48fc9218a8ec5af4228"
    assert "'8a8f01f6a30ffa27d488a48fc9218a8ec5af4228'" in block_under("The contract in Python")
    section = provider.Namespace.parse("conversation:thread-8f21").section()
    assert section == provider.MemorySection.CONVERSATION
    assert provider.MemoryTaint("garbage") is provider.MemoryTaint.EXTERNAL_SYNC


def test_section_example_finds_what_it_stored() -> None:
    namespace: dict[str, Any] = {}
    exec(block_under("The Section API"), namespace)
    assert [(str(s.namespace), s.entries) for s in namespace["learned"]] == [("learning:rust", 1)]
    hits = namespace["hits"]
    assert [h.key for h in hits.hits] == ["tip-1"]  # the conversation's "async?" is not a learning
    assert (hits.namespaces_searched, hits.truncated) == (1, False)


def test_first_screen_gives_exactly_two_commands() -> None:
    first_screen = README.split("---", 1)[0]
    commands = [line.strip() for line in first_screen.splitlines() if line.startswith("    ")]
    assert commands == [
        "pip install . && tinymemory-conformance run --driver reference",
        "pip install -e '.[dev]' && python -m pytest -n 2",
    ]
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "\npython -m pytest -n 2\n" in ci
