"""pytest fixtures for the deck-api emulator (filled in by the emulator part)."""
