"""A CPU-only rank of a torchrun job for tests/cli/launcher_capture_test.sh:
gloo all-reduces between NVTX ranges pushed through tests/tracer/nvtx_shim.cc
(loaded with ctypes, the way torch.cuda.nvtx reaches the NVTX C API).
Each of --steps steps is a range "step N" holding "forward" (a spin of --ms
milliseconds; rank --slow-rank spins --slow-ms at step --slow-step: the
built-in straggler) and "allreduce" (64 K floats over gloo).
  python3 torch_straggler.py SHIM [--steps 5] [--ms 5] [--slow-rank 2] [--slow-step 3] [--slow-ms 300]"""
import argparse
import ctypes
import time

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("shim")
parser.add_argument("--steps", type=int, default=5)
parser.add_argument("--ms", type=float, default=5)
parser.add_argument("--slow-rank", type=int, default=2)
parser.add_argument("--slow-step", type=int, default=3)
parser.add_argument("--slow-ms", type=float, default=300)
args = parser.parse_args()

shim = ctypes.CDLL(args.shim)
shim.shim_push.argtypes = [ctypes.c_char_p]


def spin(ms):
    end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < end:
        pass


dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_ADDR/PORT from torchrun
rank = dist.get_rank()
data = torch.ones(64 * 1024)
for step in range(args.steps):
    shim.shim_push(f"step {step}".encode())
    shim.shim_push(b"forward")
    spin(args.slow_ms if rank == args.slow_rank and step == args.slow_step else args.ms)
    shim.shim_pop()
    shim.shim_push(b"allreduce")
    dist.all_reduce(data)
    shim.shim_pop()
    shim.shim_pop()
dist.destroy_process_group()
