#!/usr/bin/env python3
"""Write a synthetic but realistic `ncu --csv --page details` file.

The shape follows ncu 2023.3+ with rules (20-column header, see
docs "B.1"): every field double-quoted, one row per (launch, section,
metric), the rows of one launch contiguous and launches numbered 0..N-1.
Metric rows are ragged like real output (15 values plus a trailing comma,
so 16 fields instead of 20); each launch ends with one rule row (20 fields)
whose description contains commas, sometimes doubled quotes and sometimes
an embedded newline.  Numbers use locale grouping ("1,234.56") where real
ncu output does, and a few values are "n/a".

Everything is drawn from a fixed-seed PRNG, so the same arguments always
give a byte-identical file.

    python3 bench/gen_ncu_details.py --launches 100000 --metrics 40 --out details.csv
"""

import argparse
import math
import os
import random
import sys

HEADER = [
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
    "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Name",
    "Rule Type", "Rule Description", "Estimated Speedup Type", "Estimated Speedup",
]

SEED = 20240611
POOL_SIZE = 200


def q(s):
    """One CSV field, always quoted as ncu does (RFC 4180 doubling)."""
    return '"' + s.replace('"', '""') + '"'


# --------------------------------------------------------------------------
# Kernel names: ~200 names from the families that dominate LLM inference
# profiles (PyTorch ATen, CUTLASS/cuBLAS, FlashAttention, FlashInfer, vLLM /
# SGLang custom ops, Triton, CUB, NCCL).  Most are long templates with
# commas, so they must be quoted.
# --------------------------------------------------------------------------

DTYPES = ["c10::BFloat16", "c10::Half", "float", "__nv_bfloat16", "int", "long", "bool", "signed char"]
FUNCTORS = [
    "at::native::CUDAFunctor_add<{t}>", "at::native::FillFunctor<{t}>", "at::native::AbsFunctor<{t}>",
    "at::native::BinaryFunctor<{t}, {t}, {t}, at::native::binary_internal::MulFunctor<float>>",
    "at::native::BinaryFunctor<{t}, {t}, {t}, at::native::binary_internal::DivFunctor<float>>",
    "at::native::AUnaryFunctor<{t}, {t}, {t}, at::native::binary_internal::MulFunctor<float>>",
    "at::native::CUDAFunctorOnSelf_add<{t}>", "at::native::neg_kernel_cuda(at::TensorIteratorBase &)::"
    "[lambda() (instance 2)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::"
    "[lambda({t}) (instance 1)]",
]


