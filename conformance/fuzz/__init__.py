"""Property-based fuzzing of any registered store, the reference driver as the oracle.

- ``strategies`` and ``pools``: hypothesis strategies for both profiles' values, valid
  and invalid, each narrowable by keyword arguments, and the near-miss pools (prefix
  siblings, values on bounds) the machines draw names, paths and times from;
- ``config`` and ``narrowing``: what the machines draw from (``EngineFuzzConfig``,
  ``ProviderFuzzConfig``), narrowed by a driver's declared constraints;
- ``bulk`` and ``queries``: bulk writes from two numbers, queries from held texts and
  minimum scores from answered scores;
- ``engine_differential`` / ``provider_differential``: the differentials (plain
  classes, one method per step); ``engine_machine`` / ``provider_machine``: the
  hypothesis state machines that drive them;
- ``session``: one driver instance fuzzed program after program (``FuzzSession``);
  ``shards``: a target's budget cut into searches on instances of their own, which may
  run at once;
- ``steps``, ``minimise`` and ``repro``: the step log, replays on fresh instances and
  shrinking, and the regression tests written from them;
- ``subject`` and ``runner``: what ``run_fuzz`` accepts, ``run_fuzz`` itself,
  ``FUZZ_TARGETS``, ``FuzzReport``, ``FuzzFailure``, ``FuzzInconclusive``.
"""

from conformance.fuzz.config import ROOT_PLACEHOLDER, EngineFuzzConfig, ProviderFuzzConfig
from conformance.fuzz.differential import Differential, FuzzConfigError
from conformance.fuzz.engine_differential import ENGINE_TARGET, EngineDifferential, engine_oracle
from conformance.fuzz.engine_machine import EngineMachine, engine_state_machine
from conformance.fuzz.minimise import Replayer, same_failure, shrink
from conformance.fuzz.narrowing import Narrowed, narrow_engine, narrow_provider
from conformance.fuzz.provider_differential import (
    PROVIDER_TARGET,
    ProviderDifferential,
    provider_oracle,
)
from conformance.fuzz.provider_machine import ProviderMachine, provider_state_machine
from conformance.fuzz.repro import (
    OPTION_ENVIRONMENT_PREFIX,
    driver_option,
    driver_spec_of,
    option_variable,
    repro_source,
    write_repro,
)
from conformance.fuzz.runner import (
    DEFAULT_EXAMPLES,
    DEFAULT_SHRINK_CALLS,
    DEFAULT_STEPS,
    FUZZ_TARGETS,
    FuzzFailure,
    FuzzInconclusive,
    FuzzReport,
    FuzzTarget,
    fuzz_settings,
    run_fuzz,
)
from conformance.fuzz.session import FuzzSession, SessionOptions
from conformance.fuzz.stats import FuzzStats, ProgramStats
from conformance.fuzz.steps import FailureSink, Step

__all__ = [
    "DEFAULT_EXAMPLES",
    "DEFAULT_SHRINK_CALLS",
    "DEFAULT_STEPS",
    "ENGINE_TARGET",
    "FUZZ_TARGETS",
    "OPTION_ENVIRONMENT_PREFIX",
    "PROVIDER_TARGET",
    "ROOT_PLACEHOLDER",
    "Differential",
    "EngineDifferential",
    "EngineFuzzConfig",
    "EngineMachine",
    "FailureSink",
    "FuzzConfigError",
    "FuzzFailure",
    "FuzzInconclusive",
    "FuzzReport",
    "FuzzSession",
    "FuzzStats",
    "FuzzTarget",
    "Narrowed",
    "ProgramStats",
    "ProviderDifferential",
    "ProviderFuzzConfig",
    "ProviderMachine",
    "Replayer",
    "SessionOptions",
    "Step",
    "driver_option",
    "driver_spec_of",
    "engine_oracle",
    "engine_state_machine",
    "fuzz_settings",
    "narrow_engine",
    "narrow_provider",
    "option_variable",
    "provider_oracle",
    "provider_state_machine",
    "repro_source",
    "run_fuzz",
    "same_failure",
    "shrink",
    "write_repro",
]
