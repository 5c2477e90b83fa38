// tiny_llm: a small decoder-only transformer in plain CUDA (fp32), with a KV
// cache: prefill of --prompt tokens, then --decode greedy decode steps.
//
// Model: token embedding + learned positions; per layer: RMSNorm, QKV
// projection, causal multi-head attention over the KV cache, output
// projection (+ residual); RMSNorm, up projection + GELU, down projection
// (+ residual); final RMSNorm, LM head (its own weights) for the last
// position, argmax. Weights and the prompt come from fixed seeds.
//
// NVTX ranges, all in the domain "LLM" (filters: LLM@prefill/, LLM@decode_all/,
// LLM@step_3/, LLM@layer_0/, ...):
//
//   prefill                      the prompt's forward pass and the first token
//     layer_<l>                  one per layer, l = 0 .. layers-1
//       attention                rmsnorm_kernel, matmul_tiled_kernel (QKV), kv_append_kernel,
//                                attention_kernel, matmul_tiled_kernel (output projection, + residual)
//       mlp                      rmsnorm_kernel, matmul_tiled_kernel (up, GELU), matmul_tiled_kernel (down, + residual)
//   decode_all                   every decode step
//     step_<i>                   one per decode step, i = 0 .. decode-1
//   capture                      with --cuda-graphs: each decode step captured as a
//                                CUDA graph (before prefill), launched in step_<i>
//       layer_<l>
//         attention              as above with gemv_kernel in place of matmul_tiled_kernel
//         mlp                    as above with gemv_kernel
//
// Outside the layers, each forward pass (prefill or step) launches
// embed_kernel first and rmsnorm_kernel, lm_head_kernel and argmax_kernel
// last, inside prefill / step_<i>. Launches per forward pass: 8 * layers + 4.
// Before any range: one warm-up launch (wl_probe_kernel) and a synchronisation.
// The host synchronises after prefill and after each step (outside the step
// range), to time them; nothing is allocated or copied inside a range.
//
// Output: time to first token (prefill + first token), prefill tokens/s, mean
// per-token decode latency, decode tokens/s, the generated tokens.
//
// Checks. Every run (--no-check skips it): layer 0 is recomputed on the CPU
// at every position, with the tokens the GPU generated, and compared through
// the KV caches of layers 0 and 1 (with one layer: the final hidden states);
// the argmax of every step's logits and 16 logits per step are recomputed.
// --check runs the small check config (2 layers, d_model 64, 4 heads, vocab
// 256, d_ff 256, prompt 8, decode 4; size flags are ignored) and compares
// every step's logits and the generated tokens with a full CPU forward.
// Exit 1 on a mismatch; the other exit codes: common/cuda_check.h.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "flags.h"
#include "nvtx_scope.h"
#include "rng.h"

namespace {

struct Config {
  int layers = 8, d_model = 512, heads = 8, vocab = 8192, d_ff = 2048, prompt = 32, decode = 16;
  int head_dim() const { return d_model / heads; }
  int max_seq() const { return prompt + decode; }
};

constexpr Config kCheckConfig = {2, 64, 4, 256, 256, 8, 4};
constexpr int kTile = 16;             // matmul_tiled_kernel: 16x16 output tile per block
constexpr int kGemvThreads = 256;     // gemv_kernel block (and its shared chunk of x)
constexpr int kNormThreads = 256;     // rmsnorm_kernel block
constexpr int kAttnThreads = 128;     // attention_kernel block
constexpr int kHeadThreads = 128;     // lm_head_kernel block (one block per vocabulary row)
constexpr int kArgmaxThreads = 1024;  // argmax_kernel: one block
constexpr int kThreads = 256;         // elementwise kernels
enum Epilogue { kStore = 0, kGelu = 1, kAddTo = 2 };

__host__ __device__ inline float Gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

}  // namespace

// The kernels have C names, so profilers show them exactly as written here.
// x[t][d] = emb[seq[pos0 + t]][d] + pos[pos0 + t][d]
extern "C" __global__ void embed_kernel(float* x, const int* seq, int pos0, int tokens, const float* emb,
                                        const float* pos, int d_model) {
  const int n = tokens * d_model;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int t = i / d_model, d = i % d_model;
    x[i] =
        emb[static_cast<long long>(seq[pos0 + t]) * d_model + d] + pos[static_cast<long long>(pos0 + t) * d_model + d];
  }
}

