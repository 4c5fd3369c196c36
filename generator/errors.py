"""The one exception type of the generator: its message is shown to the user as is."""


class GeneratorError(Exception):
    """A failure the user can act on (bad config, API error, invalid spec, drift)."""
