#!/usr/bin/env python3
"""Write a synthetic `nsys export --type sqlite` database.

Only the tables and columns that matter to kernel and NVTX import are made,
with the column sets of the 2023.x exports (docs "C.6"):

  StringIds(id, value)                      interned strings
  CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId,
      correlationId, globalPid, demangledName, shortName, mangledName, ...)
                                            names are StringIds ids
  NVTX_EVENTS(start, end, eventType, rangeId, category, color, text,
      globalTid, endGlobalTid, textId, domainId, payload columns)
                                            eventType 59 push/pop ranges,
                                            plus one 75 DomainCreate
  PROCESSES(globalPid, pid, name)
  META_DATA_EXPORT(name, value)
  CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid,
      correlationId, nameId, returnValue, callchainId)
                                            with --runtime only: one
                                            cudaLaunchKernel_v7000 call per
                                            kernel, on the NVTX thread, just
                                            before its kernel, so kernels can
                                            be attributed to ranges

The timeline models LLM decode steps: each step is a push/pop range holding
one range per layer, each holding an "attention" and an "mlp" range, and the
kernels are spread evenly over the innermost ranges.  Fixed seed, so the
same arguments give the same rows (the file bytes may differ across SQLite
versions).

    python3 bench/gen_nsys_sqlite.py --kernels 1000000 --ranges 100000 --out report.sqlite
"""

import argparse
import math
import os
import random
import sqlite3
import sys

SEED = 20240612
LAYERS = 16
PUSH_POP = 59
DOMAIN_CREATE = 75

SCHEMA = """
CREATE TABLE StringIds (
    id      INTEGER NOT NULL PRIMARY KEY,
    value   TEXT    NOT NULL
);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
    streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
    shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
    registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
    blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
    staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER
);
CREATE TABLE NVTX_EVENTS (
    start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER,
    color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
    uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
    floatValue REAL, jsonTextId INTEGER, jsonText TEXT
);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
"""
RUNTIME_SCHEMA = """
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
    correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER
);
"""
RUNTIME_EVENT_CLASS = 0  # as the 2023.x exports write it for CUDA runtime calls

# (demangled template, short name, mangled prefix, part) -- part says in
# which range of a layer the kernel runs ("attn", "mlp") or "step" for the
# per-step kernels.
FAMILIES = [
    ("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, {i}>(T1 *, T1 *, const T1 *, float, int, int)",
     "fused_add_rms_norm_kernel", "_ZN4vllm25fused_add_rms_norm_kernel", "attn"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize{i}x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_cublas", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize{i}x128x64_warpgroupsize1x1x1_"
     "execute_segment_k_off_kernel__5x_cublas", None, "attn"),
    ("void vllm::rotary_embedding_kernel<c10::BFloat16, {b}>(const long *, T1 *, T1 *, const T1 *, int, long, "
     "long, int, int, int) [variant {i}]", "rotary_embedding_kernel", "_ZN4vllm23rotary_embedding_kernel", "attn"),
    ("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType){i}>("
     "const T1 *, const T1 *, T2 *, T2 *, const long *, int, int, int, int, int, int, const float *, "
     "const float *)", "reshape_and_cache_flash_kernel", "_ZN4vllm30reshape_and_cache_flash_kernel", "attn"),
    ("void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<{i}, 64, 128, 4, false, false, "
     "cutlass::bfloat16_t, Flash_kernel_traits<{i}, 64, 128, 4, cutlass::bfloat16_t>>, false, true, false, false, "
     "{b}, true, false, false>(Flash_fwd_params)", "flash_fwd_splitkv_kernel", "_ZN5flash24flash_fwd_splitkv_kernel",
     "attn"),
    ("void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2, {i}, 8, 16, 1, 4, "
     "flashinfer::DefaultAttention<false, false, false, false>>(flashinfer::BatchDecodeParams<__nv_bfloat16, "
     "__nv_bfloat16, __nv_bfloat16, int>)", "BatchDecodeWithPagedKVCacheKernel",
     "_ZN10flashinfer33BatchDecodeWithPagedKVCacheKernel", "attn"),
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_{i}x128_64x3_tn_align8>(T1::Params)",
     "Kernel2", "_ZN7cutlass7Kernel2I", "mlp"),
    ("void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, {b}>(T1 *, const T1 *, "
     "int) [variant {i}]", "act_and_mul_kernel", "_ZN4vllm18act_and_mul_kernel", "mlp"),
    ("void at::native::vectorized_elementwise_kernel<{i}, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "std::array<char *, 3>>(int, T2, T3)", "vectorized_elementwise_kernel",
     "_ZN2at6native29vectorized_elementwise_kernel", "mlp"),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *) [channel {i}]",
     "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "_Z40ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "mlp"),
    ("triton_poi_fused_add_mul_{i}", "triton_poi_fused_add_mul_{i}", None, "mlp"),
    ("void at::native::<unnamed>::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, (int)-2, {b}>("
     "at::cuda::detail::TensorInfo<T1, T3>, at::cuda::detail::TensorInfo<const T1, T3>, "
     "at::cuda::detail::TensorInfo<const T2, T3>, int, int, T3, T3, long) [variant {i}]", "indexSelectLargeIndex",
     "_ZN2at6native12_GLOBAL__N_121indexSelectLargeIndex", "step"),
    ("void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024, (cub::CUB_200200_800_900_NS::"
     "BlockScanAlgorithm){i}, (cub::CUB_200200_800_900_NS::BlockReduceAlgorithm)1, 4, {b}, float, int>(float *, "
     "float *, float *, T6 *, T6 *, float, float, unsigned int, unsigned long, unsigned long)",
     "TopKTopPSamplingFromProbKernel", "_ZN10flashinfer8sampling30TopKTopPSamplingFromProbKernel", "step"),
]
VARIANTS = 16  # 13 families x 16 variants = 208 kernel names


