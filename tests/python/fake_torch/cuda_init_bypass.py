"""A module that initialises CUDA when imported without going through torch.cuda._lazy_init (with
the stand-in torch of this folder), as a direct torch._C._cuda_init() would: a zygote that imported
it could serve no worker, so the run is refused."""

import torch

torch.cuda._initialized = True
