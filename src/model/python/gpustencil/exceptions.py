"""gprMax 3's exceptions (gprMax.exceptions), which its antenna models raise: importable as
``gprMax.exceptions`` in #python blocks where the gprMax package in use has none."""


class GeneralError(ValueError):
    """A general error (gprMax 3)."""

    def __init__(self, message, *args):
        self.message = message
        super().__init__(message, *args)


class CmdInputError(ValueError):
    """An error in a command's parameters (gprMax 3)."""

    def __init__(self, message, *args):
        self.message = message
        super().__init__(message, *args)
