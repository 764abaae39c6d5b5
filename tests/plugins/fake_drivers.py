"""Tiny objects for registry tests: each has the shape of one profile, nothing more."""

from __future__ import annotations

from typing import Any

from conformance import Driver, reject_options
from plugins import hookimpl


class FakeEngine:
    def descriptor(self) -> Any: ...
    def health(self) -> Any: ...
    def store(self, item: Any) -> Any: ...
    def store_many(self, items: Any) -> Any: ...
    def fetch(self, req: Any) -> Any: ...
    def recall(self, req: Any) -> Any: ...
    def list(self, req: Any) -> Any: ...
    def forget(self, target: Any) -> Any: ...
    def explore(self, req: Any) -> Any: ...
    def get(self, req: Any) -> Any: ...


class FakeProvider:
    def driver_id(self) -> str:
        return "fake"

    def capabilities(self) -> Any: ...
    def health(self) -> Any: ...
    def shutdown(self) -> None: ...
    def provides(self, cap: Any) -> bool:
        return False

    def store(self, *args: Any) -> None: ...
    def get(self, *args: Any) -> Any: ...
    def forget(self, *args: Any) -> bool:
        return False

    def list(self, *args: Any) -> Any: ...
    def namespaces(self) -> Any: ...
    def recall(self, *args: Any) -> Any: ...
    def export_page(self, *args: Any) -> Any: ...
    def import_records(self, *args: Any) -> Any: ...


class AsyncFakeEngine(FakeEngine):
    async def health(self) -> Any:  # type: ignore[override]
        return "ok"


class HalfEngine:
    """Has `descriptor` and `fetch` but not the rest."""

    def descriptor(self) -> Any: ...
    def fetch(self, req: Any) -> Any: ...


BUNDLE = Driver(name="bundle", engine=FakeEngine, provider=FakeProvider)
ENGINE_INSTANCE = FakeEngine()
NOT_A_DRIVER = 42


def make_bundle() -> Driver:
    return Driver(name="made", engine=FakeEngine)


def configurable(options: dict[str, str]) -> FakeEngine:
    engine = FakeEngine()
    engine.options = options  # type: ignore[attr-defined]
    return engine


def exploding() -> FakeEngine:
    raise RuntimeError("cannot reach the store")


def builds_half() -> Driver:
    return Driver(name="half", engine=HalfEngine)


class Plugin:
    """What a vendor's entry-point module looks like."""

    @hookimpl
    def tinymemory_driver(self, name: str, options: dict[str, str]) -> Driver:
        reject_options(name, options)
        return Driver(name=name, engine=FakeEngine)


class WrongHookPlugin:
    @hookimpl
    def tinymemory_drivr(self, name: str) -> None: ...


class ReturnsNothingPlugin:
    @hookimpl
    def tinymemory_driver(self, name: str, options: dict[str, str]) -> object:
        return object()


PLUGIN = Plugin()
WRONG_HOOK_PLUGIN = WrongHookPlugin()
RETURNS_NOTHING_PLUGIN = ReturnsNothingPlugin()
