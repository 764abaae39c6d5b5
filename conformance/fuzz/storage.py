"""Where hypothesis keeps its files during a fuzz run: a cache of the kit's, never the
working folder.

The fuzzer keeps no example database (`database=None`), but hypothesis still caches its
Unicode tables in its home directory, `./.hypothesis/` unless told otherwise: a vendor
running `pytest --fuzz` found that folder in their project unannounced. During a run the
home is `$XDG_CACHE_HOME/tinymemory-conformance/hypothesis` (`~/.cache/...` without
XDG_CACHE_HOME); `HYPOTHESIS_STORAGE_DIRECTORY`, or a home the project set itself, wins.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from hypothesis import configuration

__all__ = ["STORAGE_VARIABLE", "kit_cache", "kit_storage"]

STORAGE_VARIABLE: Final = "HYPOTHESIS_STORAGE_DIRECTORY"
"""Hypothesis's own variable for its home directory."""

# Module globals of hypothesis.configuration (no public getter exists).
_HOME: Final = "__hypothesis_home_directory"
_DEFAULT: Final = "__hypothesis_home_directory_default"


def kit_cache() -> Path:
    """The directory hypothesis uses during a fuzz run unless told otherwise."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tinymemory-conformance" / "hypothesis"


@contextlib.contextmanager
def kit_storage() -> Iterator[None]:
    """Point hypothesis's home at `kit_cache()` for the block, unless the environment or
    the project chose one; restored afterwards, so a project's own hypothesis tests in
    the same session keep theirs."""
    state = vars(configuration)
    saved = state.get(_HOME)
    chosen = os.environ.get(STORAGE_VARIABLE) or (
        saved is not None and saved != state.get(_DEFAULT)
    )
    if chosen or _HOME not in state:
        yield
        return
    configuration.set_hypothesis_home_dir(kit_cache())
    try:
        yield
    finally:
        state[_HOME] = saved
