#!/usr/bin/env python3
"""Write a synthetic `ncu --csv --page details --nvtx` file for the region-report bench.

The shape follows docs "B.1" item 5 (ncu with --nvtx): the 15-column header
of ncu ~2022-2023 with the two NVTX columns inserted right after
"Host Name", 17 columns in all, every field double-quoted, no rule columns
(as with `--metrics` only).  Each profiled result (launch) has two metric
rows, contiguous, launches numbered 0..K-1:

  "Command line profiler metrics", "gpu__time_duration.sum", "ns", "12,345"
  "GPU Speed Of Light Throughput", "DRAM Throughput", "%", "56.78" (sometimes "n/a")

The push/pop cell is the thread id, a space, then one quoted entry per NVTX
stack level, outermost first, each "<default domain>:RANGE:none:none:none:none:none:none"
(inner quotes doubled by CSV quoting).  The start/end cell is empty.

Regions: a tree of R distinct region paths (default 10,000), pushed like
an LLM decode loop:
  100 top-level "step_i" ranges (fewer when R < 100), each holding
  "layer_j" ranges, and every other layer holding "attn" and "mlp".
With R = 10,000 every step has 1 + 49 layers + 25 x (attn, mlp) = 100
regions.  Names repeat across parents ("layer_3" exists under every step),
so a region is identified by its path, not its name.  Every region gets at
least one launch whose innermost range it is, so all R paths occur in
the data; a parent's own launches are split before and after its
children.  About 1% of the launches are outside any range (empty NVTX
cell): some before the first step, the rest between steps.

Kernel names: 50, grouped by where they run (outside, step, layer, attn,
mlp); several are C++ templates with commas.  Durations are integer ns,
written with thousands separators.

Everything is drawn from a fixed-seed PRNG, so the same arguments always
give a byte-identical file.

    python3 bench/gen_ncu_regions.py --regions 10000 --results 1000000 --out regions.csv
"""

import argparse
import os
import random
import sys

HEADER = [
    "ID", "Process ID", "Process Name", "Host Name",
    "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
    "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
    "Kernel Name", "Context", "Stream", "Block Size", "Grid Size", "Device", "CC",
    "Section Name", "Metric Name", "Metric Unit", "Metric Value",
]

SEED = 20241122
PID = 48213
TID = 48213
MAX_STEPS = 100
OUTSIDE_FRACTION = 0.01

