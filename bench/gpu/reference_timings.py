#!/usr/bin/env python3
"""Independent reference timings for isobench's CUDA kernels, for the H200 run.

Times the same operations and shapes as isobench's built-in CUDA kernels with PyTorch
implementations and triton.testing, and prints one JSON document:

  do_bench_median_us            triton.testing.do_bench, median; triton zeroes a 256 MB buffer
                                before every repetition, so L2 is cold: compare with isobench
                                `cold_cache: true` (inner 1).
  do_bench_cudagraph_median_us  triton.testing.do_bench_cudagraph, median; launches replayed from a
                                CUDA graph with L2 warm: compare with isobench `timer: graph`.
  events_median_us              torch CUDA events around 20 back-to-back launches, median of 12
                                samples, L2 warm: the same method as isobench's default
                                `timer: events`, `statistic: mean`, inner 20.

plus the device-to-device copy bandwidth (bytes read + written, the ceiling isobench's cast and
normalization targets are stated against) and torch.matmul bf16 8192^3.

Instance ids use isobench's format (kernel[axis=value,...] in the spec's axis order) so the
results join with isobench run directories. The implementations are PyTorch's (not isobench's
kernels), so agreement within a few percent on the memory-bound kernels and the same GEMM
throughput class is what to expect; `implementation` says which PyTorch call was timed.
Needs only torch and triton. Usage: python3 bench/gpu/reference_timings.py [--quick] > ref.json
"""

import argparse
import datetime
import json
import statistics
import sys

import torch
import triton
import triton.testing


def median_ms(bench, fn, **kwargs):
    """triton's median; older triton lacks return_mode, so fall back to quantiles=[0.5]."""
    try:
        return bench(fn, return_mode="median", **kwargs)
    except TypeError:
        return bench(fn, quantiles=[0.5], **kwargs)


def events_median_ms(fn, inner=20, samples=12):
    fn()  # warm-up
    torch.cuda.synchronize()
    values = []
    for _ in range(samples):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        values.append(start.elapsed_time(stop) / inner)
    return statistics.median(values)


def time_all(fn):
    stream = torch.cuda.Stream()  # do_bench_cudagraph refuses the default stream
    with torch.cuda.stream(stream):
        fn()
        torch.cuda.synchronize()
        cold = median_ms(triton.testing.do_bench, fn)
        graph = median_ms(triton.testing.do_bench_cudagraph, fn)
        events = events_median_ms(fn)
    torch.cuda.synchronize()
    return {"do_bench_median_us": cold * 1e3, "do_bench_cudagraph_median_us": graph * 1e3,
            "events_median_us": events * 1e3}


def uniform(shape, dtype, lo=0.1, hi=4.0):
    """Magnitudes in [lo, hi] with random signs, never zero (as isobench's inputs)."""
    x = torch.rand(shape, device="cuda", dtype=torch.float32) * (hi - lo) + lo
    sign = torch.randint(0, 2, shape, device="cuda", dtype=torch.float32) * 2 - 1
    return (x * sign).to(dtype)


def cast_case(n, conversion):
    src, dst = {"fp32_bf16": (torch.float32, torch.bfloat16),
                "fp32_fp16": (torch.float32, torch.float16),
                "fp32_fp8e4m3": (torch.float32, torch.float8_e4m3fn),
                "bf16_fp32": (torch.bfloat16, torch.float32)}[conversion]
    x = uniform((n,), src)
    out = torch.empty(n, device="cuda", dtype=dst)
    bytes_moved = n * (x.element_size() + out.element_size())
    return (f"cast[n={n},conversion={conversion},scale=1.0]", f"Tensor.copy_ {src}->{dst}",
            lambda: out.copy_(x), bytes_moved, 0)


def norm_case(kernel, rows, hidden):
    x = uniform((rows, hidden), torch.bfloat16, 0.1, 3.0)
    w = uniform((hidden,), torch.bfloat16, 0.5, 1.5)
    b = uniform((hidden,), torch.bfloat16, 0.01, 0.5)
    if kernel == "rmsnorm":
        if hasattr(torch.nn.functional, "rms_norm"):
            fn, impl = (lambda: torch.nn.functional.rms_norm(x, (hidden,), w, eps=1e-6)), "F.rms_norm"
        else:
            def fn():
                xf = x.float()
                return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)
            impl = "eager rmsnorm (no F.rms_norm in this torch)"
        params = 1
    else:
        fn, impl = (lambda: torch.nn.functional.layer_norm(x, (hidden,), w, b, eps=1e-5)), "F.layer_norm"
        params = 2
    bytes_moved = 2 * (2 * rows * hidden + params * hidden)
    flops = (4 if kernel == "rmsnorm" else 7) * rows * hidden
    return f"{kernel}[rows={rows},hidden={hidden}]", impl, fn, bytes_moved, flops