def build_strings(rng):
    strings = ["[Unknown]", "[kernel.kallsyms]", "[Max depth]", "[Broken backtraces]", "[Called from Java]"]

    def intern(s):
        strings.append(s)
        return len(strings) - 1

    kernels = {"attn": [], "mlp": [], "step": []}
    for demangled, short, mangled, part in FAMILIES:
        for v in range(VARIANTS):
            i = [64, 128, 256, 1, 2, 4, 8, 16, 32, 3, 5, 6, 7, 9, 10, 11][v] if "{i}" in demangled else v
            b = "true" if v % 2 else "false"
            d = demangled.format(i=i, b=b)
            sid = intern(short.format(i=i, b=b))
            did = intern(d)
            mid = intern(f"{mangled}ILi{i}EEvPT_S2_{v}") if mangled else None
            base_ns = int(math.exp(rng.uniform(math.log(2000), math.log(400000))))
            kernels[part].append((did, sid, mid, base_ns, rng.choice([128, 256, 512]), rng.choice([1, 66, 132, 528]),
                                  rng.choice([32, 64, 96, 128, 168])))
    layer_ids = [intern(f"model.layers.{i}") for i in range(LAYERS)]
    attn_id = intern("self_attn")
    mlp_id = intern("mlp")
    return strings, kernels, layer_ids, attn_id, mlp_id


