"""`docs/driver-author.md`: the Python signatures of both profiles, read from the
protocol classes themselves so the page cannot drift from them.

    python -m conformance.driver_page > docs/driver-author.md

A test fails when the file differs from what this prints.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterable
from typing import Final

from conformance.engine import AsyncMemoryEngine, EngineBase, MemoryEngine
from conformance.provider import (
    AsyncMemoryProvider,
    MemoryCore,
    MemoryDocuments,
    MemoryPortability,
    MemoryProvider,
    MemoryRecall,
    ProviderBase,
)
from conformance.provider.protocol import FAMILY_ACCESSORS

__all__ = ["method_names", "render", "signature_line"]

INTRO: Final = """\
# Writing a driver in Python

A driver offers one or both profiles of the contract: an **engine** (typed items, fetch
modes) and/or a **provider** (`(namespace, key)` entries, taint, recall, export and
import). This page gives the Python signature of every method the kit calls, read from
the protocol classes themselves (`conformance.engine.protocol`,
`conformance.provider.protocol`, `conformance.provider.families`). How a driver is named
and found (`--driver`, the `tinymemory.drivers` entry point, `conformance.Driver`) is in
the README, [For driver authors](../README.md#for-driver-authors-pytest---drivermydriver);
a driver in another language speaks [the driver protocol](protocol.md) instead.

Every type named below is importable from `conformance.engine` (engine) or
`conformance.provider` (provider); `Sequence` is `collections.abc`'s, `JsonValue`
pydantic's. Either profile may be
written with `async def`: subclass `AsyncEngineBase` or `AsyncProviderBase`, whose
methods have the same names and arguments (the exceptions are listed below). A method
signals a contract error by raising the profile's error (`InvalidRequest`,
`Unsupported`, ... for an engine; `Invalid`, `Unavailable`, ... for a provider).