def build_pool(rng):
    names = []

    def add(n):
        if n not in names:
            names.append(n)

    # short Triton / custom names (no commas)
    for op in ["add_mul", "clamp_sub", "_to_copy_add_mean_mul_pow_rsqrt", "cat_index_select", "silu_mul",
               "embedding", "mul_sigmoid", "add_rms_norm", "index_put_lift_fresh", "gelu_tanh"]:
        kind = "red" if "mean" in op or "norm" in op else "poi"
        for i in range(2):
            add(f"triton_{kind}_fused_{op}_{i}")
    for n in ["fused_moe_kernel", "_fwd_kernel_stage1", "_fwd_kernel_stage2", "_fwd_grouped_kernel_stage1",
              "write_req_to_token_pool_triton", "create_flashinfer_kv_indices_triton",
              "compute_position_kernel", "moe_sum_reduce_triton_kernel"]:
        add(n)
    # NCCL
    for coll in ["AllReduce_Sum_bf16_RING_LL", "AllReduce_Sum_bf16_TREE_LL", "AllGather_RING_LL",
                 "ReduceScatter_Sum_bf16_RING_LL"]:
        add(f"ncclDevKernel_{coll}(ncclDevComm *, unsigned long, ncclWork *)")
    # ATen vectorized / unrolled elementwise
    for vec in [2, 4, 8]:
        for f in FUNCTORS:
            t = rng.choice(DTYPES[:4])
            add(f"void at::native::vectorized_elementwise_kernel<{vec}, {f.format(t=t)}, "
                f"std::array<char *, {rng.choice([1, 2, 3])}>>(int, T2, T3)")
    for inst in range(1, 9):
        t = rng.choice(DTYPES)
        add("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
            f"at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance "
            f"{inst})]::operator ()() const::[lambda({t}) (instance 1)], std::array<char *, 2>, 4, "
            "TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
            "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>>(int, T1, T2, T4, T5, "
            "T6, T7)")
    # reductions
    for t in ["c10::BFloat16", "float", "c10::Half"]:
        for red in ["sum_functor", "MaxOps", "MinOps", "ArgMaxOps"]:
            a, b = rng.choice([(512, 1), (256, 2), (128, 4)])
            add(f"void at::native::reduce_kernel<{a}, {b}, at::native::ReduceOp<{t}, at::native::{red}<{t}, "
                f"float, {t}>, unsigned int, {t}, 4, 4>>(T3)")
    # index / gather / softmax
    for t in ["c10::BFloat16", "float", "long", "int"]:
        add(f"void at::native::index_elementwise_kernel<128, 4, void at::native::gpu_index_kernel<void "
            f"at::native::index_kernel_impl<at::native::OpaqueType<{rng.choice([2, 4, 8])}>>(at::TensorIteratorBase &, "
            "c10::ArrayRef<long>, c10::ArrayRef<long>)::[lambda(char *, const char *, long) (instance 1)]>"
            "(at::TensorIteratorBase &, c10::ArrayRef<long>, c10::ArrayRef<long>, const T1 &, bool)::"
            "[lambda(int) (instance 1)]>(long, T3)")
        add(f"void at::native::<unnamed>::indexSelectLargeIndex<{t}, long, unsigned int, 2, 2, (int)-2, true>"
            f"(at::cuda::detail::TensorInfo<T1, T3>, at::cuda::detail::TensorInfo<const T1, T3>, "
            "at::cuda::detail::TensorInfo<const T2, T3>, int, int, T3, T3, long)")
        add(f"void at::native::<unnamed>::cunn_SoftMaxForward<4, {t}, float, {t}, "
            "at::native::<unnamed>::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)")
    # vLLM / SGLang custom ops
    for t in ["c10::BFloat16", "c10::Half", "float"]:
        for w in [1, 8]:
            add(f"void vllm::rms_norm_kernel<{t}, {w}>(T1 *, const T1 *, const T1 *, float, int, int)")
            add(f"void vllm::fused_add_rms_norm_kernel<{t}, {w}>(T1 *, T1 *, const T1 *, float, int, int)")
        add(f"void vllm::act_and_mul_kernel<{t}, &vllm::silu_kernel<{t}>, true>(T1 *, const T1 *, int)")
        add(f"void vllm::rotary_embedding_kernel<{t}, true>(const long *, T1 *, T1 *, const T1 *, int, long, "
            "long, int, int, int)")
        for kv in ["__nv_bfloat16", "unsigned char"]:
            add(f"void vllm::reshape_and_cache_flash_kernel<{t}, {kv}, (vllm::Fp8KVCacheDataType)"
                f"{0 if kv.startswith('__') else 1}>(const T1 *, const T1 *, T2 *, T2 *, const long *, int, int, "
                "int, int, int, int, const float *, const float *)")
    for bs in [16, 32, 64, 128, 256]:
        add(f"void moe_align_block_size_kernel<int>(const T1 *, int *, int *, int *, int, int, unsigned long, "
            f"int *, bool, int, int) [block_size={bs}]")
        add(f"void topkGatingSoftmax<{bs // 16 or 1}, {bs}, 4, 16, 32, int>(const float *, const bool *, "
            "float *, int, T6 *, int *, int, int, int)")
    # cuBLAS / CUTLASS GEMMs
    for tile in ["64x64x64", "128x64x64", "128x128x64", "64x128x64", "128x256x64", "256x128x64"]:
        for seg in ["off", "on"]:
            add(f"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize{tile}_cluster1x2x1_warpgroupsize1x1x1_"
                f"execute_segment_k_{seg}_kernel__5x_cublas")
    for cfg in ["128x128_64x3", "256x128_32x3", "128x256_64x3", "64x64_64x5", "128x64_32x6", "256x64_64x4"]:
        for ep in ["", "_relu"]:
            add(f"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm{ep}_bf16_{cfg}_tn_align8>(T1::Params)")
    for m, n, k in [(128, 128, 64), (128, 256, 64), (64, 128, 64), (256, 128, 64), (128, 64, 128)]:
        for sched in ["KernelTmaWarpSpecializedCooperative", "KernelTmaWarpSpecializedPingpong"]:
            add("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
                f"cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
                f"cute::tuple<cute::C<2>, cute::C<1>, cute::C<1>>, cutlass::gemm::{sched}>, cute::tuple<cute::C<{m}>, "
                f"cute::C<{n}>, cute::C<{k}>>, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, "
                "cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cute::TiledMMA<cute::MMA_Atom<"
                f"cute::SM90_64x{n}x16_F32BF16BF16_SS<cute::GMMA::Major::K, cute::GMMA::Major::K>>>, "
                "cute::SM90_TMA_LOAD, cute::SM90_TMA_LOAD_MULTICAST>, cutlass::epilogue::collective::"
                "CollectiveEpilogue<float>, void>>(T1::Params)")
    # FlashAttention 2 / 3
    for hd in [64, 128, 256]:
        for bm, bn in [(64, 128), (128, 64), (64, 64)]:
            split = rng.choice(["true", "false"])
            add(f"void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<{hd}, {bm}, {bn}, 4, false, false, "
                f"cutlass::bfloat16_t, Flash_kernel_traits<{hd}, {bm}, {bn}, 4, cutlass::bfloat16_t>>, false, "
                f"true, false, false, {split}, true, false, false>(Flash_fwd_params)")
        add(f"void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<{hd}, 64, 64, 4, false, "
            f"false, cutlass::bfloat16_t, Flash_kernel_traits<{hd}, 64, 64, 4, cutlass::bfloat16_t>>, 4, 4, "
            "false>(Flash_fwd_params)")
        add("void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
            f"CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>, cute::tuple<"
            f"cute::C<128>, cute::C<{176 if hd == 128 else 128}>, cute::C<{hd}>>, {hd}, cutlass::bfloat16_t, "
            "float, cutlass::arch::Sm90, true, false, false, true, true, false, false, true, true, false, "
            "false>, flash::CollectiveEpilogueFwd<cute::tuple<cute::C<128>, cute::C<128>, cute::C<128>>, "
            "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1>>, cutlass::bfloat16_t, cutlass::arch::Sm90, 256, "
            "true, true, false, false>, flash::VarlenDynamicPersistentTileScheduler<128, 256, 128, false, "
            "true, true>>>>(T1::Params)")
    # FlashInfer
    for cta in [16, 64, 128]:
        for hd in [64, 128]:
            add(f"void flashinfer::BatchPrefillWithPagedKVCacheKernel<(flashinfer::MaskMode)1, "
                f"(flashinfer::PosEncodingMode)0, 2, 4, {cta // 16}, 2, {hd // 16}, __nv_bfloat16, __nv_bfloat16, "
                "__nv_bfloat16, float, int, flashinfer::DefaultAttention<false, false, false, false>>("
                "flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)")
        add(f"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2, {cta // 16 or 1}, "
            "8, 16, 1, 4, flashinfer::DefaultAttention<false, false, false, false>>(flashinfer::"
            "BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)")
    # CUB
    for key in ["float", "int", "long", "c10::BFloat16"]:
        for kind in ["DeviceRadixSortOnesweepKernel", "DeviceRadixSortHistogramKernel"]:
            add(f"void cub::CUB_200200_800_900_NS::{kind}<cub::CUB_200200_800_900_NS::DeviceRadixSortPolicy<"
                f"{key}, int, unsigned int>::Policy900, true, {key}, int, unsigned int, int, "
                "cub::CUB_200200_800_900_NS::detail::identity_decomposer_t>(T6 *, T6 *, const T2 *, T2 *, "
                "const T3 *, T3 *, T5, int, int, T7)")
        add(f"void cub::CUB_200200_800_900_NS::DeviceScanKernel<cub::CUB_200200_800_900_NS::DeviceScanPolicy<"
            f"{key}, std::plus<{key}>>::Policy900, const {key} *, {key} *, cub::CUB_200200_800_900_NS::"
            f"ScanTileState<{key}, true>, std::plus<{key}>, cub::CUB_200200_800_900_NS::NullType, int, "
            f"{key}>(T2, T3, T4, int, T5, T6, T7)")
    # top-up with sampling kernels until the pool is full
    i = 0
    while len(names) < POOL_SIZE:
        t = DTYPES[i % len(DTYPES)]
        add(f"void flashinfer::sampling::TopKTopPSamplingFromProbKernel<{256 * (1 + i % 4)}, "
            f"(cub::CUB_200200_800_900_NS::BlockScanAlgorithm){i % 3}, "
            f"(cub::CUB_200200_800_900_NS::BlockReduceAlgorithm){i % 2}, {1 + i % 8}, false, {t}, int>"
            f"({t} *, {t} *, {t} *, T6 *, T6 *, {t}, {t}, unsigned int, unsigned long, unsigned long)")
        i += 1
    return names[:POOL_SIZE]