// One block per row: out = in / rms(in) * gamma.
extern "C" __global__ void rmsnorm_kernel(float* out, const float* in, const float* gamma, int d_model) {
  __shared__ float partial[kNormThreads];
  const float* row = in + static_cast<long long>(blockIdx.x) * d_model;
  float* dst = out + static_cast<long long>(blockIdx.x) * d_model;
  float ss = 0.0f;
  for (int d = threadIdx.x; d < d_model; d += blockDim.x) ss = fmaf(row[d], row[d], ss);
  partial[threadIdx.x] = ss;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / static_cast<float>(d_model) + 1e-5f);
  for (int d = threadIdx.x; d < d_model; d += blockDim.x) dst[d] = row[d] * inv * gamma[d];
}

__device__ inline void StoreOut(float* c, float acc, int epilogue) {
  if (epilogue == kGelu) {
    *c = Gelu(acc);
  } else if (epilogue == kAddTo) {
    *c += acc;
  } else {
    *c = acc;
  }
}

// c[m][n] (epilogue)= a[m][k] . b[k][n], row-major, 16x16 shared-memory tiles.
// Accumulates k in order 0..k-1, like gemv_kernel, so prefill and decode
// compute bit-identical rows.
extern "C" __global__ void matmul_tiled_kernel(float* c, const float* a, const float* b, int m, int n, int k,
                                               int epilogue) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[static_cast<long long>(row) * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[static_cast<long long>(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
    const int lim = min(kTile, k - k0);
    for (int kk = 0; kk < lim; ++kk) acc = fmaf(as[ty][kk], bs[kk][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) StoreOut(c + static_cast<long long>(row) * n + col, acc, epilogue);
}

// y[n] (epilogue)= x[k] . w[k][n]: one thread per output column; x staged in
// shared memory in chunks of kGemvThreads.
extern "C" __global__ void gemv_kernel(float* y, const float* x, const float* w, int k, int n, int epilogue) {
  __shared__ float xs[kGemvThreads];
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kGemvThreads) {
    xs[threadIdx.x] = k0 + static_cast<int>(threadIdx.x) < k ? x[k0 + threadIdx.x] : 0.0f;
    __syncthreads();
    const int lim = min(kGemvThreads, k - k0);
    if (col < n) {
      for (int j = 0; j < lim; ++j) acc = fmaf(xs[j], w[static_cast<long long>(k0 + j) * n + col], acc);
    }
    __syncthreads();
  }
  if (col < n) StoreOut(y + col, acc, epilogue);
}

// Copies K and V of `tokens` new positions (from qkv rows [q | k | v]) into the cache.
extern "C" __global__ void kv_append_kernel(float* k_cache, float* v_cache, const float* qkv, int pos0, int tokens,
                                            int d_model) {
  const int n = tokens * d_model;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int t = i / d_model, d = i % d_model;
    const long long dst = static_cast<long long>(pos0 + t) * d_model + d;
    k_cache[dst] = qkv[static_cast<long long>(t) * 3 * d_model + d_model + d];
    v_cache[dst] = qkv[static_cast<long long>(t) * 3 * d_model + 2 * d_model + d];
  }
}

// Block (t, h): causal attention of query row t (position pos0 + t), head h,
// over cached positions 0 .. pos0 + t. Dynamic shared memory: one score per
// key, then kAttnThreads floats for the reductions.
extern "C" __global__ void attention_kernel(float* out, const float* qkv, const float* k_cache, const float* v_cache,
                                            int pos0, int d_model, int head_dim, float scale) {
  extern __shared__ float smem[];
  const int t = blockIdx.x, h = blockIdx.y, tid = threadIdx.x;
  const int keys = pos0 + t + 1;
  float* scores = smem;
  float* red = smem + keys;
  const float* q = qkv + static_cast<long long>(t) * 3 * d_model + h * head_dim;
  for (int j = tid; j < keys; j += blockDim.x) {
    const float* kr = k_cache + static_cast<long long>(j) * d_model + h * head_dim;
    float s = 0.0f;
    for (int d = 0; d < head_dim; ++d) s = fmaf(q[d], kr[d], s);
    scores[j] = s * scale;
  }
  __syncthreads();
  float m = -INFINITY;
  for (int j = tid; j < keys; j += blockDim.x) m = fmaxf(m, scores[j]);
  red[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = tid; j < keys; j += blockDim.x) {
    const float e = expf(scores[j] - m);
    scores[j] = e;
    sum += e;
  }
  red[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) red[tid] += red[tid + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int d = tid; d < head_dim; d += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < keys; ++j)
      acc = fmaf(scores[j], v_cache[static_cast<long long>(j) * d_model + h * head_dim + d], acc);
    out[static_cast<long long>(t) * d_model + h * head_dim + d] = acc * inv;
  }
}

