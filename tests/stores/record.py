"""Records an example store's run again: `python -m tests.stores.record NAME...` (or `all`).

Run it on purpose, after a change that moves an adapter's outcomes (the kit's or the
adapter's), and commit the new `examples/stores/NAME/report.json` with the change.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.stores.recorded import (
    ADAPTERS,
    ROOT,
    installed,
    normalise,
    outcomes,
    run,
    site_prefixes,
    stores_python,
    write,
)


def main(argv: list[str]) -> int:
    names = list(ADAPTERS) if argv == ["all"] else argv
    unknown = [name for name in names if name not in ADAPTERS]
    if not names or unknown:
        print(f"usage: python -m tests.stores.record NAME... | all (NAME: {', '.join(ADAPTERS)})")
        return 2
    python = stores_python()
    for name in names:
        adapter = ADAPTERS[name]
        if not installed(adapter, python):
            print(f"{name}: {adapter.distribution} is not installed for {python}")
            return 1
        with tempfile.TemporaryDirectory() as workdir:
            report, _ = run(adapter, Path(workdir), python)
        write(adapter, normalise(report, site_prefixes(python)))
        print(f"{name}: recorded {adapter.recorded.relative_to(ROOT)}")
        print("  " + "; ".join(outcomes(report)[:3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
