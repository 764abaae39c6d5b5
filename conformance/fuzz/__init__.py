"""Property-based fuzzing of any registered store, the reference driver as the oracle.

- ``strategies``: hypothesis strategies for both profiles' values, valid and invalid,
  each narrowable by keyword arguments;
- ``config``: what the machines draw from (``EngineFuzzConfig``, ``ProviderFuzzConfig``);
- ``engine_machine`` / ``provider_machine``: the differentials (plain classes, one
  method per step) and the hypothesis state machines that drive them;
- ``steps``, ``minimise`` and ``repro``: the step log, its shrinking by replay, and
  the regression tests written from it;
- ``runner``: ``run_fuzz``, ``FUZZ_TARGETS``, ``FuzzReport``, ``FuzzFailure``.
"""

from conformance.fuzz.config import ROOT_PLACEHOLDER, EngineFuzzConfig, ProviderFuzzConfig
from conformance.fuzz.differential import Differential, FuzzConfigError, FuzzStats
from conformance.fuzz.engine_machine import (
    ENGINE_TARGET,
    EngineDifferential,
    EngineMachine,
    engine_oracle,
    engine_state_machine,
)
from conformance.fuzz.minimise import minimise, replay_steps
from conformance.fuzz.provider_machine import (
    PROVIDER_TARGET,
    ProviderDifferential,
    ProviderMachine,
    provider_oracle,
    provider_state_machine,
)
from conformance.fuzz.repro import driver_spec_of, repro_source, write_repro
from conformance.fuzz.runner import (
    DEFAULT_EXAMPLES,
    DEFAULT_SHRINK_SECONDS,
    DEFAULT_STEPS,
    FUZZ_TARGETS,
    FuzzFailure,
    FuzzReport,
    FuzzTarget,
    fuzz_settings,
    run_fuzz,
    shrink_budget,
)
from conformance.fuzz.steps import FailureSink, Step

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_SHRINK_SECONDS",
    "DEFAULT_STEPS",
    "ENGINE_TARGET",
    "FUZZ_TARGETS",
    "PROVIDER_TARGET",
    "ROOT_PLACEHOLDER",
    "Differential",
    "EngineDifferential",
    "EngineFuzzConfig",
    "EngineMachine",
    "FailureSink",
    "FuzzConfigError",
    "FuzzFailure",
    "FuzzReport",
    "FuzzStats",
    "FuzzTarget",
    "ProviderDifferential",
    "ProviderFuzzConfig",
    "ProviderMachine",
    "Step",
    "driver_spec_of",
    "engine_oracle",
    "engine_state_machine",
    "fuzz_settings",
    "minimise",
    "provider_oracle",
    "provider_state_machine",
    "replay_steps",
    "repro_source",
    "run_fuzz",
    "shrink_budget",
    "write_repro",
]
