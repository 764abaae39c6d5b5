"""`tinymemory-conformance run` with an option pytest does not know: one line naming the
closest valid option, instead of pytest's usage text and `unrecognized arguments`."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable
from typing import Any

import pytest

from plugins.settings import SETTINGS, closest

_UNRECOGNISED = re.compile(r"unrecognized arguments: (.*)")


def _known_options(pluginmanager: Any) -> set[str]:
    """Every long option of the parse that failed: pytest's, its plugins' and the kit's."""
    known = {s.option for s in SETTINGS} | {"--report"}
    config = pluginmanager.get_plugin("pytestconfig")
    # pytest names no public way to list its options; without one, the kit's still help.
    optparser = getattr(getattr(config, "_parser", None), "optparser", None)
    actions = getattr(optparser, "_option_string_actions", {})
    known.update(name for name in actions if name.startswith("--"))
    return known


def unknown_option_line(unknown: Iterable[str], known: Iterable[str]) -> str:
    """`unknown option `--driver-optoin` (did you mean `--driver-option`?); ...`"""
    valid = sorted(known)
    shown = []
    for arg in unknown:
        name = arg.partition("=")[0]
        near = closest(name, valid)
        shown.append(f"`{name}`" + (f" (did you mean `{near}`?)" if near else ""))
    noun = "option" if len(shown) == 1 else "options"
    return (
        f"tinymemory-conformance run: unknown {noun} {', '.join(shown)}; "
        f"`tinymemory-conformance run --help` lists the kit's options, `pytest --help` pytest's"
    )


class MisspeltOptions:
    """A plugin for `pytest.main` that rewrites an unknown-option usage error."""

    @pytest.hookimpl(wrapper=True)
    def pytest_cmdline_parse(
        self, pluginmanager: pytest.PytestPluginManager, args: list[str]
    ) -> Generator[None, Any, Any]:
        try:
            return (yield)
        except pytest.UsageError as exc:
            found = _UNRECOGNISED.search(str(exc))
            unknown = [a for a in found.group(1).split() if a.startswith("-")] if found else []
            if not unknown:
                raise
            line = unknown_option_line(unknown, _known_options(pluginmanager))
            raise pytest.UsageError(line) from None
