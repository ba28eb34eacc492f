"""A do_bench file whose import initialises CUDA past torch.cuda._lazy_init
(tests/python/fake_torch/cuda_init_bypass.py): the zygote's deferred import cannot stop it, and the
run is refused (tests/python/test_deferred_cuda.py)."""

import cuda_init_bypass  # noqa: F401
import triton.testing


def test_nothing_much():
    triton.testing.do_bench(lambda: None)