// One block per vocabulary row v: logits[v] = x . head[v].
extern "C" __global__ void lm_head_kernel(float* logits, const float* x, const float* head, int d_model) {
  __shared__ float partial[kHeadThreads];
  const float* row = head + static_cast<long long>(blockIdx.x) * d_model;
  float acc = 0.0f;
  for (int d = threadIdx.x; d < d_model; d += blockDim.x) acc = fmaf(x[d], row[d], acc);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) logits[blockIdx.x] = partial[0];
}

// One block: seq[out_pos] = the index of the largest logit (lowest index on ties).
extern "C" __global__ void argmax_kernel(int* seq, int out_pos, const float* logits, int vocab) {
  __shared__ float best[kArgmaxThreads];
  __shared__ int index[kArgmaxThreads];
  const int tid = threadIdx.x;
  float b = -INFINITY;
  int bi = vocab;
  for (int j = tid; j < vocab; j += blockDim.x) {
    if (logits[j] > b || bi == vocab) {
      b = logits[j];
      bi = j;
    }
  }
  best[tid] = b;
  index[tid] = bi;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      const float ob = best[tid + s];
      const int oi = index[tid + s];
      if (oi < vocab && (index[tid] == vocab || ob > best[tid] || (ob == best[tid] && oi < index[tid]))) {
        best[tid] = ob;
        index[tid] = oi;
      }
    }
    __syncthreads();
  }
  if (tid == 0) seq[out_pos] = index[0];
}

namespace {

// ---- Weights (host copies; the CPU reference reads them too). ----
struct Layer {
  std::vector<float> norm1, wqkv, wo, norm2, w1, w2;
};
struct Weights {
  std::vector<float> emb, pos, norm_f, head;  // head: vocab x d_model
  std::vector<Layer> layers;
};

Weights MakeWeights(const Config& c) {
  const size_t d = c.d_model, f = c.d_ff;
  Weights w;
  w.emb = wl::RandomVector(1, static_cast<size_t>(c.vocab) * d, 1.0f);
  w.pos = wl::RandomVector(2, static_cast<size_t>(c.max_seq()) * d, 0.1f);
  w.norm_f = wl::RandomVector(3, d, 0.1f, 1.0f);
  w.head = wl::RandomVector(4, static_cast<size_t>(c.vocab) * d, 1.0f);
  for (int l = 0; l < c.layers; ++l) {
    const uint64_t s = 100 + 10 * static_cast<uint64_t>(l);
    Layer L;
    L.norm1 = wl::RandomVector(s + 0, d, 0.1f, 1.0f);
    L.wqkv = wl::RandomVector(s + 1, d * 3 * d, std::sqrt(3.0f / d));
    L.wo = wl::RandomVector(s + 2, d * d, std::sqrt(3.0f / d));
    L.norm2 = wl::RandomVector(s + 3, d, 0.1f, 1.0f);
    L.w1 = wl::RandomVector(s + 4, d * f, std::sqrt(3.0f / d));
    L.w2 = wl::RandomVector(s + 5, f * d, std::sqrt(3.0f / f));
    w.layers.push_back(std::move(L));
  }
  return w;
}

std::vector<int> MakePrompt(const Config& c) {
  std::vector<int> p(c.prompt);
  for (int i = 0; i < c.prompt; ++i) p[i] = static_cast<int>(wl::Hash(5, i) % static_cast<uint64_t>(c.vocab));
  return p;
}

template <typename T>
T* Upload(const std::vector<T>& v) {
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, sizeof(T) * v.size()));
  CUDA_CHECK(cudaMemcpy(d, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice));
  return d;
}

float* Zeros(size_t n) {
  float* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, sizeof(float) * n));
  CUDA_CHECK(cudaMemset(d, 0, sizeof(float) * n));
  return d;
}

// ---- The GPU model. ----
class GpuModel {
 public:
  GpuModel(const Config& c, const Weights& w, const std::vector<int>& prompt) : c_(c) {
    const size_t d = c.d_model, t = c.prompt, seq = c.max_seq();
    emb_ = Upload(w.emb);
    pos_ = Upload(w.pos);
    norm_f_ = Upload(w.norm_f);
    head_ = Upload(w.head);
    for (const Layer& l : w.layers) {
      layers_.push_back({Upload(l.norm1), Upload(l.wqkv), Upload(l.wo), Upload(l.norm2), Upload(l.w1), Upload(l.w2)});
    }
    std::vector<int> tokens(seq + 1, 0);
    std::copy(prompt.begin(), prompt.end(), tokens.begin());
    seq_ = Upload(tokens);
    x_ = Zeros(t * d);
    xn_ = Zeros(t * d);
    qkv_ = Zeros(t * 3 * d);
    att_ = Zeros(t * d);
    h_ = Zeros(t * c.d_ff);
    k_cache_ = Zeros(c.layers * seq * d);
    v_cache_ = Zeros(c.layers * seq * d);
    hidden_ = Zeros((c.decode + 1) * d);
    logits_ = Zeros(static_cast<size_t>(c.decode + 1) * c.vocab);
    domain_ = nvtxDomainCreateA("LLM");
    for (int l = 0; l < c.layers; ++l) layer_names_.push_back("layer_" + std::to_string(l));
    for (int i = 0; i < c.decode; ++i) step_names_.push_back("step_" + std::to_string(i));
  }

