"""What each profile method returns, and the one-line failure when a driver returns
something else (a `dict` where a model is due, `None`, a coroutine from a method not
declared `async def`).

The recording proxy checks every answer against this table before a check sees it, so a
wrong type is one failure naming the call, the type expected and the type returned,
rather than an `AttributeError` deep inside the check (or the kit).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from conformance import engine, provider
from conformance.checks.evidence import show

__all__ = ["RETURNS", "Returns", "wrong_error", "wrong_return"]


@dataclass(frozen=True)
class Returns:
    """The type one method answers with: `kind`, or a list of `element`, maybe `None`."""

    kind: type | None = None
    element: type | None = None
    optional: bool = False

    def describe(self) -> str:
        """`a FetchPage`, `a list of Hit`, `a MemoryEntry or None`."""
        if self.element is not None:
            text = f"a list of {self.element.__name__}"
        else:
            assert self.kind is not None
            text = _article(self.kind.__name__)
        return f"{text} or None" if self.optional else text

    def problem(self, value: object) -> str | None:
        """What is wrong with `value` for this type, or `None`."""
        if value is None:
            return None if self.optional else "None"
        if self.element is not None:
            if not isinstance(value, list):
                return _a(value)
            for index, item in enumerate(value):
                if not isinstance(item, self.element):
                    return f"a list whose element {index} is {_a(item)}"
            return None
        assert self.kind is not None
        return None if isinstance(value, self.kind) else _a(value)


def _article(name: str) -> str:
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _a(value: object) -> str:
    return f"{_article(type(value).__qualname__)} ({show(value, 200)})"


ANY: Final = Returns()
"""A method whose answer the kit does not type (`None`-returning ones, JSON values)."""

RETURNS: Final[Mapping[str, Mapping[str, Returns]]] = {
    "engine": {
        "descriptor": Returns(engine.EngineDescriptor),
        "health": Returns(engine.EngineHealth),
        "store": Returns(engine.StoreReceipt),
        "store_many": Returns(element=engine.StoreReceipt),
        "fetch": Returns(engine.FetchPage),
        "recall": Returns(engine.RecallAnswer),
        "list": Returns(engine.ListPage),
        "forget": Returns(engine.ForgetReport),
        "explore": Returns(engine.ExplorePage),
        "get": Returns(element=engine.Hit),
    },
    "provider": {
        "driver_id": Returns(str),
        "capabilities": Returns(provider.Capabilities),
        "health": Returns(provider.MemoryHealth),
        "shutdown": ANY,
        "provides": Returns(bool),
        "store": ANY,
        "get": Returns(provider.MemoryEntry, optional=True),
        "forget": Returns(bool),
        "list": Returns(element=provider.MemoryEntry),
        "namespaces": Returns(element=provider.NamespaceSummary),
        "recall": Returns(element=provider.MemoryEntry),
        "export_page": Returns(provider.ExportPage),
        "import_records": Returns(provider.ImportOutcome),
    },
    "documents": {
        "put_document": Returns(str),
        "get_document": Returns(provider.StoredMemoryDocument, optional=True),
        "list_documents": ANY,
        "list_namespaces": Returns(element=str),
        "delete_document": ANY,
        "clear_namespace": ANY,
        "query_documents": Returns(provider.NamespaceRetrievalContext),
        "recall_documents": Returns(provider.NamespaceRetrievalContext),
    },
}
"""Per profile (and optional family), the return type of each method."""


def wrong_return(face: str | None, method: str, value: object) -> tuple[str, str] | None:
    """`(expected, got)` when `value` is not what `face.method` returns, else `None`.

    `face` is `"engine"`, `"provider"` or a family (`"documents"`); an unknown face or
    method is not typed, but an awaitable is always wrong here: the kit awaits the
    methods declared `async def`, so one that returns a coroutine without being declared
    so was never awaited.
    """
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if callable(close):
            close()  # never awaited: closing it spares a RuntimeWarning
        return (
            _expected(face, method),
            f"{_article(type(value).__qualname__)}: `{method}` returns an awaitable without being "
            f"declared `async def`; declare it `async def` so the kit awaits it",
        )
    rule = RETURNS.get(face or "", {}).get(method)
    if rule is None or rule is ANY:
        return None
    problem = rule.problem(value)
    return None if problem is None else (rule.describe(), problem)


def _expected(face: str | None, method: str) -> str:
    rule = RETURNS.get(face or "", {}).get(method)
    return "a value, not an awaitable" if rule is None or rule is ANY else rule.describe()


def wrong_error(error: BaseException) -> tuple[str, str] | None:
    """`(expected, got)` when `error` is one of the contract's errors without a text
    message (`Invalid(None)`): its message is a string, sent as one on the wire."""
    if not isinstance(error, (engine.EngineError, provider.ProviderError)):
        return None
    message = getattr(error, "message", None)
    if isinstance(message, str):
        return None
    return (
        "an error of the contract carrying its message as text",
        f"{type(error).__qualname__} with message {show(message)}",
    )
