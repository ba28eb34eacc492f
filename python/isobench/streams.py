"""The worker's CUDA stream as torch's current stream.

A CUDA benchmark's launches must go to the stream its set-up function is given (the worker
times that stream with CUDA events, or captures it into a CUDA graph). The worker makes it
torch's current stream before it calls the set-up function of the first CUDA instance, for the
rest of its life, when the benchmark module imported torch: torch operators and Triton kernels
(which launch on torch's current stream) then enqueue there with no code of the benchmark's.
`torch_stream` is how it does so, and what a benchmark that wants to say so itself uses:

    with isobench.torch_stream(stream):
        ...

The stream belongs to the worker's CUDA context, the device's primary context, which the
worker's CUDA runtime (linked statically into libisobench-worker.so) and torch's share: a
stream handle of the one is valid in the other.
"""

import sys


def torch_stream(stream, device=None):
    """A torch stream context over the worker's stream (an integer cudaStream_t handle)."""
    torch = sys.modules.get("torch")
    if torch is None:
        import torch  # noqa: F811 - imported here only when the benchmark did not
    external = torch.cuda.ExternalStream(stream, device=device)
    return torch.cuda.stream(external)
