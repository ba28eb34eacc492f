"""What the torch and Triton examples share: dtypes by name, inputs from a seed, and the check of
an output against a float32 reference."""

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# What a launch may differ from the float32 reference by, relative to the reference's scale.
TOLERANCE = {"bf16": 2e-2, "fp16": 2e-3, "fp32": 1e-4}


def random_tensors(seed, device, *shapes, dtype):
    """Normal random tensors of `shapes` on `device` from `seed`: the same on both sides of an A/B."""
    generator = torch.Generator(device=device).manual_seed(seed)
    return [torch.randn(shape, generator=generator, device=device, dtype=torch.float32).to(DTYPES[dtype])
            for shape in shapes]


def agreement(out, reference, dtype):
    """None when `out` agrees with the float32 `reference` within the dtype's tolerance, else why not."""
    error = (out.float() - reference).abs().max().item()
    scale = reference.abs().max().item() or 1.0
    if error <= TOLERANCE[dtype] * scale:
        return None
    return "max abs error %.3g, %.3g of the scale %.3g" % (error, error / scale, scale)