# --------------------------------------------------------------------------
# Metric catalogue: (section, metric, unit, kind).  The default 40 metrics
# are the first 40 entries; Duration is always among them.
# --------------------------------------------------------------------------
SOL = "GPU Speed Of Light Throughput"
MWA = "Memory Workload Analysis"
CWA = "Compute Workload Analysis"
LS = "Launch Statistics"
OCC = "Occupancy"
CATALOGUE = [
    (SOL, "DRAM Frequency", "Ghz", "dram_freq"),
    (SOL, "SM Frequency", "Ghz", "sm_freq"),
    (SOL, "Elapsed Cycles", "cycle", "elapsed_cycles"),
    (SOL, "Memory Throughput", "%", "mem_pct"),
    (SOL, "DRAM Throughput", "%", "dram_pct"),
    (SOL, "Duration", "us", "duration"),
    (SOL, "L1/TEX Cache Throughput", "%", "pct"),
    (SOL, "L2 Cache Throughput", "%", "pct"),
    (SOL, "SM Active Cycles", "cycle", "active_cycles"),
    (SOL, "Compute (SM) Throughput", "%", "sm_pct"),
    (MWA, "Memory Throughput", "Gbyte/s", "gbps"),
    (MWA, "Mem Busy", "%", "pct"),
    (MWA, "Max Bandwidth", "%", "mem_pct"),
    (MWA, "L1/TEX Hit Rate", "%", "pct_na"),
    (MWA, "L2 Persisting Size", "Mbyte", "l2_persist"),
    (MWA, "L2 Compression Success Rate", "%", "zero"),
    (MWA, "L2 Compression Ratio", "", "na"),
    (MWA, "L2 Hit Rate", "%", "pct"),
    (MWA, "Mem Pipes Busy", "%", "pct"),
    (MWA, "Local Memory Spilling Requests", "byte", "zero"),
    (CWA, "Executed Ipc Active", "inst/cycle", "ipc"),
    (CWA, "Issue Slots Busy", "%", "sm_pct"),
    (CWA, "SM Busy", "%", "sm_pct"),
    (LS, "Block Size", "", "block"),
    (LS, "Function Cache Configuration", "", "cache_cfg"),
    (LS, "Grid Size", "", "grid"),
    (LS, "Registers Per Thread", "register/thread", "regs"),
    (LS, "Shared Memory Configuration Size", "Kbyte", "smem_cfg"),
    (LS, "Driver Shared Memory Per Block", "Kbyte/block", "one"),
    (LS, "Dynamic Shared Memory Per Block", "byte/block", "dyn_smem"),
    (LS, "Static Shared Memory Per Block", "byte/block", "static_smem"),
    (LS, "# SMs", "SM", "sms"),
    (LS, "Threads", "thread", "threads"),
    (LS, "Waves Per SM", "", "waves"),
    (OCC, "Block Limit Registers", "block", "blk_regs"),
    (OCC, "Block Limit Shared Mem", "block", "blk_smem"),
    (OCC, "Block Limit Warps", "block", "blk_warps"),
    (OCC, "Theoretical Occupancy", "%", "theo_occ"),
    (OCC, "Achieved Occupancy", "%", "ach_occ"),
    (OCC, "Achieved Active Warps Per SM", "warp", "ach_warps"),
    # beyond the default 40
    ("Instruction Statistics", "Executed Instructions", "inst", "insts"),
    ("Instruction Statistics", "Issued Instructions", "inst", "insts"),
    ("Instruction Statistics", "Avg. Executed Instructions Per Scheduler", "inst", "insts_sched"),
    ("Scheduler Statistics", "One or More Eligible", "%", "pct"),
    ("Scheduler Statistics", "No Eligible", "%", "pct"),
    ("Scheduler Statistics", "Active Warps Per Scheduler", "warp", "warps_sched"),
    ("Warp State Statistics", "Warp Cycles Per Issued Instruction", "cycle", "cpi"),
    ("Warp State Statistics", "Avg. Active Threads Per Warp", "", "threads_warp"),
    ("Source Counters", "Branch Instructions", "inst", "insts"),
    ("Source Counters", "Branch Efficiency", "%", "pct_na"),
    ("GPU and Memory Workload Distribution", "Total DRAM Elapsed Cycles", "cycle", "elapsed_cycles"),
    ("GPU and Memory Workload Distribution", "Average L2 Active Cycles", "cycle", "active_cycles"),
    ("GPU and Memory Workload Distribution", "Total SM Elapsed Cycles", "cycle", "elapsed_cycles"),
    ("PM Sampling", "Maximum Buffer Size", "Mbyte", "l2_persist"),
    ("PM Sampling", "Maximum Sampling Interval", "us", "sample_interval"),
    ("PM Sampling", "# Pass Groups", "", "two"),
]