This page is generated: `python -m conformance.driver_page > docs/driver-author.md`.
"""


WIDTH: Final = 88
"""Longest signature kept on one line (indent included); longer ones put each
parameter on a line of its own, as black does."""


def _spelled(annotation: object) -> str:
    # The classes spell `builtins.list` because `list` is also a method name.
    return str(annotation).replace("builtins.list", "list")


def signature_line(owner: type, name: str, indent: int = 4) -> str:
    """`def name(self, ...) -> T:` (or `async def`) as `owner` declares it, its
    annotations as written in the source."""
    function = inspect.getattr_static(owner, name)
    prefix = "async def" if inspect.iscoroutinefunction(function) else "def"
    signature = inspect.signature(function)
    params = []
    for param in signature.parameters.values():
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            text += f": {_spelled(param.annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        params.append(text)
    returns = _spelled(signature.return_annotation)
    line = f"{prefix} {name}({', '.join(params)}) -> {returns}:"
    if indent + len(line) <= WIDTH:
        return line
    pad = " " * (indent + 4)
    inner = "".join(f"\n{pad}{param}," for param in params)
    return f"{prefix} {name}({inner}\n{' ' * indent}) -> {returns}:"


def _sync_names(owner: type) -> list[str]:
    """The public methods of an async protocol that stay synchronous."""
    return sorted(
        name
        for name in dir(owner)
        if not name.startswith("_")
        and inspect.isfunction(inspect.getattr_static(owner, name))
        and not inspect.iscoroutinefunction(inspect.getattr_static(owner, name))
    )


def _summary(owner: type, name: str) -> str:
    doc = inspect.getdoc(getattr(owner, name)) or ""
    return " ".join(doc.split("\n\n")[0].split())


def method_names(owner: type, where: Callable[[str], bool] = lambda _: True) -> list[str]:
    """The public methods `owner` itself declares, in source order."""
    return [
        name
        for name, value in vars(owner).items()
        if not name.startswith("_") and inspect.isfunction(value) and where(name)
    ]


def _block(header: str, owner: type, names: Iterable[str]) -> list[str]:
    lines = ["```python", header]
    for number, name in enumerate(names):
        if number:
            lines.append("")
        lines.append(f"    {signature_line(owner, name)}")
        lines.append(f'        """{_summary(owner, name)}"""')
    return [*lines, "```", ""]


def _listed(names: Iterable[str]) -> str:
    shown = [f"`{name}`" for name in names]
    return ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else "".join(shown)


def _abstract(owner: type) -> set[str]:
    return set(getattr(owner, "__abstractmethods__", ()))


def _engine() -> list[str]:
    own = method_names(MemoryEngine)
    required = [n for n in own if n in _abstract(EngineBase)]
    defaults = [n for n in own if n not in _abstract(EngineBase)]
    lines = [
        "## The engine profile",
        "",
        "Subclass `EngineBase` and implement its seven abstract methods; it provides the",
        "contract's defaults for the other three, which you may override with your store's",
        "own. `MemoryEngine` is the protocol: a class with these ten methods passes too.",
        "Every operation validates its request first (`req.validate()`).",
        "",
        *_block("class MyEngine(EngineBase):  # implement", MemoryEngine, required),
        *_block("class MyEngine(EngineBase):  # inherited, may override", MemoryEngine, defaults),
        f"`AsyncEngineBase`: every method is `async def` except "
        f"{_listed(_sync_names(AsyncMemoryEngine))}.",
        "",
    ]
    return lines


def _provider() -> list[str]:
    own = [n for n in method_names(MemoryProvider) if not n.startswith("as_")]
    required = [n for n in own if n in _abstract(ProviderBase)]
    defaults = [n for n in own if n not in _abstract(ProviderBase)]
    accessors = sorted(FAMILY_ACCESSORS.values())
    others = [a for a in accessors if a != "as_documents"]
    documents = method_names(MemoryDocuments)
    head = "class MyProvider(ProviderBase):"
    lines = [
        "## The provider profile",
        "",
        "Subclass `ProviderBase` and implement the abstract methods: the provider's own",
        "(`driver_id`, `capabilities`, `health`) and those of the three mandatory families",
        "(`MemoryCore`, `MemoryRecall`, `MemoryPortability`). `MemoryProvider` is the",
        "protocol.",
        "",
        *_block(f"{head}  # implement", MemoryProvider, required),
        *_block(f"{head}  # inherited, may override", MemoryProvider, defaults),
    ]
    for family, title in (
        (MemoryCore, "MemoryCore (mandatory)"),
        (MemoryRecall, "MemoryRecall (mandatory)"),
        (MemoryPortability, "MemoryPortability (mandatory)"),
    ):
        header = f"class MyProvider(ProviderBase):  # implement: {title}"
        lines += _block(header, family, method_names(family))
    lines += [
        "### Optional families",
        "",
        "An optional family is reached through an accessor that answers the family object,",
        "or `None` when it is not served; `ProviderBase` answers `None` for all of them, and",
        "its `provides(capability)` follows the accessors. The kit tests one optional",
        "family, `documents`: override `as_documents()` to answer an object with these",
        "methods (`MemoryDocuments`; `recall_documents` has a default that refuses with",
        "`Unsupported`).",
        "",
        *_block("class MyProvider(ProviderBase):", MemoryProvider, ["as_documents"]),
        *_block("class MyDocuments(MemoryDocuments):", MemoryDocuments, documents),
        textwrap.fill(
            "The other accessors, each answering `object | None`, reach families the kit "
            "does not test: " + ", ".join(f"`{name}()`" for name in others) + ".",
            WIDTH,
        ),
        "",
        textwrap.fill(
            "`AsyncProviderBase`: every method is `async def` except "
            + ", ".join(f"`{n}`" for n in _sync_names(AsyncMemoryProvider) if n[:3] != "as_")
            + " and the `as_*` accessors; an async documents family is "
            "`AsyncMemoryDocuments`, every method `async def`.",
            WIDTH,
        ),
    ]
    return lines


def render() -> str:
    """The page."""
    return "\n".join([INTRO, *_engine(), *_provider()]) + "\n"


if __name__ == "__main__":
    print(render(), end="")
