"""A module that asks torch about the device when imported, as FlagGems' device tables do (with
the stand-in torch of this folder): no context needed, so a zygote that defers CUDA can import it.
Appends the importing process's id to $DO_BENCH_IMPORTS once its import is done;
$FAKE_IMPORT_SECONDS makes the import take that long (a known cost, as FlagGems' import of seconds:
bench/deferred_prerun.sh measures what the run's start pays for it)."""

import os
import time

import torch

time.sleep(float(os.environ.get("FAKE_IMPORT_SECONDS", "0")))

assert torch.cuda.is_available()
SMS = torch.cuda.get_device_properties(0).multi_processor_count
CAPABILITY = torch.cuda.get_device_capability()
NAME = torch.cuda.get_device_name(torch.cuda.current_device())
DEVICES = torch.cuda.device_count()
if os.environ.get("DO_BENCH_IMPORTS"):
    with open(os.environ["DO_BENCH_IMPORTS"], "a") as f:
        f.write("%d\n" % os.getpid())