RULES = [
    ("SpeedOfLight", "SOLBottleneck", "OPT",
     "This kernel grid is too small to fill the available resources on this device, resulting in only {w} full "
     "waves across all SMs. Look at Launch Statistics for more details.", True, False),
    ("LaunchStats", "LaunchConfiguration", "OPT",
     "The grid for this launch is configured to execute only {g} blocks, which is less than the 132 "
     "multiprocessors used. This can underutilize some multiprocessors. If you do not intend to execute this "
     "kernel concurrently with other workloads, consider reducing the block size to have at least one block per "
     "multiprocessor or increase the size of the grid to fully utilize the available hardware resources.", True,
     False),
    ("Occupancy", "AchievedOccupancy", "OPT",
     "The difference between calculated theoretical ({t}%) and measured achieved occupancy ({a}%) can be the "
     "result of warp scheduling overheads or workload imbalances during the kernel execution. Load imbalances can "
     "occur between warps within a block as well as across blocks of the same kernel.", True, False),
    ("MemoryWorkloadAnalysis_Tables", "MemoryCacheAccessPattern", "OPT",
     "The memory access pattern for global loads from L2 might not be optimal. On average, only {b} of the 32 "
     "bytes transmitted per sector are utilized by each thread. This could possibly be caused by a stride "
     "between threads.\nCheck the \"Source Counters\" section for uncoalesced global loads.", True, True),
    ("SchedulerStats", "IssueSlotUtilization", "OPT",
     "Every scheduler is capable of issuing one instruction per cycle, but for this workload each scheduler only "
     "issues an instruction every {c} cycles. This might leave hardware resources underutilized, and may lead to "
     "less optimal performance.\nOut of the maximum of 16 warps per scheduler, this workload allocates an average "
     "of {aw} active warps per scheduler.", True, True),
    ("WarpStateStats", "CPIStall", "INF",
     "Check the Warp Stall Sampling (All Samples) table for the top stall locations in your source based on "
     "sampling data. The Profiling Guide (https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html"
     "#metrics-reference) provides more details on each stall reason.", False, False),
    ("PmSampling", "PMSamplingData", "WRN",
     "Sampling interval is larger than 10% of the workload duration, which likely results in very few collected "
     "samples. For better results, use the --pm-sampling-interval option to reduce the sampling interval, or "
     "don't set a fixed buffer size and let the tool adjust it automatically.", False, False),
    ("WorkloadDistribution", "WorkloadImbalance", "OPT",
     "One or more L2 Slices have a much lower number of active cycles than the average number of active cycles. "
     "Maximum instance value is {hi}% above the average, while the minimum instance value is {lo}% below the "
     "average.", True, False),
]
RULE_WEIGHTS = [20, 15, 15, 8, 8, 12, 12, 10]


