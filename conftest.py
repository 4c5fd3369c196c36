"""Root pytest configuration: shared fixtures live in the parts that own them."""

pytest_plugins = ["tests.emulator.fixtures", "tests.cluster.fixtures", "tests.cluster.helm"]
