// A tiny shared library with NVTX3 inside, as torch.cuda.nvtx and the nvtx
// Python package have: tests/tracer/python_nvtx.py loads it with ctypes, so
// the tracer is tested in a Python process calling the NVTX C API.
#include <nvtx3/nvToolsExt.h>

extern "C" {
__attribute__((visibility("default"))) int shim_push(const char* name) { return nvtxRangePushA(name); }
__attribute__((visibility("default"))) int shim_pop() { return nvtxRangePop(); }
}
