"""torch.cuda of the stand-in (see __init__.py). One device, or $FAKE_TORCH_DEVICES; each process
that "initialises CUDA" appends its pid to $FAKE_TORCH_INITS, so that a test sees who did."""

import os

_initialized = False


class _CudaDeviceProperties:
    def __init__(self, index):
        self.name = "Fake GPU %d" % index
        self.major, self.minor = 9, 0
        self.total_memory = 80 * 1024 ** 3
        self.multi_processor_count = 132 - index
        self.uuid = _Uuid(index)


class _Uuid:  # torch's uuid is an object of its own, printed as the UUID
    def __init__(self, index):
        self.index = index

    def __str__(self):
        return "fa7d25ec-0000-0000-0000-%012d" % self.index


def _lazy_init():
    global _initialized
    if _initialized:
        return
    _initialized = True
    if os.environ.get("FAKE_TORCH_INITS"):
        with open(os.environ["FAKE_TORCH_INITS"], "a") as f:
            f.write("%d\n" % os.getpid())


def is_initialized():
    return _initialized


def is_available():
    return device_count() > 0  # as torch's NVML-based check: no context


def device_count():
    return int(os.environ.get("FAKE_TORCH_DEVICES", "1"))


def current_device():
    _lazy_init()
    return 0


def get_device_properties(device=None):
    _lazy_init()
    index = current_device() if device is None else int(str(device).rpartition(":")[2] or 0)
    if not 0 <= index < device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(index)


def get_device_capability(device=None):
    properties = get_device_properties(device)
    return properties.major, properties.minor


def get_device_name(device=None):
    return get_device_properties(device).name


def synchronize():
    pass