  // Loads every kernel now (CUDA loads modules lazily), so the first range
  // does not pay for it.
  static void Preload() {
    cudaFuncAttributes a;
    CUDA_CHECK(cudaFuncGetAttributes(&a, embed_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, rmsnorm_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, matmul_tiled_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, gemv_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, kv_append_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, attention_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, lm_head_kernel));
    CUDA_CHECK(cudaFuncGetAttributes(&a, argmax_kernel));
  }

  void Prefill() {
    wl::DomainRange r(domain_, "prefill");
    Forward(0, c_.prompt, 0);
  }
  void DecodeStep(int i) {
    wl::DomainRange r(domain_, step_names_[i].c_str());
    if (graphs_.empty()) {
      Forward(c_.prompt + i, 1, i + 1);
    } else {
      CUDA_CHECK(cudaGraphLaunch(graphs_[i], stream_));
    }
  }
  // --cuda-graphs: every decode step captured now, on a stream of its own,
  // as one CUDA graph each (positions and slots are baked into the kernels'
  // arguments), then launched by DecodeStep. The capture runs inside the
  // range "capture"; the graphs' kernels run inside step_<i>, where they are
  // launched.
  void CaptureDecode() {
    CUDA_CHECK(cudaStreamCreate(&stream_));
    wl::DomainRange r(domain_, "capture");
    for (int i = 0; i < c_.decode; ++i) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      Forward(c_.prompt + i, 1, i + 1);
      CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
      CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      CUDA_CHECK(cudaGraphDestroy(graph));
      graphs_.push_back(exec);
    }
  }
  cudaStream_t stream() const { return stream_; }
  nvtxDomainHandle_t domain() const { return domain_; }

  std::vector<int> Tokens() const { return Download(seq_, c_.max_seq() + 1); }
  std::vector<float> Logits() const { return Download(logits_, static_cast<size_t>(c_.decode + 1) * c_.vocab); }
  std::vector<float> Hidden() const { return Download(hidden_, static_cast<size_t>(c_.decode + 1) * c_.d_model); }
  // The K and V caches, layers x max_seq x d_model each.
  std::vector<float> KCache() const { return Download(k_cache_, CacheSize()); }
  std::vector<float> VCache() const { return Download(v_cache_, CacheSize()); }

 private:
  struct DevLayer {
    float *norm1, *wqkv, *wo, *norm2, *w1, *w2;
  };

  template <typename T>
  static std::vector<T> Download(const T* d, size_t n) {
    std::vector<T> v(n);
    CUDA_CHECK(cudaMemcpy(v.data(), d, sizeof(T) * n, cudaMemcpyDeviceToHost));
    return v;
  }

  size_t CacheSize() const { return static_cast<size_t>(c_.layers) * c_.max_seq() * c_.d_model; }

  static int Grid(long long n) { return static_cast<int>(std::min<long long>((n + kThreads - 1) / kThreads, 4096)); }

  // out[tokens][n] (epilogue)= in[tokens][k] . w[k][n]
  void Project(float* out, const float* in, const float* w, int tokens, int k, int n, Epilogue e) {
    if (tokens == 1) {
      gemv_kernel<<<(n + kGemvThreads - 1) / kGemvThreads, kGemvThreads, 0, stream_>>>(out, in, w, k, n, e);
    } else {
      const dim3 grid((n + kTile - 1) / kTile, (tokens + kTile - 1) / kTile);
      matmul_tiled_kernel<<<grid, dim3(kTile, kTile), 0, stream_>>>(out, in, w, tokens, n, k, e);
    }
  }

  // Runs `tokens` tokens at positions pos0.. through the model; writes the
  // last position's normed hidden state and logits to slot `slot` and the
  // argmax token to seq[pos0 + tokens].
  void Forward(int pos0, int tokens, int slot) {
    const int d = c_.d_model, hd = c_.head_dim();
    const long long seq = c_.max_seq();
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const size_t attn_smem = sizeof(float) * (seq + kAttnThreads);
    embed_kernel<<<Grid(static_cast<long long>(tokens) * d), kThreads, 0, stream_>>>(x_, seq_, pos0, tokens, emb_, pos_, d);
    for (int l = 0; l < c_.layers; ++l) {
      const DevLayer& L = layers_[l];
      float* kc = k_cache_ + l * seq * d;
      float* vc = v_cache_ + l * seq * d;
      wl::DomainRange layer(domain_, layer_names_[l].c_str());
      {
        wl::DomainRange attention(domain_, "attention");
        rmsnorm_kernel<<<tokens, kNormThreads, 0, stream_>>>(xn_, x_, L.norm1, d);
        Project(qkv_, xn_, L.wqkv, tokens, d, 3 * d, kStore);
        kv_append_kernel<<<Grid(static_cast<long long>(tokens) * d), kThreads, 0, stream_>>>(kc, vc, qkv_, pos0, tokens, d);
        attention_kernel<<<dim3(tokens, c_.heads), kAttnThreads, attn_smem, stream_>>>(att_, qkv_, kc, vc, pos0, d, hd, scale);
        Project(x_, att_, L.wo, tokens, d, d, kAddTo);
      }
      {
        wl::DomainRange mlp(domain_, "mlp");
        rmsnorm_kernel<<<tokens, kNormThreads, 0, stream_>>>(xn_, x_, L.norm2, d);
        Project(h_, xn_, L.w1, tokens, d, c_.d_ff, kGelu);
        Project(x_, h_, L.w2, tokens, c_.d_ff, d, kAddTo);
      }
    }
    float* hidden = hidden_ + static_cast<long long>(slot) * d;
    float* logits = logits_ + static_cast<long long>(slot) * c_.vocab;
    rmsnorm_kernel<<<1, kNormThreads, 0, stream_>>>(hidden, x_ + static_cast<long long>(tokens - 1) * d, norm_f_, d);
    lm_head_kernel<<<c_.vocab, kHeadThreads, 0, stream_>>>(logits, hidden, head_, d);
    argmax_kernel<<<1, kArgmaxThreads, 0, stream_>>>(seq_, pos0 + tokens, logits, c_.vocab);
  }

  Config c_;
  float *emb_, *pos_, *norm_f_, *head_;
  std::vector<DevLayer> layers_;
  int* seq_;
  float *x_, *xn_, *qkv_, *att_, *h_, *k_cache_, *v_cache_, *hidden_, *logits_;
  nvtxDomainHandle_t domain_;
  std::vector<std::string> layer_names_, step_names_;
  cudaStream_t stream_ = 0;               // the legacy default stream unless --cuda-graphs
  std::vector<cudaGraphExec_t> graphs_;  // one per decode step with --cuda-graphs
};

