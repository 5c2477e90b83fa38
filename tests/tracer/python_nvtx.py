"""NVTX ranges from a Python process (the way torch.cuda.nvtx reaches the NVTX C API),
through tests/tracer/nvtx_shim.cc loaded with ctypes: forward > layer x4, then exit."""
import ctypes
import sys
import time

shim = ctypes.CDLL(sys.argv[1])
shim.shim_push.argtypes = [ctypes.c_char_p]


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


shim.shim_push(b"forward")
for _ in range(4):
    shim.shim_push(b"layer")
    spin(0.001)
    shim.shim_pop()
shim.shim_pop()
