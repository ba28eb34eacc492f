"""torch.cuda of the stand-in (see __init__.py)."""

_initialized = False


def is_initialized():
    return _initialized


def synchronize():
    pass