// ---- The CPU reference: the same model, the same order of operations. ----
void CpuRmsNorm(float* out, const float* in, const float* gamma, int d) {
  double ss = 0.0;
  for (int i = 0; i < d; ++i) ss += static_cast<double>(in[i]) * in[i];
  const float inv = static_cast<float>(1.0 / std::sqrt(ss / d + 1e-5));
  for (int i = 0; i < d; ++i) out[i] = in[i] * inv * gamma[i];
}

// out[n] (epilogue)= in[k] . w[k][n], accumulating k in order, like the GPU.
void CpuProject(float* out, const float* in, const float* w, int k, int n, Epilogue e) {
  for (int col = 0; col < n; ++col) {
    float acc = 0.0f;
    for (int j = 0; j < k; ++j) acc = std::fma(in[j], w[static_cast<size_t>(j) * n + col], acc);
    out[col] = e == kGelu ? Gelu(acc) : e == kAddTo ? out[col] + acc : acc;
  }
}

int ArgMax(const float* v, int n) { return static_cast<int>(std::max_element(v, v + n) - v); }

class CpuModel {
 public:
  // Runs the first `layers` layers (all by default).
  CpuModel(const Config& c, const Weights& w, int layers = -1)
      : c_(c),
        w_(w),
        layers_(layers < 0 ? c.layers : layers),
        k_(layers_ * static_cast<size_t>(c.max_seq()) * c.d_model),
        v_(layers_ * static_cast<size_t>(c.max_seq()) * c.d_model) {}