# Kernel names by where they run; 50 in all.  (name, block, grid, median duration ns)
KERNELS = {
    "outside": [
        ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, "
         "std::array<char *, 1>>(int, T2, T3)", 128, 1024, 3_000),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
         "std::array<char *, 1>>(int, T2, T3)", 128, 512, 2_500),
        ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
         "at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 8)]::"
         "operator ()() const::[lambda(c10::BFloat16) (instance 1)], std::array<char *, 2>, 4, "
         "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
         "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>>(int, T1, T2, T4, T5, T6, "
         "T7)", 128, 4096, 40_000),
        ("write_req_to_token_pool_triton", 128, 64, 4_000),
        ("compute_position_kernel", 256, 32, 2_000),
        ("create_flashinfer_kv_indices_triton", 128, 64, 3_500),
    ],
    "step": [
        ("void at::native::<unnamed>::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, (int)-2, "
         "true>(at::cuda::detail::TensorInfo<T1, T3>, at::cuda::detail::TensorInfo<const T1, T3>, "
         "at::cuda::detail::TensorInfo<const T2, T3>, int, int, T3, T3, long)", 128, 2048, 12_000),
        ("triton_poi_fused_embedding_0", 256, 1024, 8_000),
        ("void vllm::rms_norm_kernel<c10::BFloat16, 8>(T1 *, const T1 *, const T1 *, float, int, int)",
         1024, 64, 9_000),
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cluster1x2x1_warpgroupsize1x1x1_"
         "execute_segment_k_off_kernel__5x_cublas", 384, 132, 450_000),
        ("void at::native::<unnamed>::cunn_SoftMaxForward<4, float, float, float, "
         "at::native::<unnamed>::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)", 1024, 64, 60_000),
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
         "unsigned int, long, 4, 4>>(T3)", 512, 64, 30_000),
        ("void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024, "
         "(cub::CUB_200200_800_900_NS::BlockScanAlgorithm)2, (cub::CUB_200200_800_900_NS::BlockReduceAlgorithm)1, "
         "4, false, float, int>(float *, float *, float *, T6 *, T6 *, float, float, unsigned int, unsigned long, "
         "unsigned long)", 1024, 64, 80_000),
        ("void cub::CUB_200200_800_900_NS::DeviceRadixSortOnesweepKernel<cub::CUB_200200_800_900_NS::"
         "DeviceRadixSortPolicy<float, int, unsigned int>::Policy900, true, float, int, unsigned int, int, "
         "cub::CUB_200200_800_900_NS::detail::identity_decomposer_t>(T6 *, T6 *, const T2 *, T2 *, const T3 *, "
         "T3 *, T5, int, int, T7)", 384, 256, 25_000),
    ],
    "layer": [
        ("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(T1 *, T1 *, const T1 *, float, int, int)",
         1024, 64, 7_000),
        ("void vllm::rms_norm_kernel<c10::BFloat16, 1>(T1 *, const T1 *, const T1 *, float, int, int)",
         1024, 64, 6_000),
        ("triton_red_fused_add_rms_norm_0", 512, 64, 8_000),
        ("triton_poi_fused_add_mul_0", 256, 2048, 5_000),
        ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)", 512, 24, 35_000),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "std::array<char *, 3>>(int, T2, T3)", 128, 2048, 4_500),
        ("void at::native::vectorized_elementwise_kernel<8, at::native::BinaryFunctor<c10::BFloat16, "
         "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>, "
         "std::array<char *, 3>>(int, T2, T3)", 128, 1024, 4_000),
        ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_128x128_64x3_tn_align8>(T1::Params)",
         128, 264, 70_000),
        ("triton_poi_fused_clamp_sub_1", 256, 512, 3_000),
        ("void at::native::reduce_kernel<256, 2, at::native::ReduceOp<c10::BFloat16, "
         "at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>, unsigned int, c10::BFloat16, 4, 4>>(T3)",
         256, 128, 11_000),
    ],
    "attn": [
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cluster1x2x1_warpgroupsize1x1x1_"
         "execute_segment_k_off_kernel__5x_cublas", 384, 132, 90_000),
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_cluster1x2x1_warpgroupsize1x1x1_"
         "execute_segment_k_on_kernel__5x_cublas", 384, 132, 55_000),
        ("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(const long *, T1 *, T1 *, const T1 *, int, "
         "long, long, int, int, int)", 256, 64, 6_000),
        ("void vllm::reshape_and_cache_flash_kernel<c10::BFloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>"
         "(const T1 *, const T1 *, T2 *, T2 *, const long *, int, int, int, int, int, int, const float *, "
         "const float *)", 256, 64, 7_000),
        ("void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
         "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t>>, false, true, false, "
         "false, true, true, false, false>(Flash_fwd_params)", 128, 256, 120_000),
        ("void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, "
         "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 64, 4, cutlass::bfloat16_t>>, 4, 4, false>"
         "(Flash_fwd_params)", 128, 64, 9_000),
        ("void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2, 4, 8, 16, 1, 4, "
         "flashinfer::DefaultAttention<false, false, false, false>>(flashinfer::BatchDecodeParams<__nv_bfloat16, "
         "__nv_bfloat16, __nv_bfloat16, int>)", 128, 132, 75_000),
        ("void flashinfer::BatchPrefillWithPagedKVCacheKernel<(flashinfer::MaskMode)1, "
         "(flashinfer::PosEncodingMode)0, 2, 4, 8, 2, 8, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, "
         "int, flashinfer::DefaultAttention<false, false, false, false>>(flashinfer::BatchPrefillPagedParams<"
         "__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", 256, 132, 150_000),
        ("_fwd_kernel_stage1", 128, 512, 40_000),
        ("_fwd_kernel_stage2", 128, 128, 12_000),
        ("triton_poi_fused_cat_index_select_0", 256, 256, 4_000),
        ("void at::native::<unnamed>::cunn_SoftMaxForward<4, c10::BFloat16, float, c10::BFloat16, "
         "at::native::<unnamed>::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)", 1024, 64, 15_000),
        ("void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
         "CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>, cute::tuple<cute::C<128>, "
         "cute::C<176>, cute::C<128>>, 128, cutlass::bfloat16_t, float, cutlass::arch::Sm90, true, false, false, "
         "true, true, false, false, true, true, false, false>, flash::CollectiveEpilogueFwd<cute::tuple<"
         "cute::C<128>, cute::C<128>, cute::C<128>>, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>, "
         "cutlass::bfloat16_t, cutlass::arch::Sm90, 256, true, true, false, false>, flash::"
         "VarlenDynamicPersistentTileScheduler<128, 256, 128, false, true, true>>>>(T1::Params)", 384, 132,
         110_000),
    ],
    "mlp": [
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_cluster1x2x1_warpgroupsize1x1x1_"
         "execute_segment_k_off_kernel__5x_cublas", 384, 132, 180_000),
        ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x64x64_cluster1x2x1_warpgroupsize1x1x1_"
         "execute_segment_k_off_kernel__5x_cublas", 384, 132, 95_000),
        ("void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(T1 *, const T1 *, "
         "int)", 1024, 64, 10_000),
        ("triton_poi_fused_silu_mul_0", 256, 4096, 9_000),
        ("fused_moe_kernel", 128, 1024, 160_000),
        ("void moe_align_block_size_kernel<int>(const T1 *, int *, int *, int *, int, int, unsigned long, int *, "
         "bool, int, int) [block_size=64]", 1024, 1, 8_000),
        ("void topkGatingSoftmax<4, 64, 4, 16, 32, int>(const float *, const bool *, float *, int, T6 *, int *, "
         "int, int, int)", 128, 32, 6_000),
        ("moe_sum_reduce_triton_kernel", 128, 256, 12_000),
        ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
         "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
         "cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>, cutlass::gemm::KernelTmaWarpSpecializedCooperative>, "
         "cute::tuple<cute::C<128>, cute::C<256>, cute::C<64>>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, "
         "long>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cute::TiledMMA<cute::MMA_Atom<"
         "cute::SM90_64x256x16_F32BF16BF16_SS<cute::GMMA::Major::K, cute::GMMA::Major::K>>>, cute::SM90_TMA_LOAD, "
         "cute::SM90_TMA_LOAD_MULTICAST>, cutlass::epilogue::collective::CollectiveEpilogue<float>, void>>"
         "(T1::Params)", 384, 132, 200_000),
        ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(T1::Params)",
         256, 132, 140_000),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, "
         "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>, "
         "std::array<char *, 3>>(int, T2, T3)", 128, 2048, 5_000),
        ("triton_poi_fused_gelu_tanh_0", 256, 2048, 7_000),
        ("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)", 512, 24,
         30_000),
    ],
}

