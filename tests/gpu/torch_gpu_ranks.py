"""One rank of a torchrun job on a GPU, for tests/gpu/torchrun_ranks_test.sh.

Each of --steps steps is an NVTX range "step N" (torch.cuda.nvtx, the way
PyTorch programs mark regions) holding "forward" (--matmuls products of two
--size x --size float32 matrices, synchronised; rank --slow-rank does
--slow-matmuls of them in step --slow-step: the built-in straggler) and
"allreduce" (a gloo all-reduce of a CUDA tensor: NCCL refuses two ranks on
one GPU). With --kineto DIR the loop also runs under torch.profiler (CPU and
CUDA activities, one ProfilerStep#N per step, record_function ranges named
like the NVTX ones) and each rank writes DIR/rank<R>.json.
With --device cpu (a machine without a GPU) the NVTX ranges are left out.
  torchrun --standalone --nproc_per_node=2 torch_gpu_ranks.py [--steps 5] [--kineto DIR]
"""
import argparse
import contextlib
import os

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=5)
parser.add_argument("--size", type=int, default=1024)
parser.add_argument("--matmuls", type=int, default=4)
parser.add_argument("--slow-rank", type=int, default=1)
parser.add_argument("--slow-step", type=int, default=3)
parser.add_argument("--slow-matmuls", type=int, default=400)
parser.add_argument("--kineto", default=None)
parser.add_argument("--device", default="cuda")
args = parser.parse_args()

cuda = args.device == "cuda"
dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_ADDR/PORT from torchrun
rank = dist.get_rank()
device = torch.device("cuda", 0) if cuda else torch.device("cpu")
torch.backends.cuda.matmul.allow_tf32 = False  # plain float32 products: a known amount of work


def sync():
    if cuda:
        torch.cuda.synchronize()


@contextlib.contextmanager
def region(name):
    """An NVTX range (CUDA) and, under the profiler, a record_function range."""
    if cuda:
        torch.cuda.nvtx.range_push(name)
    with torch.profiler.record_function(name) if args.kineto else contextlib.nullcontext():
        yield
    if cuda:
        torch.cuda.nvtx.range_pop()


a = torch.randn(args.size, args.size, device=device)
b = torch.randn(args.size, args.size, device=device)
grad = torch.ones(256 * 1024, device=device)
sync()


def run_steps(profiler=None):
    for step in range(args.steps):
        with region(f"step {step}"):
            with region("forward"):
                n = args.slow_matmuls if rank == args.slow_rank and step == args.slow_step else args.matmuls
                c = a
                for _ in range(n):
                    c = torch.mm(c, b) * (1.0 / args.size)
                sync()
            with region("allreduce"):
                dist.all_reduce(grad)
                sync()
        if profiler is not None:
            profiler.step()


if args.kineto:
    acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
    os.makedirs(args.kineto, exist_ok=True)
    out = os.path.join(args.kineto, f"rank{rank}.json")
    # A schedule makes the profiler mark each step (ProfilerStep#N); every step is recorded.
    every_step = torch.profiler.schedule(wait=0, warmup=0, active=args.steps, repeat=1)
    with torch.profiler.profile(activities=acts, schedule=every_step,
                                on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
        run_steps(prof)
else:
    run_steps()
dist.destroy_process_group()
