import os

from hypothesis import settings

pytest_plugins = ["pytester"]

# Property tests run under -n 2 beside subprocess-heavy plugin tests: a per-example
# deadline would turn load into flakes. CI is derandomised so a red run is repeatable.
settings.register_profile("kit", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, database=None)
settings.load_profile("ci" if os.environ.get("CI") else "kit")
