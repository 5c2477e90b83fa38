#!/usr/bin/env python3
"""Writes a synthetic PyTorch profiler (Kineto) trace of about --mb megabytes.

Shape of a 2024+ Kineto file (kineto-reference.md §1): an object with
schemaVersion, deviceProperties, distributedInfo, traceEvents and, last,
baseTimeNanoseconds; times are relative microseconds with 3 decimals. Per
step: a ProfilerStep#N user_annotation; inside it layers, each a
user_annotation around cpu_ops that launch kernels (cudaLaunchKernel with a
correlation id, the kernel with the same correlation and the op's External
id), with python_function events and ac2g flows as real files carry them.
Deterministic (fixed seed).

    python3 bench/gen_kineto_trace.py OUT.json --mb 1000 [--seed 7]
"""

import argparse
import os
import random

KERNELS = [
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t> >(Flash_fwd_params)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
]
OPS = ["aten::mm", "aten::add", "aten::_flash_attention_forward", "c10d::allreduce_", "aten::native_layer_norm"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=1000)
    ap.add_argument("--seed", type=int, default=7, help="another seed: other durations, the same launches")
    args = ap.parse_args()
    target = int(args.mb * 1e6)
    rnd = random.Random(args.seed)
    pid, tid = 4242, 4242
    with open(args.out, "w") as f:
        f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "Synthetic GPU", "numSms": 132}],\n'
                '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n  "traceEvents": [\n')
        written = f.tell()
        t = 1000.0   # CPU clock, us
        g = 1000.0   # GPU clock, us
        corr = 1
        ext = 1
        step = 0
        first = True
        while written < target:
            step_start = t
            chunks = []
            for layer in range(32):
                layer_start = t
                for k in range(len(OPS)):
                    op_start = t + 0.5
                    dur_k = rnd.uniform(2, 80)
                    launch = op_start + 1.0
                    g = max(g, launch + 4.0)
                    chunks.append(
                        '  {\n    "ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1736): _call_impl", '
                        f'"pid": {pid}, "tid": {tid},\n    "ts": {op_start - 0.2:.3f}, "dur": {dur_k + 6:.3f},\n'
                        f'    "args": {{\n      "Python parent id": {ext}, "Python id": {ext + 1}, "Ev Idx": {ext}\n    }}\n  }}')
                    chunks.append(
                        f'  {{\n    "ph": "X", "cat": "cpu_op", "name": "{OPS[k]}", "pid": {pid}, "tid": {tid},\n'
                        f'    "ts": {op_start:.3f}, "dur": 5.000,\n    "args": {{\n      "External id": {ext},'
                        f'"Record function id": 0, "Ev Idx": {ext}\n    }}\n  }}')
                    chunks.append(
                        f'  {{\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid}, "tid": {tid},\n'
                        f'    "ts": {launch:.3f}, "dur": 3.125,\n    "args": {{\n      "External id": {ext},'
                        f'  "cbid": 211, "correlation": {corr}\n    }}\n  }}')
                    chunks.append(
                        f'  {{\n    "ph": "X", "cat": "kernel", "name": "{KERNELS[k]}", "pid": 0, "tid": 7,\n'
                        f'    "ts": {g:.3f}, "dur": {dur_k:.3f},\n    "args": {{\n      "External id": {ext},\n'
                        f'      "queued": 0, "device": 0, "context": 1,\n      "stream": 7, "correlation": {corr},\n'
                        f'      "registers per thread": 128,\n      "shared memory": 49152,\n      "grid": [132, 1, 1],\n'
                        f'      "block": [256, 1, 1],\n      "est. achieved occupancy %": 12\n    }}\n  }}')
                    chunks.append(
                        f'  {{\n    "ph": "s", "id": {corr}, "pid": {pid}, "tid": {tid}, "ts": {launch:.3f},\n'
                        f'    "cat": "ac2g", "name": "ac2g"\n  }}')
                    g += dur_k + rnd.uniform(0.5, 3)
                    t = op_start + 6.0
                    corr += 1
                    ext += 2
                chunks.append(
                    f'  {{\n    "ph": "X", "cat": "user_annotation", "name": "layer_{layer}", "pid": {pid}, "tid": {tid},\n'
                    f'    "ts": {layer_start:.3f}, "dur": {t - layer_start:.3f},\n    "args": {{\n      "External id": {ext}\n    }}\n  }}')
                ext += 1
                t += 1.0
            chunks.append(
                f'  {{\n    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{step}", "pid": {pid}, "tid": {tid},\n'
                f'    "ts": {step_start:.3f}, "dur": {t - step_start:.3f},\n    "args": {{\n      "External id": {ext}\n    }}\n  }}')
            ext += 1
            step += 1
            t += 10.0
            text = ",\n".join(chunks)
            if not first:
                text = ",\n" + text
            first = False
            f.write(text)
            written += len(text)
        f.write('\n  ],\n  "traceName": "synthetic",\n  "displayTimeUnit": "ms",\n'
                '  "baseTimeNanoseconds": 1727740800000000000\n}\n')


if __name__ == "__main__":
    main()