  // One token at position pos (call in position order): the residual stream
  // after the model's layers (or the first `layers`).
  std::vector<float> Layers(int token, int pos) {
    const int d = c_.d_model, hd = c_.head_dim(), f = c_.d_ff;
    const size_t seq = c_.max_seq();
    std::vector<float> x(d), xn(d), qkv(3 * d), att(d), h(f), scores(pos + 1);
    for (int i = 0; i < d; ++i)
      x[i] = w_.emb[static_cast<size_t>(token) * d + i] + w_.pos[static_cast<size_t>(pos) * d + i];
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    for (int l = 0; l < layers_; ++l) {
      const Layer& L = w_.layers[l];
      float* kc = k_.data() + l * seq * d;
      float* vc = v_.data() + l * seq * d;
      CpuRmsNorm(xn.data(), x.data(), L.norm1.data(), d);
      CpuProject(qkv.data(), xn.data(), L.wqkv.data(), d, 3 * d, kStore);
      std::copy(qkv.begin() + d, qkv.begin() + 2 * d, kc + static_cast<size_t>(pos) * d);
      std::copy(qkv.begin() + 2 * d, qkv.end(), vc + static_cast<size_t>(pos) * d);
      for (int hh = 0; hh < c_.heads; ++hh) {
        const float* q = qkv.data() + hh * hd;
        float m = -INFINITY;
        for (int j = 0; j <= pos; ++j) {
          float s = 0.0f;
          for (int i = 0; i < hd; ++i) s = std::fma(q[i], kc[static_cast<size_t>(j) * d + hh * hd + i], s);
          scores[j] = s * scale;
          m = std::max(m, scores[j]);
        }
        double sum = 0.0;
        for (int j = 0; j <= pos; ++j) {
          scores[j] = std::exp(scores[j] - m);
          sum += scores[j];
        }
        const float inv = static_cast<float>(1.0 / sum);
        for (int i = 0; i < hd; ++i) {
          float acc = 0.0f;
          for (int j = 0; j <= pos; ++j) acc = std::fma(scores[j], vc[static_cast<size_t>(j) * d + hh * hd + i], acc);
          att[hh * hd + i] = acc * inv;
        }
      }
      CpuProject(x.data(), att.data(), L.wo.data(), d, d, kAddTo);
      CpuRmsNorm(xn.data(), x.data(), L.norm2.data(), d);
      CpuProject(h.data(), xn.data(), L.w1.data(), d, f, kGelu);
      CpuProject(x.data(), h.data(), L.w2.data(), f, d, kAddTo);
    }
    return x;
  }

  // The final norm of a residual stream (the hidden state the LM head reads).
  std::vector<float> FinalNorm(const std::vector<float>& x) const {
    std::vector<float> xn(c_.d_model);
    CpuRmsNorm(xn.data(), x.data(), w_.norm_f.data(), c_.d_model);
    return xn;
  }

  std::vector<float> Logits(const std::vector<float>& x) const {
    const int d = c_.d_model;
    const std::vector<float> xn = FinalNorm(x);
    std::vector<float> logits(c_.vocab);
    for (int v = 0; v < c_.vocab; ++v) {
      double acc = 0.0;
      for (int i = 0; i < d; ++i) acc += static_cast<double>(xn[i]) * w_.head[static_cast<size_t>(v) * d + i];
      logits[v] = static_cast<float>(acc);
    }
    return logits;
  }

  // Cached K or V of layer l at position pos.
  const float* K(int l, int pos) const {
    return k_.data() + (static_cast<size_t>(l) * c_.max_seq() + pos) * c_.d_model;
  }
  const float* V(int l, int pos) const {
    return v_.data() + (static_cast<size_t>(l) * c_.max_seq() + pos) * c_.d_model;
  }

 private:
  Config c_;
  const Weights& w_;
  int layers_;
  std::vector<float> k_, v_;
};

bool Close(float gpu, float cpu, double atol, double rtol) {
  return std::fabs(static_cast<double>(gpu) - cpu) <= atol + rtol * std::fabs(static_cast<double>(cpu));
}

// Counts and reports mismatches, at most a few lines.
struct Mismatches {
  int count = 0;
  double worst = 0.0;
  void Compare(const char* what, int i, int j, float gpu, float cpu, double atol, double rtol) {
    worst = std::max(worst, std::fabs(static_cast<double>(gpu) - cpu));
    if (Close(gpu, cpu, atol, rtol)) return;
    if (count++ < 8) std::fprintf(stderr, "mismatch %s[%d][%d]: gpu %.6g, cpu %.6g\n", what, i, j, gpu, cpu);
  }
};

