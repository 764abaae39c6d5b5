"""The fuzzer's default budget, in a module of its own so that the command line's help
can state it without loading the fuzzer (and hypothesis) into every pytest run."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_EXAMPLES", "DEFAULT_STEPS"]

DEFAULT_EXAMPLES: Final = 40
"""Examples (programs) per run unless `examples` (`--fuzz-examples`) says otherwise.
Hypothesis counts only the draws it keeps toward this: one it discards (too long for its
buffer, say) is run and redrawn, so a run's summary may count a few programs more."""

DEFAULT_STEPS: Final = 80
"""Most steps of one program: long enough that the stores programs start with are
read, paged, forgotten and exported many times over."""