# Relative share of launches a region gets, by kind (before random spread).
WEIGHT = {"step": 0.3, "layer_parent": 0.4, "layer": 1.0, "attn": 1.3, "mlp": 1.0}


def q(s):
    """One CSV field, always quoted as ncu does (RFC 4180 doubling)."""
    return '"' + s.replace('"', '""') + '"'


class Region:
    __slots__ = ("path", "kind", "children", "count")

    def __init__(self, path, kind):
        self.path = path
        self.kind = kind
        self.children = []
        self.count = 0


def build_tree(n_regions):
    """Steps with layers, every other layer with attn and mlp; exactly n_regions paths."""
    n_steps = min(MAX_STEPS, n_regions)
    steps = []
    for i in range(n_steps):
        budget = n_regions // n_steps + (1 if i < n_regions % n_steps else 0)
        step = Region((f"step_{i}",), "step")
        left = budget - 1
        j = 0
        while left > 0:
            layer = Region(step.path + (f"layer_{j}",), "layer")
            left -= 1
            if j % 2 == 0 and left >= 2:
                layer.kind = "layer_parent"
                layer.children = [Region(layer.path + ("attn",), "attn"), Region(layer.path + ("mlp",), "mlp")]
                left -= 2
            step.children.append(layer)
            j += 1
        steps.append(step)
    return steps


def walk(node):
    yield node
    for c in node.children:
        yield from walk(c)


