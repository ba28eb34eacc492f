"""Probes of the CUDA hand-over between an isobench worker and torch (python_probes.yaml)."""

import torch


def stream_probe(seed, device, stream):
    """Fails its set-up unless the worker made its stream torch's current one on its device."""
    index = int(device.split(":")[1])
    current = torch.cuda.current_stream()
    if torch.cuda.current_device() != index:
        raise RuntimeError("torch's current device is %d, the worker's %d" % (torch.cuda.current_device(), index))
    if current.cuda_stream != stream:
        raise RuntimeError("torch's current stream is %#x, the worker's %#x" % (current.cuda_stream, stream))
    x = torch.randn(1 << 20, device=device, generator=torch.Generator(device=device).manual_seed(seed))
    return lambda: x.mul_(1.0)


def syncing_launch(seed, device, stream):
    """A launch that synchronises (.item()): not capturable into a CUDA graph."""
    x = torch.randn(1 << 16, device=device, generator=torch.Generator(device=device).manual_seed(seed))
    return lambda: x.sum().item()
