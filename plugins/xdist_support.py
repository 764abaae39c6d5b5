"""Which part a process plays in a run under pytest-xdist, and the controller's xdist hooks.

`main` runs and reports (no xdist); a `worker` runs checks; the `controller` runs none,
hands each worker the run seed, and reports on what the workers tell it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from plugins.ledger import Ledger

Role = Literal["main", "controller", "worker"]
SEED_KEY = "tinymemory_seed"
FACTS_KEY = "tinymemory_facts"


def role_of(config: pytest.Config) -> Role:
    """The part this process plays."""
    if hasattr(config, "workerinput"):
        return "worker"
    if (
        config.pluginmanager.hasplugin("xdist")
        and not config.getoption("collectonly", False)
        and config.getoption("dist", "no") != "no"
        and config.getoption("tx", None)
    ):
        return "controller"
    return "main"


def worker_id(config: pytest.Config) -> str:
    """`gw0`, ... on an xdist worker; `main` anywhere else."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    return str(workerinput["workerid"]) if workerinput else "main"


def seed_from_controller(config: pytest.Config) -> int | None:
    """The run seed the controller handed this worker."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    seed = (workerinput or {}).get(SEED_KEY)
    return seed if isinstance(seed, int) else None


def item_id_of(nodeid: str, suite: str) -> str | None:
    """The item id (`engine.get[vector]`) of a node id of the suite, else None."""
    prefix = f"{suite}::"
    return nodeid[len(prefix) :] if nodeid.startswith(prefix) else None


class ControllerHooks:
    """The xdist hooks of the controller (registered only there)."""

    def __init__(self, ledger: Ledger, suite: str) -> None:
        self.ledger = ledger
        self.suite = suite

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_setupnodes(self, config: pytest.Config, specs: list[Any]) -> None:
        # The workers take seconds to come up, each loading the kit and the driver, and
        # nothing else says so: one line, so a silent terminal is not taken for a hang.
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or config.get_verbosity() < 0:
            return
        count = len(specs)
        workers = "worker" if count == 1 else "workers"
        reporter.ensure_newline()
        reporter.write_line(
            f"tinymemory: starting {count} pytest-xdist {workers}; each loads the kit and "
            f"driver `{self.ledger.driver.name}` and builds its own instance before its "
            "first check (seconds, more for a slow driver)"
        )

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        # Each worker derives its own streams from this seed and its worker id.
        node.workerinput[SEED_KEY] = self.ledger.seed

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.ledger.select(i for i in (item_id_of(n, self.suite) for n in ids) if i)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        # A worker ended in the middle of a check. When the kit abandoned the check (a
        # call it could not interrupt), the worker reported it inconclusive first: the
        # crash is not counted again. Any other crash fails the check (the ledger).
        item_id = item_id_of(crashitem, self.suite)
        if item_id is None or item_id not in self.ledger.entries:
            return
        report.outcome = "skipped"
        report.longrepr = (crashitem, None, "INCONCLUSIVE: the kit ended the worker (above)")
        report.tinymemory_abandoned = True
        worker = getattr(getattr(report, "node", None), "gateway", None)
        self.ledger.crashed_workers.add(str(getattr(worker, "id", "?")))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        from plugins.run import ProcessFacts

        output: dict[str, Any] = getattr(node, "workeroutput", None) or {}
        facts = output.get(FACTS_KEY)
        if isinstance(facts, dict):
            self.ledger.facts.append(ProcessFacts.from_wire(facts))
        if error is not None:
            name = str(getattr(node.gateway, "id", "?"))
            self.ledger.downs[name] = str(error)