def generate(out, n_regions, n_results, seed):
    if n_regions < 1 or n_results < 1:
        raise SystemExit("--regions and --results must be positive")
    rng = random.Random(seed)
    steps = build_tree(n_regions)
    regions = [r for s in steps for r in walk(s)]
    assert len(regions) == n_regions and len({r.path for r in regions}) == n_regions
    n_outside = int(round(n_results * OUTSIDE_FRACTION))
    n_inside = n_results - n_outside
    if n_inside < n_regions:
        raise SystemExit(f"--results {n_results} leaves {n_inside} launches inside ranges, fewer than "
                         f"--regions {n_regions}: some regions would have no launch")

    # Launches per region: 1 each, the rest in proportion to a random weight
    # (largest remainder, so the counts add up exactly).
    weights = [WEIGHT[r.kind] * rng.uniform(0.5, 1.5) for r in regions]
    spare = n_inside - n_regions
    total_w = sum(weights)
    shares = [spare * w / total_w for w in weights]
    for r, s in zip(regions, shares):
        r.count = 1 + int(s)
    rest = n_inside - sum(r.count for r in regions)
    for k in sorted(range(n_regions), key=lambda k: int(shares[k]) - shares[k])[:rest]:
        regions[k].count += 1
    assert sum(r.count for r in regions) == n_inside

    # Outside-range launches: a quarter before the first step, the rest spread
    # over the gaps after each step.
    first = n_outside // 4
    gaps = [first] + [(n_outside - first) // len(steps)] * len(steps)
    for g in range(1, 1 + (n_outside - first) % len(steps)):
        gaps[g] += 1
    assert sum(gaps) == n_outside

    # Pre-quoted cells.
    def entry(name):
        return f"<default domain>:{name}:none:none:none:none:none:none"

    cell = {r.path: q(f"{TID} " + " ".join(f'"{entry(n)}"' for n in r.path)) for r in regions}
    kinds = {k: [(q(n), q(f"({b}, 1, 1)"), q(f"({g}, 1, 1)"), med) for n, b, g, med in v]
             for k, v in KERNELS.items()}
    # Skewed choice within a kind: the first names are the common ones.
    kind_weights = {k: [1.0 / (i + 1) ** 0.8 for i in range(len(v))] for k, v in kinds.items()}
    kind_cum = {}
    for k, w in kind_weights.items():
        acc, cum = 0.0, []
        for x in w:
            acc += x
            cum.append(acc)
        kind_cum[k] = cum

    fixed_pid = f'"{PID}","python3","127.0.0.1",'
    tail_time = '"Command line profiler metrics","gpu__time_duration.sum","ns",'
    tail_dram = '"GPU Speed Of Light Throughput","DRAM Throughput","%",'
    state = {"id": 0}
    buf = []
    choices = rng.choices
    lognorm = rng.lognormvariate
    rand = rng.random

    def launches(nvtx_cell, kind, n, f):
        cum = kind_cum[kind]
        pool = kinds[kind]
        for k in choices(range(len(pool)), cum_weights=cum, k=n):
            name_q, block_q, grid_q, med = pool[k]
            i = state["id"]
            state["id"] = i + 1
            dur = max(1000, int(med * lognorm(0.0, 0.35)))
            u = rand()
            dram = '"n/a"' if u < 0.005 else f'"{u * 95.0:.2f}"'
            # the start/end cell after the push/pop cell is empty
            prefix = f'"{i}",{fixed_pid}{nvtx_cell},"",{name_q},"1","7",{block_q},{grid_q},"0","9.0",'
            buf.append(f'{prefix}{tail_time}"{dur:,}"\n{prefix}{tail_dram}{dram}\n')
            if len(buf) >= 4096:
                f.write("".join(buf))
                buf.clear()

    def emit(node, f):
        cell_q = cell[node.path]
        before = node.count // 2 if node.children else node.count
        launches(cell_q, node.kind.replace("layer_parent", "layer"), before, f)
        for c in node.children:
            emit(c, f)
        if node.children:
            launches(cell_q, node.kind.replace("layer_parent", "layer"), node.count - before, f)

    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(q(h) for h in HEADER) + "\n")
        launches('""', "outside", gaps[0], f)
        for s, step in enumerate(steps):
            emit(step, f)
            launches('""', "outside", gaps[s + 1], f)
        f.write("".join(buf))
        buf.clear()
    os.replace(tmp, out)
    assert state["id"] == n_results
    return {"regions": n_regions, "steps": len(steps), "results": n_results, "outside": n_outside,
            "kernel_names": len({n for v in KERNELS.values() for n, *_ in v})}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--regions", type=int, default=10000, help="distinct region paths (default %(default)s)")
    ap.add_argument("--results", type=int, default=1000000, help="profiled results, IDs 0..K-1 (default %(default)s)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    info = generate(a.out, a.regions, a.results, a.seed)
    size = os.path.getsize(a.out)
    print(f"wrote {a.out}: {info['regions']} regions ({info['steps']} top-level), {info['results']} results "
          f"({info['outside']} outside any range), {info['kernel_names']} kernel names, 2 metric rows each; "
          f"{size:,} bytes ({size / 1e6:.1f} MB)", file=sys.stderr)


if __name__ == "__main__":
    main()
