"""A Python driver in a child process the kit supervises (`--driver-isolation=process`).

The driver is served over the driver protocol (`tinymemory-conformance serve`), as an
`exec:` driver is served: a call that ends the child (`os._exit`, a signal, a segfault)
fails the check that made it, naming the exit status or the signal, and a fresh child
serves the calls after it. The child imports the driver from the parent's `sys.path`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from conformance.driver import Driver, DriverError
from conformance.redaction import Redactor
from plugins.registry import EXEC_PREFIX, resolve_driver


def serve_command(spec: str) -> list[str]:
    """The command of a child serving the driver `spec` (faulthandler on, so a segfault
    leaves the driver's Python stack in the child's stderr, which its failure quotes)."""
    return [sys.executable, "-X", "faulthandler", "-m", "plugins.cli", "serve", "--driver", spec]


def child_environment() -> dict[str, str]:
    """This process's environment, with `PYTHONPATH` set to its `sys.path` (a rootdir or
    `pythonpath` entry pytest added included), so the child finds the same modules."""
    env = dict(os.environ)
    paths = [os.path.abspath(p or os.curdir) for p in sys.path]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if os.path.isdir(p)))
    return env


def isolated_driver(spec: str, options: Mapping[str, str]) -> Driver:
    """The driver `spec` served by a child process (an `exec:` spec already is one);
    `DriverError` if the child cannot serve it (the child's own words say why)."""
    if spec.startswith(EXEC_PREFIX):
        return resolve_driver(spec, options)
    # Imported on use: only an isolated run pays for the protocol.
    from conformance.protocol.client import exec_driver

    try:
        return exec_driver(serve_command(spec), options, env=child_environment())
    except DriverError as exc:
        shown = Redactor.from_options(dict(options)).text(str(exc))
        if shown == str(exc):
            raise
        raise DriverError(shown) from None
