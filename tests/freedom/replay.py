"""A fuzz differential over one driver, for a test that replays a program step by step."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import conformance.fuzz as fuzz


@contextlib.contextmanager
def program(target_id: str, driver: Any) -> Iterator[Any]:
    """A differential of `target_id` over `driver`, as a regression test opens one; its
    teardown (the final comparison, then forgetting what it wrote) runs when the block ends.

    Works with the regression-test API of either generation of the fuzz package: a
    `FuzzSession` opening programs, or a differential made `for_driver`.
    """
    session = getattr(fuzz, "FuzzSession", None)
    if session is not None:
        opened = session.start(target_id, driver)
        try:
            with opened.program() as made:
                yield made
        finally:
            opened.shutdown()
        return
    engine = target_id == fuzz.ENGINE_TARGET
    kind = fuzz.EngineDifferential if engine else fuzz.ProviderDifferential
    made = kind.for_driver(driver)
    try:
        yield made
    except BaseException:
        with contextlib.suppress(Exception):
            made.teardown()
        raise
    made.teardown()
