"""A driver process that declares, over the protocol, what a Python driver declares in
process: a constraint on valid input and an option that is a credential.

    python declaring_driver.py declared|undeclared

Both serve the reference provider behind a store that refuses a namespace holding an
empty or `.` segment (as a store mapping `/` onto directories does), and print the
`endpoint` option on stderr; only `declared` says so in its handshake.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from conformance.constraints import Constraints
from conformance.driver import Driver
from conformance.protocol.server import serve_stdio
from conformance.provider import Invalid, MemoryCategory, MemoryTaint
from reference_driver import ReferenceProvider

CONSTRAINTS = Constraints(empty_or_dot_segments=False, reason="the store maps `/` onto directories")


class DirectoryProvider(ReferenceProvider):
    """The reference provider, refusing `a//b` and `a/./b` as a directory tree would."""

    def store(
        self,
        namespace: str,
        key: str,
        content: str,
        category: MemoryCategory,
        session_id: str | None,
        taint: MemoryTaint,
    ) -> None:
        if any(segment in ("", ".") for segment in namespace.split("/")):
            raise Invalid("namespace segment cannot be a directory name")
        super().store(namespace, key, content, category, session_id, taint)


def build(spec: str, options: Mapping[str, str]) -> Driver:
    print(f"connecting to {options.get('endpoint')}", file=sys.stderr, flush=True)
    declared = spec == "declared"
    return Driver(
        name=f"directory-{spec}",
        provider=DirectoryProvider,
        constraints=CONSTRAINTS if declared else Constraints(),
        secret_options=frozenset({"endpoint"} if declared else ()),
    )


if __name__ == "__main__":
    sys.exit(serve_stdio(sys.argv[1], {}, build))
