"""A local emulator of the Nubes deck-api (see README.md): `EmulatorServer` for tests, `python -m tests.emulator`."""

from tests.emulator.server import EmulatorServer

__all__ = ["EmulatorServer"]
