// nvtx_regions: the seeds' manual NVTX region test.
//
// A fixed sequence of small elementwise kernels inside NVTX ranges, so that
// region reports, NVTX filters, kernel include/exclude and ncu range replay
// can be checked against known launch counts. Deterministic: the inputs come
// from fixed seeds and every launch is in a fixed order; the final vectors are
// compared with a CPU reference (exit 1 on a mismatch).
//
// Ranges, in program order (all on the main thread, default stream):
//
//   range                    kind                          kernels (launches per --repeat)
//   (none: warm-up)          outside every range           warmup_kernel x1 (once, before any range)
//   A                        push/pop, default domain      a_scale_kernel x12, a_mix_kernel x12 (exclusive of A::A1)
//   A::A1                    push/pop, pushed inside A     a1_square_kernel x10, a1_clamp_kernel x10
//   B                        push/pop, default domain      b_axpy_kernel x15, b_abs_kernel x15
//   startend                 start/end (nvtxRangeStartA)   se_fill_kernel x4
//   LLM@decode               push/pop in domain "LLM"      decode_step_kernel x4
//
// Inclusive counts: A has 44 launches (24 own + 20 in A::A1), A::A1 20, B 30,
// startend 4, LLM@decode 4; with the warm-up, 83 launches per run at --repeat 1
// (1 + 82 x repeat in general). A runs 6 (a_scale, a_mix) pairs, then A::A1,
// then 6 more pairs. The program name of the range "A::A1" is literal: it is
// a child of A only because it is pushed while A is open.
//
// Synchronisation: the context is warmed (warmup_kernel + cudaDeviceSynchronize)
// before the first range; cudaDeviceSynchronize runs right before each
// top-level range is opened and right after it is closed (outside the range),
// and cudaStreamSynchronize(0) at the edges of A::A1 (inside A). No
// allocation, copy or host-device transfer happens inside a range, so ncu's
// range replay (`--replay-mode range --nvtx-include A/ --nvtx-include B/`) can
// capture A and B.
//
// Flags: --size N (elements per vector, default 1048576), --repeat R (the
// whole ranged sequence R times, default 1). Exit codes: see common/cuda_check.h.
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cuda_check.h"
#include "flags.h"
#include "rng.h"

namespace {

constexpr int kThreads = 256;
// Launches per region and --repeat; the table above and docs/workloads.md.
constexpr int kAPairsBefore = 6, kAPairsAfter = 6, kA1Pairs = 10, kBPairs = 15, kStartEnd = 4, kDecode = 4;

}  // namespace

// The kernels have C names, so profilers show them exactly as written here.
extern "C" __global__ void warmup_kernel(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * 1.0f;
}
extern "C" __global__ void a_scale_kernel(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = fmaf(x[i], 0.5f, 0.25f);
}
extern "C" __global__ void a_mix_kernel(float* y, const float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = fmaf(y[i], 0.75f, 0.25f * x[i]);
  }
}
extern "C" __global__ void a1_square_kernel(float* z, const float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    z[i] = fmaf(y[i], y[i], 0.5f * z[i]);
  }
}
extern "C" __global__ void a1_clamp_kernel(float* z, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    z[i] = fminf(fmaxf(z[i], -1.0f), 1.0f) * 0.875f;
  }
}
extern "C" __global__ void b_axpy_kernel(float* w, const float* z, int n, float a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    w[i] = fmaf(a, z[i], 0.5f * w[i]);
  }
}
extern "C" __global__ void b_abs_kernel(float* w, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) w[i] = fabsf(w[i]) - 0.25f;
}
extern "C" __global__ void se_fill_kernel(float* v, int n, float k) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] = fmaf(v[i], 0.5f, k);
}
extern "C" __global__ void decode_step_kernel(float* u, const float* w, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) u[i] = fmaf(u[i], 0.5f, w[i]);
}

