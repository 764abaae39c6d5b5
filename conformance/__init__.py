"""tinymemory-conformance: the TinyMemory contract in Python, and the kit that holds drivers to it.

Subpackages: `conformance.engine` and `conformance.provider` (the contract's two profiles),
`conformance.checks` (the suites), `conformance.sections` (the Section API),
`conformance.fuzz` (strategies and state machines), `conformance.report` (the report model).
The names below are the ones a driver author reaches for first.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.bridge import SyncFace as SyncFace
    from conformance.bridge import as_sync as as_sync
    from conformance.checks import *  # noqa: F403
    from conformance.driver import (
        PROFILES as PROFILES,
    )
    from conformance.driver import (
        Driver as Driver,
    )
    from conformance.driver import (
        DriverError as DriverError,
    )
    from conformance.driver import (
        Profile as Profile,
    )
    from conformance.driver import (
        ProfileNotOffered as ProfileNotOffered,
    )
    from conformance.driver import (
        detect_profile as detect_profile,
    )
    from conformance.driver import (
        missing_methods as missing_methods,
    )
    from conformance.driver import (
        reject_options as reject_options,
    )
    from conformance.fuzz import (
        FUZZ_TARGETS as FUZZ_TARGETS,
    )
    from conformance.fuzz import (
        EngineFuzzConfig as EngineFuzzConfig,
    )
    from conformance.fuzz import (
        FuzzFailure as FuzzFailure,
    )
    from conformance.fuzz import (
        FuzzReport as FuzzReport,
    )
    from conformance.fuzz import (
        ProviderFuzzConfig as ProviderFuzzConfig,
    )
    from conformance.fuzz import (
        run_fuzz as run_fuzz,
    )
    from conformance.sections import (
        MAX_SECTION_NAMESPACES,
        AsyncSectionRecall,
        AsyncSections,
        AsyncSectionView,
        SectionHits,
        SectionRecall,
        Sections,
        SectionScope,
        SectionView,
    )

_DRIVER_NAMES = frozenset(
    {
        "PROFILES",
        "Driver",
        "DriverError",
        "Profile",
        "ProfileNotOffered",
        "detect_profile",
        "missing_methods",
        "reject_options",
    }
)
_BRIDGE_NAMES = frozenset({"SyncFace", "as_sync"})
_SECTION_NAMES = frozenset(
    {
        "MAX_SECTION_NAMESPACES",
        "AsyncSectionRecall",
        "AsyncSectionView",
        "AsyncSections",
        "SectionHits",
        "SectionRecall",
        "SectionScope",
        "SectionView",
        "Sections",
    }
)
_CHECK_NAMES = frozenset(
    {
        "CATALOGUE",
        "RETAINS_NOTHING",
        "Check",
        "CheckContext",
        "CheckResult",
        "CheckSkipped",
        "ConformanceFailure",
        "DriverRaised",
        "Inconclusive",
        "Outcome",
        "RunSettings",
        "all_checks",
        "checks_for",
        "engine_retains_writes",
        "provider_retains_writes",
        "run_engine_suite",
        "run_one",
        "run_provider_suite",
        "run_suite",
    }
)


_FUZZ_NAMES = frozenset(
    {
        "FUZZ_TARGETS",
        "EngineFuzzConfig",
        "FuzzFailure",
        "FuzzReport",
        "ProviderFuzzConfig",
        "run_fuzz",
    }
)


def __getattr__(name: str) -> Any:
    # Everything loads on first use, the contract's models too (hundreds of milliseconds):
    # pytest imports the kit's plugin for every run once it is installed, and a run that
    # asks for no driver should pay for none of it.
    if name in _DRIVER_NAMES:
        import conformance.driver as driver

        return getattr(driver, name)
    if name in _BRIDGE_NAMES:
        import conformance.bridge as bridge

        return getattr(bridge, name)
    if name in _SECTION_NAMES:
        import conformance.sections as sections

        return getattr(sections, name)
    if name in _FUZZ_NAMES:
        import conformance.fuzz as fuzz

        return getattr(fuzz, name)
    if name in _CHECK_NAMES or name.startswith("assert_"):
        import conformance.checks as checks

        return getattr(checks, name)
    raise AttributeError(f"module 'conformance' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "MAX_SECTION_NAMESPACES",
    "PROFILES",
    "AsyncSectionRecall",
    "AsyncSectionView",
    "AsyncSections",
    "Driver",
    "DriverError",
    "Profile",
    "ProfileNotOffered",
    "SectionHits",
    "SectionRecall",
    "SectionScope",
    "SectionView",
    "Sections",
    "SyncFace",
    "__version__",
    "as_sync",
    "detect_profile",
    "missing_methods",
    "reject_options",
    *sorted(_CHECK_NAMES),
    *sorted(_FUZZ_NAMES),
]
