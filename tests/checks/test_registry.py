"""The catalogue takes each check id once: the same body imported again replaces itself,
another body under a taken id is refused; importing the package loads no suite."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from conformance.checks.context import CheckContext
from conformance.checks.registry import CATALOGUE, check


def _body(driver: Any, ctx: CheckContext) -> None:
    del driver, ctx


def _other(driver: Any, ctx: CheckContext) -> None:
    del driver, ctx


def test_a_body_imported_again_replaces_itself_and_another_is_refused() -> None:
    ident = "engine.registry_twice_probe"
    try:
        check(ident, title="t", clause="c")(_body)
        first = CATALOGUE[ident]
        check(ident, title="t", clause="c")(_body)
        assert CATALOGUE[ident] is not first
        with pytest.raises(ValueError, match="registered twice"):
            check(ident, title="t", clause="c")(_other)
    finally:
        CATALOGUE.pop(ident, None)


def test_importing_the_package_or_the_catalogue_loads_no_suite() -> None:
    # A pytest-xdist controller imports these before its workers start, and runs no check.
    code = (
        "import sys, conformance.checks, conformance.checks.catalogue;"
        "print(sorted(m for m in sys.modules"
        " if m.startswith('conformance.checks.') and m.endswith(('_suite', '_core'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    code = "from conformance.checks import assert_health, run_suite; print(assert_health.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "assert_health"
