"""The globals of the loaded modules, read without running their code: what autotune.py and
triton_ir.py scan to find Triton's autotuners and JIT functions.

A scan must not touch a global's attributes. `isinstance(value, cls)` does: when the type does not
match it looks up `value.__class__`, which runs the object's `__getattribute__`; torch's
`torch.distributed.reduce_op` warns from there (FutureWarning: reduce_op is deprecated), once per
worker in the user's log. So a value's class is taken with type(), and a module's globals from its
__dict__ slot (never a module's `__getattr__`, nor a subclass's `__getattribute__`).
"""

import sys
import types

_MODULE_DICT = types.ModuleType.__dict__["__dict__"]


def loaded_globals():
    """The values of every loaded module's globals (a snapshot: scanning may import nothing)."""
    for module in list(sys.modules.values()):
        if issubclass(type(module), types.ModuleType):
            yield from list(_MODULE_DICT.__get__(module).values())


def is_a(value, cls):
    """isinstance() by the value's type alone, without looking anything up on the value."""
    return issubclass(type(value), cls)