// The cheap check of every run: layer 0 on the CPU at every position (with
// the tokens the GPU generated), then layer 1's K/V cache (or, with one
// layer, the final hidden states) against the GPU's; the argmax of every
// slot's logits; 16 logits per slot from the GPU's hidden state.
void CheapCheck(const Config& c, const Weights& w, GpuModel& gpu, Mismatches& bad) {
  const int d = c.d_model;
  const std::vector<int> tokens = gpu.Tokens();
  const std::vector<float> kc = gpu.KCache(), vc = gpu.VCache(), logits = gpu.Logits(), hidden = gpu.Hidden();
  const size_t layer_stride = static_cast<size_t>(c.max_seq()) * d;
  CpuModel cpu(c, w, /*layers=*/1);
  std::vector<float> xn(d), qkv(3 * d);
  for (int p = 0; p < c.max_seq(); ++p) {
    const std::vector<float> x = cpu.Layers(tokens[p], p);
    for (int i = 0; i < d; ++i) {
      bad.Compare("k_cache[0]", p, i, kc[static_cast<size_t>(p) * d + i], cpu.K(0, p)[i], 1e-4, 1e-4);
      bad.Compare("v_cache[0]", p, i, vc[static_cast<size_t>(p) * d + i], cpu.V(0, p)[i], 1e-4, 1e-4);
    }
    if (c.layers >= 2) {
      const Layer& L1 = w.layers[1];
      CpuRmsNorm(xn.data(), x.data(), L1.norm1.data(), d);
      CpuProject(qkv.data(), xn.data(), L1.wqkv.data(), d, 3 * d, kStore);
      for (int i = 0; i < d; ++i) {
        bad.Compare("k_cache[1]", p, i, kc[layer_stride + static_cast<size_t>(p) * d + i], qkv[d + i], 1e-3, 1e-3);
        bad.Compare("v_cache[1]", p, i, vc[layer_stride + static_cast<size_t>(p) * d + i], qkv[2 * d + i], 1e-3, 1e-3);
      }
    } else if (p >= c.prompt - 1) {
      const int slot = p - (c.prompt - 1);
      const std::vector<float> ref = cpu.FinalNorm(x);
      for (int i = 0; i < d; ++i)
        bad.Compare("hidden", slot, i, hidden[static_cast<size_t>(slot) * d + i], ref[i], 1e-3, 1e-3);
    }
  }
  for (int s = 0; s <= c.decode; ++s) {
    const float* row = logits.data() + static_cast<size_t>(s) * c.vocab;
    const int top = ArgMax(row, c.vocab);
    if (tokens[c.prompt + s] != top) {
      if (bad.count++ < 8)
        std::fprintf(stderr, "mismatch: token %d is %d, the argmax of its logits is %d\n", s, tokens[c.prompt + s],
                     top);
    }
    for (int k = 0; k < 16; ++k) {
      const int v = k == 15 ? top : static_cast<int>((static_cast<long long>(k) * c.vocab) / 15);
      double acc = 0.0;
      for (int i = 0; i < d; ++i)
        acc += static_cast<double>(hidden[static_cast<size_t>(s) * d + i]) * w.head[static_cast<size_t>(v) * d + i];
      bad.Compare("logits", s, v, row[v], static_cast<float>(acc), 1e-3, 1e-4);
    }
  }
}

// The full check: a CPU forward of the whole generation.
void FullCheck(const Config& c, const Weights& w, const std::vector<int>& prompt, GpuModel& gpu, Mismatches& bad) {
  const std::vector<int> tokens = gpu.Tokens();
  const std::vector<float> logits = gpu.Logits();
  CpuModel cpu(c, w);
  std::vector<float> ref;
  for (int p = 0; p < c.prompt; ++p) ref = cpu.Logits(cpu.Layers(prompt[p], p));
  for (int s = 0; s <= c.decode; ++s) {
    const float* row = logits.data() + static_cast<size_t>(s) * c.vocab;
    for (int v = 0; v < c.vocab; ++v) bad.Compare("logits", s, v, row[v], ref[v], 2e-3, 1e-3);
    const int want = ArgMax(ref.data(), c.vocab);
    if (tokens[c.prompt + s] != want) {
      if (bad.count++ < 8) {
        std::fprintf(stderr, "mismatch: generated token %d is %d on the GPU, %d on the CPU (CPU logits %.6g vs %.6g)\n",
                     s, tokens[c.prompt + s], want, ref[tokens[c.prompt + s]], ref[want]);
      }
      return;  // the sequences diverge from here
    }
    if (s < c.decode) ref = cpu.Logits(cpu.Layers(want, c.prompt + s));
  }
}