def generate(out, n_kernels, n_ranges, seed=SEED, runtime=False):
    rng = random.Random(seed)
    strings, kernels, layer_ids, attn_id, mlp_id = build_strings(rng)
    launch_name_id = len(strings)
    if runtime:  # appended last, so an export without the table keeps every other string's id
        strings.append("cudaLaunchKernel_v7000")
    pid = 2381764
    global_pid = (1 << 48) | (pid << 24)  # hwId/vmId bits | PID << 24
    tid = global_pid | (pid & 0xFFFFFF)
    per_step = 1 + LAYERS * 3  # step range + (layer, attn, mlp) per layer
    steps = max(1, math.ceil(n_ranges / per_step))
    leaves = steps * (LAYERS * 2 + 1)  # kernel groups: attn + mlp per layer, one per step (sampling)
    weights = {part: [1.0 / (1 + i) ** 0.7 for i in range(len(ks))] for part, ks in kernels.items()}

    tmp = out + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.executescript(SCHEMA + (RUNTIME_SCHEMA if runtime else ""))
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", enumerate(strings))
    db.executemany("INSERT INTO PROCESSES VALUES (?, ?, ?)", [
        (global_pid, pid, "python3"), ((1 << 48) | (2381700 << 24), 2381700, "sh"),
        ((1 << 48) | (2381790 << 24), 2381790, "nvidia-smi")])
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", [
        ("EXPORT_SCHEMA_VERSION", "3.11.0"), ("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"),
        ("EXPORT_PRODUCT_VERSION", "2023.3.1.92"), ("EXPORT_GENERATOR", "llm-perf-opt bench/gen_nsys_sqlite.py")])

    kernel_rows = []
    runtime_rows = []
    nvtx_rows = [(1_000_000, None, DOMAIN_CREATE, None, None, None, "sglang", tid, None, None, 1) + (None,) * 8]
    t = 2_000_000_000  # ns since session start
    corr = 1000
    grid_id = 0
    leaf = 0
    emitted_kernels = 0
    ranges_left = n_ranges

    def nvtx(start, end, text, text_id, domain, color):
        return (start, end, PUSH_POP, None, None, color, text, tid, None, text_id, domain) + (None,) * 8

    def group_size():
        nonlocal leaf
        leaf += 1
        return n_kernels // leaves + (1 if leaf - 1 < n_kernels % leaves else 0)

    def launch(part, count):
        nonlocal t, corr, grid_id, emitted_kernels
        first = None
        ks = kernels[part]
        for k in rng.choices(range(len(ks)), weights=weights[part], k=count):
            did, sid, mid, base_ns, block, grid, regs = ks[k]
            t += 1500 + int(rng.random() * 4000)  # launch gap
            dur = int(base_ns * (0.85 + 0.3 * rng.random()))
            corr += 1 + (rng.random() < 0.3)
            grid_id += 1
            kernel_rows.append((t, t + dur, 0, 1, 7 if part != "step" else 13, corr, global_pid, did, sid, mid,
                                3, 0, regs, grid, 1, 1, block, 1, 1, 0, 0, 0, 0, grid_id, 0, None, 0))
            if runtime:  # the launch call ends before its kernel starts, inside the same ranges
                runtime_rows.append((t - 1200, t - 200, RUNTIME_EVENT_CLASS, tid, corr, launch_name_id, 0, None))
            if first is None:
                first = t
            t += dur
        emitted_kernels += count
        return first if first is not None else t, t

    for s in range(steps):
        step_start = t
        step_ranges = []
        t += 20_000
        for layer in range(LAYERS):
            layer_start = t
            t += 5_000
            part_ranges = []
            for part, text_id in (("attn", attn_id), ("mlp", mlp_id)):
                r0 = t
                launch(part, group_size())
                t += 3_000
                part_ranges.append(nvtx(r0, t, None, text_id, 1, 0xFF0071C5))
            t += 5_000
            step_ranges.append(nvtx(layer_start, t, None, layer_ids[layer], 1, 0xFF76B900))
            step_ranges.extend(part_ranges)
        launch("step", group_size())  # sampling, outside the layers
        t += 20_000
        step_ranges.insert(0, nvtx(step_start, t, f"decode step {s}", None, 0, 0xFFFF8800))
        take = min(ranges_left, len(step_ranges))
        nvtx_rows.extend(step_ranges[:take])  # outermost first: a cut leaves whole parents
        ranges_left -= take
        t += 50_000
        if len(kernel_rows) > 200_000:
            db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + ",".join("?" * 27) + ")",
                           kernel_rows)
            kernel_rows.clear()
            insert_runtime(db, runtime_rows)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + ",".join("?" * 27) + ")", kernel_rows)
    insert_runtime(db, runtime_rows)
    # nsys writes rows in start order; push/pop ranges are recorded at pop
    # time, so sort to look like an export
    nvtx_rows.sort(key=lambda r: (r[0], -(r[1] or 0)))
    assert len(nvtx_rows) == n_ranges + 1, (len(nvtx_rows), n_ranges)
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (" + ",".join("?" * 19) + ")", nvtx_rows)
    db.commit()
    db.close()
    assert emitted_kernels == n_kernels, (emitted_kernels, n_kernels)
    os.replace(tmp, out)


def insert_runtime(db, rows):
    if rows:
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        rows.clear()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", type=int, default=1_000_000, help="rows in CUPTI_ACTIVITY_KIND_KERNEL")
    ap.add_argument("--ranges", type=int, default=100_000, help="push/pop ranges in NVTX_EVENTS")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--runtime", action="store_true", help="also a CUDA API table: every kernel's launch call")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    generate(a.out, a.kernels, a.ranges, a.seed, a.runtime)
    size = os.path.getsize(a.out)
    print(f"wrote {a.out}: {a.kernels} kernels, {a.ranges} NVTX ranges, {size:,} bytes ({size / 1e6:.1f} MB)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
