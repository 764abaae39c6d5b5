"""The contract's rules as `docs/contract` states them, each under a stable anchor.

A rule is written in a page of `docs/contract/` as an anchor line, a heading and text:

    <a id="store-replay"></a>
    ### An identical store is a replay

    Storing an item whose fingerprint ...

and is named `page.md#anchor` (`engine-operations.md#store-replay`). A check's `clause`
is a comma-separated list of such names. The pages ship inside the installed package
(`conformance/_contract/`); in a checkout they are read from `docs/contract/`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

__all__ = [
    "CLAUSE_REF",
    "Rule",
    "clause_markdown",
    "clause_problems",
    "clause_refs",
    "contract_pages",
    "parse_page",
    "rules",
]

CLAUSE_REF: Final = re.compile(r"[a-z0-9-]+\.md#[a-z0-9-]+")
"""One rule's name in a clause: `page.md#anchor`."""

_ANCHOR: Final = re.compile(r'<a id="([a-z0-9-]+)"></a>')
_HEADING: Final = re.compile(r"(#{1,6})\s+(.*)")


@dataclass(frozen=True)
class Rule:
    """One rule of the contract as the kit enforces it."""

    ref: str
    """`page.md#anchor`."""
    title: str
    """The rule's heading."""
    text: str
    """The rule's text (Markdown), without its heading."""

    @property
    def page(self) -> str:
        """The page holding the rule, e.g. `engine-operations.md`."""
        return self.ref.partition("#")[0]

    @property
    def anchor(self) -> str:
        """The anchor within its page, e.g. `store-replay`."""
        return self.ref.partition("#")[2]


def contract_pages() -> Traversable | None:
    """The folder of contract pages: the installed copy, else the checkout's
    `docs/contract`; `None` when neither is there."""
    installed = resources.files("conformance").joinpath("_contract")
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "docs" / "contract"
    return checkout if checkout.is_dir() else None


def parse_page(page: str, text: str) -> list[Rule]:
    """The rules of one page's Markdown; `ValueError` for an anchor without a heading
    under it, or an anchor used twice."""
    lines = text.splitlines()
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _ANCHOR.fullmatch(line))]
    found: list[Rule] = []
    for index, (start, anchor) in enumerate(starts):
        heading = _HEADING.fullmatch(lines[start + 1]) if start + 1 < len(lines) else None
        if heading is None:
            raise ValueError(f"{page}#{anchor}: the anchor line is not followed by a heading")
        level = len(heading.group(1))
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        body: list[str] = []
        for line in lines[start + 2 : end]:
            nested = _HEADING.fullmatch(line)
            if nested is not None and len(nested.group(1)) <= level:
                break
            body.append(line)
        found.append(Rule(f"{page}#{anchor}", heading.group(2).strip(), "\n".join(body).strip()))
    refs = [rule.ref for rule in found]
    twice = sorted({ref for ref in refs if refs.count(ref) > 1})
    if twice:
        raise ValueError(f"anchors used twice: {', '.join(twice)}")
    return found


@functools.cache
def rules() -> Mapping[str, Rule]:
    """Every rule of every contract page, by `page.md#anchor` (empty without the pages)."""
    folder = contract_pages()
    if folder is None:
        return {}
    found: dict[str, Rule] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".md"):
            for rule in parse_page(entry.name, entry.read_text(encoding="utf-8")):
                found[rule.ref] = rule
    return found


def clause_refs(clause: str) -> list[str]:
    """The rule names of a clause (`page.md#anchor, page.md#anchor`), in order;
    `ValueError` when any part of it is not one."""
    parts = [part.strip() for part in clause.split(",")]
    wrong = [part for part in parts if CLAUSE_REF.fullmatch(part) is None]
    if wrong:
        raise ValueError(
            f"clause parts {wrong!r} are not rule names like `engine-operations.md#store-replay`"
        )
    return parts


def clause_problems(clause: str) -> list[str]:
    """What is wrong with a clause: parts that are no rule name, rules that do not exist."""
    try:
        refs = clause_refs(clause)
    except ValueError as error:
        return [str(error)]
    known = rules()
    return [f"`{ref}` names no rule of docs/contract" for ref in refs if ref not in known]


def clause_markdown(clause: str, base: str = "contract/") -> str:
    """The clause as Markdown links to its rules (`[title](base + page.md#anchor)`), for
    a page beside the `contract` folder; a clause that is no list of rule names as is."""
    try:
        refs = clause_refs(clause)
    except ValueError:
        return clause
    known = rules()
    links = [f"[{known[ref].title if ref in known else ref}]({base}{ref})" for ref in refs]
    return "; ".join(links)
