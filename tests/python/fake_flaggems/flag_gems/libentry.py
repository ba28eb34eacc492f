"""flag_gems.utils.libentry's interface points, as isobench.autotune meets them (docs/python.md,
"Autotuned Triton kernels"), on the stand-in Triton (tests/python/fake_triton):

- LibTuner is an Autotuner whose `cache` is no dict but one table of a tuner database (one per
  FLAGGEMS_CACHE_DIR): `key in cache`, `cache[key]`, `cache[key] = config`; a configuration read
  back from it is a new Config (the database stores fields), which the tuner swaps for its own
  configuration of the same fields. Its key is its `key=` arguments through its strategy (here:
  rounded up to a power of two) followed by its tensors' dtypes as strings. It sets `cache` anew
  when its configs change (set_configs). With one configuration it looks nothing up.
- LibEntry holds it as `fn` and calls `fn.run` only for arguments it has not launched before,
  reading the tuner's `best_config` after.

The tuner picks the configuration FAKE_TRITON_BEST names, as the stand-in Autotuner does."""

import inspect
import os

from triton.runtime.autotuner import Autotuner, Config
from triton.runtime.jit import KernelInterface

DATABASES = {}  # FLAGGEMS_CACHE_DIR -> {table: {key: config fields}}


class Tensor:
    """What the key reads of a tensor argument: its dtype."""

    def __init__(self, dtype):
        self.dtype = dtype


class ConfigTable:
    def __init__(self, table):
        folder = os.environ.get("FLAGGEMS_CACHE_DIR", "~/.flaggems")
        self.rows = DATABASES.setdefault(folder, {}).setdefault(table, {})
        self.reads = 0

    def __contains__(self, key):
        return key in self.rows

    def __getitem__(self, key):
        self.reads += 1
        kwargs, num_warps, num_stages = self.rows[key]
        return Config(dict(kwargs), num_warps=num_warps, num_stages=num_stages)

    def __setitem__(self, key, config):
        self.rows[key] = (dict(config.kwargs), config.num_warps, config.num_stages)


def _power_of_two(n):
    return 1 << max(0, int(n) - 1).bit_length()


class LibTuner(Autotuner):
    def __init__(self, fn, configs, key):
        super().__init__(fn, configs, key)
        self.cache = ConfigTable(self._table())

    def _table(self):
        return "%s_%d" % (self.base_fn.__name__, len(self.configs))

    def set_configs(self, configs):
        self.configs = configs
        self.cache = ConfigTable(self._table())

    def get_key(self, named):
        key = tuple(_power_of_two(named[k]) for k in self.keys)
        return key + tuple(str(v.dtype) for v in named.values() if isinstance(v, Tensor))

    def run(self, *args, **kwargs):
        bound = inspect.signature(self.fn).bind_partial(*args, **kwargs)
        bound.apply_defaults()  # a defaulted argument among key= counts, as in Triton's
        named = bound.arguments
        if len(self.configs) > 1:
            key = self.get_key(named)
            if key not in self.cache:
                self.cache[key] = self._best()
            config = self.cache[key]
            same = [c for c in self.configs if c.all_kwargs() == config.all_kwargs()]
            config = same[0] if same else config
        else:
            config = self.configs[0]
        self.best_config = config
        return self.fn(*args, **kwargs, **config.all_kwargs())


def libtuner(configs, key):
    return lambda fn: LibTuner(fn, configs, key)


class LibEntry(KernelInterface):
    def __init__(self, fn):
        self.fn = fn
        self.kernel_cache = {}

    def run(self, *args, **kwargs):
        entry_key = tuple(repr(a) if not isinstance(a, Tensor) else a.dtype for a in args)
        if entry_key not in self.kernel_cache:
            self.fn.run(*args, **kwargs)
            self.kernel_cache[entry_key] = self.fn.best_config
            return
        config = self.kernel_cache[entry_key]
        self.fn.fn(*args, **kwargs, **config.all_kwargs())

    def __call__(self, *args, **kwargs):
        return self.run(*args, **kwargs)


def libentry():
    return LibEntry
