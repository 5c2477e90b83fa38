// A CPU stand-in for the parts of the CUDA runtime the bundled workloads use,
// so their kernels and self-checks can run on a machine without a GPU
// (workloads/emu/emulate.py; docs/workloads.md). Not a general emulator: a
// launch runs its blocks one after another on the calling thread; each CUDA
// thread of a block is a ucontext fiber, and __syncthreads() switches to the
// next fiber, so a round over the block's fibers is one barrier (a kernel
// whose first block meets no barrier runs the rest as plain calls). "Device"
// memory is host memory. Warp intrinsics, atomics and streams are not modelled.
#pragma once

#include <setjmp.h>
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace emu {
inline uint3 g_thread{0, 0, 0}, g_block{0, 0, 0};
inline dim3 g_block_dim, g_grid_dim;
inline std::vector<char> g_dynamic_smem;

struct Fibers {
  static constexpr size_t kStack = 64 * 1024;
  static constexpr unsigned kMaxThreads = 1024;
  ucontext_t ctx[kMaxThreads];  // never moved: a ucontext_t points into itself
  jmp_buf scheduler_jb;         // switches use _setjmp/_longjmp (no signal-mask syscall);
  jmp_buf jb[kMaxThreads];      // ucontext only starts a fiber on its own stack
  bool started[kMaxThreads];
  std::vector<char> stacks;
  std::vector<char> done;
  std::vector<uint3> index;
  std::function<void()> body;
  unsigned current = 0;
  size_t initialised = 0;  // fiber slots that have been through getcontext
  bool direct = false;     // the launch runs threads as plain calls (no __syncthreads seen)
  int syncs = 0;           // __syncthreads calls since the launch began
};
inline Fibers g_fibers;

[[noreturn]] inline void FiberEntry() {
  g_fibers.body();
  g_fibers.done[g_fibers.current] = 1;
  _longjmp(g_fibers.scheduler_jb, 1);
}

// Runs fiber t until it meets a barrier or ends.
__attribute__((noinline)) inline void Resume(unsigned t) {
  Fibers& f = g_fibers;
  if (_setjmp(f.scheduler_jb) == 0) {
    if (f.started[t]) _longjmp(f.jb[t], 1);
    f.started[t] = true;
    setcontext(&f.ctx[t]);
  }
}

template <typename T>
T* DynamicShared() {
  return reinterpret_cast<T*>(g_dynamic_smem.data());
}

template <typename... P, typename... A>
void Launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, A... args) {
  Fibers& f = g_fibers;
  g_grid_dim = grid;
  g_block_dim = block;
  g_dynamic_smem.assign(smem > 0 ? smem : 1, 0);
  const unsigned threads = block.x * block.y * block.z;
  if (threads == 0 || threads > Fibers::kMaxThreads) {
    std::fprintf(stderr, "emu: bad block size %u\n", threads);
    std::exit(70);
  }
  f.done.assign(threads, 0);
  f.index.resize(threads);
  if (f.stacks.size() < threads * Fibers::kStack) f.stacks.resize(threads * Fibers::kStack);
  for (; f.initialised < threads; ++f.initialised) getcontext(&f.ctx[f.initialised]);
  f.body = [=] { kernel(args...); };
  for (unsigned t = 0; t < threads; ++t) f.index[t] = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
  f.direct = false;
  f.syncs = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        g_block = {bx, by, bz};
        if (f.direct) {  // no barrier: each thread is a plain call
          for (unsigned t = 0; t < threads; ++t) {
            g_thread = f.index[t];
            kernel(args...);
          }
          continue;
        }
        for (unsigned t = 0; t < threads; ++t) {
          f.ctx[t].uc_stack.ss_sp = f.stacks.data() + t * Fibers::kStack;
          f.ctx[t].uc_stack.ss_size = Fibers::kStack;
          f.ctx[t].uc_link = nullptr;
          makecontext(&f.ctx[t], FiberEntry, 0);
          f.done[t] = 0;
          f.started[t] = false;
        }
        for (unsigned left = threads; left > 0;) {  // one round = one barrier
          left = 0;
          for (unsigned t = 0; t < threads; ++t) {
            if (f.done[t]) continue;
            f.current = t;
            g_thread = f.index[t];
            Resume(t);
            if (!f.done[t]) ++left;
          }
        }
        // A kernel whose whole first block never met a barrier runs the
        // rest of the grid as plain calls; a barrier there is an error.
        if (f.syncs == 0) f.direct = true;
      }
    }
  }
}
}  // namespace emu

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define threadIdx (::emu::g_thread)
#define blockIdx (::emu::g_block)
#define blockDim (::emu::g_block_dim)
#define gridDim (::emu::g_grid_dim)

inline void __syncthreads() {
  emu::Fibers& f = emu::g_fibers;
  if (f.direct) {
    std::fprintf(stderr, "emu: __syncthreads() in a block after a first block that had none\n");
    std::exit(70);
  }
  ++f.syncs;
  if (_setjmp(f.jb[f.current]) == 0) _longjmp(f.scheduler_jb, 1);
}
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
using std::max;
using std::min;

enum cudaError_t { cudaSuccess = 0, cudaErrorNoDevice = 100, cudaErrorNotSupported = 801 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
using cudaStream_t = void*;
struct cudaDeviceProp {
  char name[256];
  int major, minor, multiProcessorCount;
};
struct cudaFuncAttributes {
  int numRegs;
};

inline const char* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "emulated error"; }
inline const char* cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmulated"; }
inline cudaError_t cudaGetDeviceCount(int* n) {
  if (const char* v = std::getenv("EMU_NO_DEVICE"); v != nullptr && *v != '\0') return cudaErrorNoDevice;
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::strcpy(p->name, "CPU emulation");
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
template <typename F>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F) {
  a->numRegs = 0;
  return cudaSuccess;
}
template <typename T>
cudaError_t cudaMalloc(T** p, size_t bytes) {
  *p = static_cast<T*>(std::calloc(bytes > 0 ? bytes : 1, 1));  // exact size, so ASan sees overruns
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  std::memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* dst, int v, size_t bytes) {
  std::memset(dst, v, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
// Streams are the one emulated stream; CUDA graphs are not emulated (kernels
// run when launched, so nothing could be captured): a capture fails, and
// tiny_llm --cuda-graphs stops with CUDA_CHECK's message.
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed };
using cudaGraph_t = void*;
using cudaGraphExec_t = void*;
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamBeginCapture(cudaStream_t, cudaStreamCaptureMode) { return cudaErrorNotSupported; }
inline cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t*) { return cudaErrorNotSupported; }
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t*, cudaGraph_t, unsigned long long) {
  return cudaErrorNotSupported;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t) { return cudaErrorNotSupported; }
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t) { return cudaErrorNotSupported; }