namespace {

// The six vectors the kernels work on, host or device.
enum Vec { kX, kY, kZ, kW, kV, kU, kNumVecs };

// The CPU reference: the same operations in the same order.
void Reference(std::vector<std::vector<float>>& h, int repeat) {
  const size_t n = h[kX].size();
  auto& x = h[kX];
  auto& y = h[kY];
  auto& z = h[kZ];
  auto& w = h[kW];
  auto& v = h[kV];
  auto& u = h[kU];
  auto a_pair = [&] {
    for (size_t i = 0; i < n; ++i) x[i] = std::fma(x[i], 0.5f, 0.25f);
    for (size_t i = 0; i < n; ++i) y[i] = std::fma(y[i], 0.75f, 0.25f * x[i]);
  };
  for (int r = 0; r < repeat; ++r) {
    for (int k = 0; k < kAPairsBefore; ++k) a_pair();
    for (int k = 0; k < kA1Pairs; ++k) {
      for (size_t i = 0; i < n; ++i) z[i] = std::fma(y[i], y[i], 0.5f * z[i]);
      for (size_t i = 0; i < n; ++i) z[i] = std::fmin(std::fmax(z[i], -1.0f), 1.0f) * 0.875f;
    }
    for (int k = 0; k < kAPairsAfter; ++k) a_pair();
    for (int k = 0; k < kBPairs; ++k) {
      for (size_t i = 0; i < n; ++i) w[i] = std::fma(0.5f, z[i], 0.5f * w[i]);
      for (size_t i = 0; i < n; ++i) w[i] = std::fabs(w[i]) - 0.25f;
    }
    for (int k = 0; k < kStartEnd; ++k) {
      for (size_t i = 0; i < n; ++i) v[i] = std::fma(v[i], 0.5f, static_cast<float>(k));
    }
    for (int k = 0; k < kDecode; ++k) {
      for (size_t i = 0; i < n; ++i) u[i] = std::fma(u[i], 0.5f, w[i]);
    }
  }
}

double Millis(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  int size = 1 << 20;
  int repeat = 1;
  wl::Flags flags("nvtx_regions",
                  "NVTX ranges A, A::A1 (inside A), B, startend (start/end), LLM@decode, each "
                  "launching a documented set of kernels (docs/workloads.md).");
  flags.Int("size", &size, 1, 1 << 28, "elements per vector");
  flags.Int("repeat", &repeat, 1, 1000, "times the whole ranged sequence runs");
  flags.Parse(argc, argv);
  wl::RequireCudaDevice("nvtx_regions");

  const int n = size;
  const int grid = std::min((n + kThreads - 1) / kThreads, 1024);
  std::vector<std::vector<float>> host(kNumVecs);
  std::vector<float*> dev(kNumVecs, nullptr);
  for (int v = 0; v < kNumVecs; ++v) {
    host[v] = wl::RandomVector(/*seed=*/100 + v, n, 1.0f);
    CUDA_CHECK(cudaMalloc(&dev[v], sizeof(float) * n));
    CUDA_CHECK(cudaMemcpy(dev[v], host[v].data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  }
  float *x = dev[kX], *y = dev[kY], *z = dev[kZ], *w = dev[kW], *v = dev[kV], *u = dev[kU];
  nvtxDomainHandle_t llm = nvtxDomainCreateA("LLM");
  nvtxEventAttributes_t decode_attr = {};
  decode_attr.version = NVTX_VERSION;
  decode_attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  decode_attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  decode_attr.message.ascii = "decode";

  // Warm the context before any range (range replay needs it).
  warmup_kernel<<<grid, kThreads>>>(x, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());

  double ms[4] = {0, 0, 0, 0};
  for (int r = 0; r < repeat; ++r) {
    auto t = std::chrono::steady_clock::now();
    nvtxRangePushA("A");
    for (int k = 0; k < kAPairsBefore; ++k) {
      a_scale_kernel<<<grid, kThreads>>>(x, n);
      a_mix_kernel<<<grid, kThreads>>>(y, x, n);
    }
    CUDA_CHECK(cudaStreamSynchronize(0));
    nvtxRangePushA("A::A1");
    for (int k = 0; k < kA1Pairs; ++k) {
      a1_square_kernel<<<grid, kThreads>>>(z, y, n);
      a1_clamp_kernel<<<grid, kThreads>>>(z, n);
    }
    CUDA_CHECK(cudaStreamSynchronize(0));
    nvtxRangePop();  // A::A1
    for (int k = 0; k < kAPairsAfter; ++k) {
      a_scale_kernel<<<grid, kThreads>>>(x, n);
      a_mix_kernel<<<grid, kThreads>>>(y, x, n);
    }
    nvtxRangePop();  // A
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    ms[0] += Millis(t);

    t = std::chrono::steady_clock::now();
    nvtxRangePushA("B");
    for (int k = 0; k < kBPairs; ++k) {
      b_axpy_kernel<<<grid, kThreads>>>(w, z, n, 0.5f);
      b_abs_kernel<<<grid, kThreads>>>(w, n);
    }
    nvtxRangePop();  // B
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    ms[1] += Millis(t);

    t = std::chrono::steady_clock::now();
    const nvtxRangeId_t startend = nvtxRangeStartA("startend");
    for (int k = 0; k < kStartEnd; ++k) se_fill_kernel<<<grid, kThreads>>>(v, n, static_cast<float>(k));
    nvtxRangeEnd(startend);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    ms[2] += Millis(t);

    t = std::chrono::steady_clock::now();
    nvtxDomainRangePushEx(llm, &decode_attr);
    for (int k = 0; k < kDecode; ++k) decode_step_kernel<<<grid, kThreads>>>(u, w, n);
    nvtxDomainRangePop(llm);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    ms[3] += Millis(t);
  }

  std::printf("nvtx_regions: %d elements, repeat %d, %d kernel launches (1 warm-up + 82 per repeat)\n", n, repeat,
              1 + 82 * repeat);
  std::printf("  A          %8.3f ms  a_scale_kernel x%d, a_mix_kernel x%d (+ A::A1)\n", ms[0],
              (kAPairsBefore + kAPairsAfter) * repeat, (kAPairsBefore + kAPairsAfter) * repeat);
  std::printf("  A::A1      (in A)       a1_square_kernel x%d, a1_clamp_kernel x%d\n", kA1Pairs * repeat,
              kA1Pairs * repeat);
  std::printf("  B          %8.3f ms  b_axpy_kernel x%d, b_abs_kernel x%d\n", ms[1], kBPairs * repeat,
              kBPairs * repeat);
  std::printf("  startend   %8.3f ms  se_fill_kernel x%d\n", ms[2], kStartEnd * repeat);
  std::printf("  LLM@decode %8.3f ms  decode_step_kernel x%d\n", ms[3], kDecode * repeat);

  // Check every element of every vector against the CPU.
  Reference(host, repeat);
  const char* names = "xyzwvu";
  int bad = 0;
  double worst = 0;
  std::vector<float> got(n);
  for (int k = 0; k < kNumVecs; ++k) {
    CUDA_CHECK(cudaMemcpy(got.data(), dev[k], sizeof(float) * n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      const double diff = std::fabs(static_cast<double>(got[i]) - host[k][i]);
      worst = std::max(worst, diff);
      if (!(diff <= 1e-5 * (1.0 + std::fabs(host[k][i])))) {
        if (bad++ < 5) std::fprintf(stderr, "mismatch %c[%d]: gpu %.8g, cpu %.8g\n", names[k], i, got[i], host[k][i]);
      }
    }
    CUDA_CHECK(cudaFree(dev[k]));
  }
  if (bad > 0) {
    std::fprintf(stderr, "nvtx_regions: check FAILED: %d of %d values differ from the CPU reference\n", bad,
                 n * kNumVecs);
    return wl::kExitMismatch;
  }
  std::printf("check: ok (%d values match the CPU reference, max abs diff %.3g)\n", n * kNumVecs, worst);
  return wl::kExitOk;
}