double Millis(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  bool check = false, no_check = false, cuda_graphs = false;
  wl::Flags flags("tiny_llm",
                  "Small decoder-only transformer (fp32, KV cache): prefill, then greedy decode, with NVTX ranges "
                  "in the domain LLM (prefill, decode_all, step_<i>, layer_<l>, attention, mlp).");
  flags.Int("layers", &c.layers, 1, 128, "decoder layers");
  flags.Int("d-model", &c.d_model, 1, 8192, "model width");
  flags.Int("heads", &c.heads, 1, 128, "attention heads (must divide --d-model)");
  flags.Int("vocab", &c.vocab, 2, 262144, "vocabulary size");
  flags.Int("d-ff", &c.d_ff, 1, 32768, "MLP hidden width");
  flags.Int("prompt", &c.prompt, 1, 4096, "prompt tokens (prefill)");
  flags.Int("decode", &c.decode, 0, 4096, "greedy decode steps");
  flags.Bool("check", &check,
             "run the small check config (2 layers, d_model 64, 4 heads, vocab 256, d_ff 256, prompt 8, decode 4) "
             "and compare everything with a CPU forward");
  flags.Bool("no-check", &no_check, "skip the cheap CPU check of a normal run");
  flags.Bool("cuda-graphs", &cuda_graphs,
             "decode with CUDA graphs: each decode step captured once (range 'capture') and launched with "
             "cudaGraphLaunch inside its step_<i> range");
  flags.Parse(argc, argv);
  if (check && no_check) flags.Usage("--check and --no-check exclude each other");
  if (check) c = kCheckConfig;
  if (c.d_model % c.heads != 0) flags.Usage("--heads must divide --d-model");
  const double params = 2.0 * c.vocab * c.d_model + static_cast<double>(c.max_seq()) * c.d_model +
                        static_cast<double>(c.layers) * (4.0 * c.d_model * c.d_model + 2.0 * c.d_model * c.d_ff);
  if (params > 2e9) flags.Usage("the model would have over 2e9 parameters; choose smaller sizes");
  wl::RequireCudaDevice("tiny_llm");

  const Weights w = MakeWeights(c);
  const std::vector<int> prompt = MakePrompt(c);
  GpuModel gpu(c, w, prompt);
  std::printf(
      "tiny_llm: layers %d, d_model %d, heads %d, vocab %d, d_ff %d, prompt %d, decode %d (%.1fM params, fp32)%s\n",
      c.layers, c.d_model, c.heads, c.vocab, c.d_ff, c.prompt, c.decode, params / 1e6, check ? " [check config]" : "");

  // Warm up before any range: context, every kernel loaded.
  wl_probe_kernel<<<1, 1>>>();
  CUDA_CHECK_LAUNCH();
  GpuModel::Preload();
  if (cuda_graphs) gpu.CaptureDecode();
  CUDA_CHECK(cudaDeviceSynchronize());

  auto t0 = std::chrono::steady_clock::now();
  gpu.Prefill();
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(gpu.stream()));
  const double ttft_ms = Millis(t0);
  double decode_ms = 0.0;
  {
    wl::DomainRange all(gpu.domain(), "decode_all");
    for (int i = 0; i < c.decode; ++i) {
      const auto t = std::chrono::steady_clock::now();
      gpu.DecodeStep(i);
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaStreamSynchronize(gpu.stream()));
      decode_ms += Millis(t);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<int> tokens = gpu.Tokens();
  std::printf("time to first token: %.3f ms (prefill of %d tokens: %.1f tokens/s)\n", ttft_ms, c.prompt,
              c.prompt / (ttft_ms / 1e3));
  if (c.decode > 0) {
    std::printf("decode: %d steps, mean per-token latency %.3f ms, %.1f tokens/s\n", c.decode, decode_ms / c.decode,
                c.decode / (decode_ms / 1e3));
  }
  std::printf("generated tokens/s (first token included): %.1f\n", (c.decode + 1) / ((ttft_ms + decode_ms) / 1e3));
  std::printf("generated:");
  for (int i = c.prompt; i <= c.max_seq(); ++i) std::printf(" %d", tokens[i]);
  std::printf("\n");

  if (no_check) {
    std::printf("check: skipped (--no-check)\n");
    return wl::kExitOk;
  }
  Mismatches bad;
  CheapCheck(c, w, gpu, bad);
  if (check) FullCheck(c, w, prompt, gpu, bad);
  if (bad.count > 0) {
    std::fprintf(stderr, "tiny_llm: check FAILED: %d mismatch(es) against the CPU reference\n", bad.count);
    return wl::kExitMismatch;
  }
  std::printf("check: ok (%s; max abs diff %.3g)\n",
              check ? "full CPU forward: every step's logits and every generated token"
                    : "layers 0-1 KV cache at every position, argmax and 16 logits per step",
              bad.worst);
  return wl::kExitOk;
}
