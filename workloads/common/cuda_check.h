// Shared by the bundled workloads: exit codes, CUDA error checking and the
// device probe. CUDA runtime only; include from exactly one .cu per program.
//
// Exit codes (docs/workloads.md keeps the same table):
//   0   ok: the run finished and its self-check passed
//   1   result mismatch: the GPU results differ from the CPU reference
//   2   usage: unknown flag, bad value, or sizes that do not fit together
//   69  no usable CUDA device: none found, no driver, or this build has no code for the GPU
//   70  a CUDA call failed after the device was found (file:line and the CUDA error are printed)
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

// A kernel that does nothing: asks the runtime whether this build has code
// the device can run, and serves as the warm-up launch before any range.
extern "C" __global__ void wl_probe_kernel() {}

namespace wl {

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 69;
constexpr int kExitCudaError = 70;

[[noreturn]] inline void CudaFail(cudaError_t e, const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: CUDA error: %s: %s (%s)\n", file, line, what, cudaGetErrorString(e),
               cudaGetErrorName(e));
  std::exit(kExitCudaError);
}

// The code this build carries; set by workloads/CMakeLists.txt.
#ifndef WL_CUDA_ARCHITECTURES
#define WL_CUDA_ARCHITECTURES "unknown"
#endif

// Exits 69 with "no CUDA device: ..." when there is no usable GPU; prints
// the device it will use otherwise.
inline void RequireCudaDevice(const char* program) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: no CUDA device: %s; this workload needs an NVIDIA GPU\n", program,
                 e != cudaSuccess ? cudaGetErrorString(e) : "the CUDA runtime found 0 devices");
    std::exit(kExitNoDevice);
  }
  cudaDeviceProp prop{};
  e = cudaGetDeviceProperties(&prop, 0);
  if (e == cudaSuccess) e = cudaSetDevice(0);
  cudaFuncAttributes attr{};
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attr, wl_probe_kernel);
  if (e != cudaSuccess) {
    std::fprintf(stderr,
                 "%s: no usable CUDA device: %s; device 0 is %s (sm_%d%d), this build carries code for %s "
                 "(rebuild with -DLLMPO_WORKLOAD_CUDA_ARCHITECTURES=native)\n",
                 program, cudaGetErrorString(e), prop.name, prop.major, prop.minor, WL_CUDA_ARCHITECTURES);
    std::exit(kExitNoDevice);
  }
  std::printf("%s: device 0: %s (sm_%d%d, %d SMs)\n", program, prop.name, prop.major, prop.minor,
              prop.multiProcessorCount);
}

}  // namespace wl

// Checks a CUDA runtime call; on failure prints file:line and exits 70.
#define CUDA_CHECK(call)                                                            \
  do {                                                                              \
    cudaError_t wl_err_ = (call);                                                   \
    if (wl_err_ != cudaSuccess) ::wl::CudaFail(wl_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: reports a bad launch configuration at once.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