def gemm_case(m, n, k, dtype):
    """D[m,n] = A[m,k] B[k,n]; isobench's default layout is cuBLAS TN, torch's row-major A @ B
    maps to the same cuBLAS call up to transposition (FLOPs and bytes are identical)."""
    if dtype == "fp8e4m3":
        a = uniform((m, k), torch.float32, 0.05, 1.0).to(torch.float8_e4m3fn)
        b = uniform((n, k), torch.float32, 0.05, 1.0).to(torch.float8_e4m3fn).t()  # column-major
        one = torch.ones((), device="cuda", dtype=torch.float32)
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        impl, in_bytes, out_bytes = "torch._scaled_mm e4m3 -> bf16", 1, 2
    else:
        t = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32}[dtype]
        a = uniform((m, k), t, 0.05, 1.0)
        b = uniform((k, n), t, 0.05, 1.0)
        fn = lambda: torch.matmul(a, b)
        impl = "torch.matmul" + (" (allow_tf32)" if dtype == "tf32" else "")
        in_bytes = out_bytes = a.element_size()
    bytes_moved = in_bytes * (m * k + k * n) + out_bytes * m * n
    return (f"gemm[m={m},n={n},k={k},dtype={dtype},trans=tn,algo=-1]", impl, fn, bytes_moved,
            2 * m * n * k)


def grouped_case(groups, m, n, k):
    x = uniform((groups, m, k), torch.bfloat16, 0.05, 1.0)
    w = uniform((groups, n, k), torch.bfloat16, 0.05, 1.0)
    fn = lambda: torch.bmm(x, w.transpose(1, 2))
    bytes_moved = groups * 2 * (m * k + k * n + m * n)
    return (f"grouped_gemm[groups={groups},m_per_group={m},n={n},k={k},dtype=bf16]",
            "torch.bmm (equal group sizes)", fn, bytes_moved, 2 * groups * m * n * k)


def copy_bandwidth():
    n = 1 << 30
    src = torch.empty(n, device="cuda", dtype=torch.uint8).random_()
    dst = torch.empty_like(src)
    t = time_all(lambda: dst.copy_(src))
    return {key.replace("_us", "_GBps"): 2 * n / (value * 1e-6) / 1e9 for key, value in t.items()}


def cases(quick):
    yield lambda: cast_case(1 << 20, "fp32_bf16")
    yield lambda: cast_case(16 << 20, "fp32_bf16")
    for conversion in ["fp32_bf16"] if quick else ["fp32_bf16", "fp32_fp16", "fp32_fp8e4m3", "bf16_fp32"]:
        yield lambda c=conversion: cast_case(128 << 20, c)
    for rows, hidden in [(64, 4096), (4096, 4096), (16384, 8192)]:
        yield lambda r=rows, h=hidden: norm_case("rmsnorm", r, h)
    if not quick:
        yield lambda: norm_case("layernorm", 4096, 4096)
        yield lambda: norm_case("layernorm", 16384, 8192)
    for m, n, k in [(1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 2048), (8192, 8192, 8192)]:
        yield lambda m=m, n=n, k=k: gemm_case(m, n, k, "bf16")
    if not quick:
        for dtype in ["fp16", "fp8e4m3", "tf32"]:
            yield lambda d=dtype: gemm_case(8192, 8192, 8192, d)
        yield lambda: grouped_case(8, 2048, 4096, 4096)
        yield lambda: grouped_case(64, 128, 2048, 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the nine calibration kernels only")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print(json.dumps({"available": False, "reason": "torch sees no CUDA device"}))
        return 1
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.manual_seed(0)
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
        "command": " ".join(sys.argv),
        "copy_bandwidth": copy_bandwidth(),
        "results": [],
    }
    for make in cases(args.quick):
        try:
            instance, impl, fn, bytes_moved, flops = make()
            timings = time_all(fn)
            row = {"instance": instance, "implementation": impl, **timings,
                   "bytes_per_launch": bytes_moved, "flops_per_launch": flops}
            for key in ("do_bench_median_us", "do_bench_cudagraph_median_us", "events_median_us"):
                seconds = timings[key] * 1e-6
                row[key.replace("_median_us", "_GBps")] = bytes_moved / seconds / 1e9
                if flops:
                    row[key.replace("_median_us", "_TFLOPs")] = flops / seconds / 1e12
            report["results"].append(row)
            print(f"{instance}: {timings}", file=sys.stderr)
        except Exception as error:  # one unsupported case must not lose the others
            report["results"].append({"case": repr(make), "error": f"{type(error).__name__}: {error}"})
        torch.cuda.empty_cache()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