def grouped(v, digits):
    """A number the way ncu prints it: locale grouping, fixed decimals."""
    return f"{v:,.{digits}f}"


class Profile:
    """Per-kernel-name constants: every launch of a name looks alike."""

    def __init__(self, rng, name):
        self.base_us = math.exp(rng.uniform(math.log(1.5), math.log(4000.0)))
        self.mem_bound = rng.random()
        self.block = rng.choice([64, 128, 128, 256, 256, 384, 512, 1024])
        self.grid = rng.choice([1, 8, 32, 66, 132, 264, 528, 1024, 4096, 16384, 65536])
        self.grid_y = rng.choice([1, 1, 1, 2, 8, 32])
        self.regs = rng.choice([16, 24, 32, 40, 56, 64, 80, 96, 128, 168, 255])
        self.dyn_smem = rng.choice([0, 0, 0, 8192, 16384, 49152, 98304, 196608])
        self.static_smem = rng.choice([0, 0, 16, 128, 1024, 4096, 8192])
        self.stream = rng.choice(["7", "7", "7", "13", "19"])
        self.block_cell = q(f"({self.block}, 1, 1)")
        self.grid_cell = q(f"({self.grid}, {self.grid_y}, 1)")
        warps = self.block // 32
        self.blk_regs = max(1, 65536 // max(1, self.regs * self.block))
        self.blk_smem = 32 if self.dyn_smem + self.static_smem == 0 else max(
            1, 233472 // (self.dyn_smem + self.static_smem + 1024))
        self.blk_warps = max(1, 64 // warps)
        self.theo_occ = min(100.0, 100.0 * min(self.blk_regs, self.blk_smem, self.blk_warps, 32) * warps / 64)


def metric_value(kind, rng, p, d_us, sm_ghz):
    """Text of one metric value for one launch."""
    r = rng.random
    if kind == "duration":
        return grouped(d_us, 2)
    if kind == "dram_freq":
        return "3.19"
    if kind == "sm_freq":
        return f"{sm_ghz:.2f}"
    if kind == "elapsed_cycles":
        return grouped(d_us * sm_ghz * 1000.0 * (1.0 + 0.02 * r()), 0)
    if kind == "active_cycles":
        return grouped(d_us * sm_ghz * 1000.0 * (0.3 + 0.65 * r()), 2)
    if kind == "mem_pct":
        return f"{min(99.9, 100 * p.mem_bound * (0.7 + 0.3 * r())):.2f}"
    if kind == "dram_pct":
        return f"{min(99.9, 90 * p.mem_bound * (0.6 + 0.4 * r())):.2f}"
    if kind == "sm_pct":
        return f"{min(99.9, 100 * (1 - p.mem_bound) * (0.6 + 0.4 * r())):.2f}"
    if kind == "pct":
        return f"{100 * r():.2f}"
    if kind == "pct_na":
        return "n/a" if r() < 0.05 else f"{100 * r():.2f}"
    if kind == "gbps":
        return grouped(4800 * p.mem_bound * (0.5 + 0.5 * r()), 2)
    if kind == "l2_persist":
        return "11.80"
    if kind == "zero":
        return "0"
    if kind == "na":
        return "n/a"
    if kind == "one":
        return "1.02"
    if kind == "two":
        return "2"
    if kind == "ipc":
        return f"{4 * (1 - p.mem_bound) * r():.2f}"
    if kind == "block":
        return grouped(p.block, 0)
    if kind == "cache_cfg":
        return "CachePreferNone"
    if kind == "grid":
        return grouped(p.grid * p.grid_y, 0)
    if kind == "regs":
        return str(p.regs)
    if kind == "smem_cfg":
        return f"{min(233.47, (p.dyn_smem + p.static_smem) / 1000 + 32.77):.2f}"
    if kind == "dyn_smem":
        return grouped(p.dyn_smem, 0)
    if kind == "static_smem":
        return grouped(p.static_smem, 0)
    if kind == "sms":
        return "132"
    if kind == "threads":
        return grouped(p.block * p.grid * p.grid_y, 0)
    if kind == "waves":
        return f"{p.grid * p.grid_y / (132 * max(1, min(p.blk_regs, p.blk_smem, p.blk_warps))):.2f}"
    if kind == "blk_regs":
        return str(p.blk_regs)
    if kind == "blk_smem":
        return str(p.blk_smem)
    if kind == "blk_warps":
        return str(p.blk_warps)
    if kind == "theo_occ":
        return f"{p.theo_occ:.0f}" if p.theo_occ == int(p.theo_occ) else f"{p.theo_occ:.2f}"
    if kind == "ach_occ":
        return f"{p.theo_occ * (0.3 + 0.65 * r()):.2f}"
    if kind == "ach_warps":
        return f"{0.64 * p.theo_occ * (0.3 + 0.65 * r()):.2f}"
    if kind == "insts":
        return grouped(d_us * 132 * 4 * 1000 * (0.05 + r()), 0)
    if kind == "insts_sched":
        return grouped(d_us * 1000 * (0.05 + r()), 2)
    if kind == "warps_sched":
        return f"{16 * r():.2f}"
    if kind == "cpi":
        return f"{4 + 40 * r():.2f}"
    if kind == "threads_warp":
        return f"{24 + 8 * r():.2f}"
    if kind == "sample_interval":
        return "1.50"
    raise ValueError(kind)


def select_metrics(m):
    if m < 1:
        raise SystemExit("--metrics must be at least 1")
    chosen = list(CATALOGUE[:m])
    k = 2
    while len(chosen) < m:  # more metrics than the catalogue: repeat with instance suffixes
        for sec, name, unit, kind in CATALOGUE:
            if len(chosen) == m:
                break
            chosen.append((sec, f"{name} [{k}]", unit, kind))
        k += 1
    if not any(c[1] == "Duration" for c in chosen):
        chosen[min(len(chosen) - 1, 5)] = CATALOGUE[5]
    # the section/metric/unit cells are the same on every row: quote them once
    return [(q(sec) + "," + q(name) + "," + q(unit) + ",", kind) for sec, name, unit, kind in chosen]


def rule_row(rng, p, d_us):
    (section, name, rtype, text, speedup, _newline), = rng.choices(RULES, weights=RULE_WEIGHTS)
    desc = text.format(w=f"{p.grid / 132 / 4:.2f}", g=f"{p.grid:,}", t=f"{p.theo_occ:.1f}",
                       a=f"{p.theo_occ * 0.6:.1f}", b=f"{rng.choice([2.0, 4.0, 8.0, 16.0])}",
                       c=f"{2 + 30 * rng.random():.1f}", aw=f"{16 * rng.random():.2f}",
                       hi=f"{10 + 60 * rng.random():.2f}", lo=f"{10 + 80 * rng.random():.2f}")
    est = (q(rng.choice(["global", "local"])) + "," + q(f"{100 * rng.random():.4g}")) if speedup else '"",""'
    return q(section) + ',"","","",' + q(name) + "," + q(rtype) + "," + q(desc) + "," + est + "\n"


def generate(out, launches, metrics, seed=SEED):
    rng = random.Random(seed)
    pool = build_pool(rng)
    profiles = [Profile(rng, n) for n in pool]
    quoted_names = [q(n) for n in pool]
    # Zipf-like popularity (exponent 1.1: the top kernel gets ~20% of the
    # launches), with shorter names tending to rank higher (GEMMs, norms and
    # Triton kernels dominate real LLM profiles; the very long templates are
    # rarer).  The exponent and the length bias set the average name length,
    # and so the file size: ~10 KB per launch at 40 metrics, ~1 GB at 100k.
    weights = [1.0 / (1 + i) ** 1.1 for i in range(len(pool))]
    order = sorted(range(len(pool)), key=lambda i: len(pool[i]) * math.exp(rng.gauss(0.0, 1.0)))
    cum = []
    acc = 0.0
    for i in order:
        acc += weights[len(cum)]
        cum.append(acc)
    chosen_metrics = select_metrics(metrics)
    pid = "3175044"
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(q(h) for h in HEADER) + "\n")
        buf = []
        for lid in range(launches):
            k = order[_bisect(cum, rng.random() * acc)]
            p = profiles[k]
            d_us = p.base_us * (0.85 + 0.3 * rng.random())
            sm_ghz = 1.755 + 0.225 * rng.random()
            prefix = (f'"{lid}","{pid}","python3","127.0.0.1",{quoted_names[k]},"1","{p.stream}",'
                      f'{p.block_cell},{p.grid_cell},"0","9.0",')
            for cells, kind in chosen_metrics:
                buf.append(prefix + cells + '"' + metric_value(kind, rng, p, d_us, sm_ghz) + '",\n')
            buf.append(prefix + rule_row(rng, p, d_us))
            if len(buf) > 20000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
    os.replace(tmp, out)


def _bisect(cum, x):
    lo, hi = 0, len(cum) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--launches", type=int, default=100000, help="profiled results (IDs 0..N-1)")
    ap.add_argument("--metrics", type=int, default=40, help="metric rows per launch (plus one rule row)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    generate(a.out, a.launches, a.metrics, a.seed)
    size = os.path.getsize(a.out)
    print(f"wrote {a.out}: {a.launches} launches x {a.metrics} metrics, {size:,} bytes ({size / 1e6:.1f} MB)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
