#!/usr/bin/env python3
"""Writes a synthetic Nsight Compute report (.ncu-rep, format version 7) with
N results, encoding the messages of src/ingest/ncu_rep/ncu_report.proto by
hand (protobuf wire format), for the .ncu-rep import benchmark.

Each result: a kernel name from a small set, grid/block, thread/stream ids,
METRICS metrics (gpu__time_duration.sum plus doubles, uint64s, one string,
one four-element instance list), three rules with messages and speedups, and
an NVTX push/pop stack of two frames. The string table rides in the first
result block's header, as ncu writes it.

Usage: gen_ncu_rep.py --results 10000 [--metrics 200] --out FILE
"""
import argparse
import random
import struct


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def vfield(num, v):
    return varint(num << 3) + varint(v)


def bfield(num, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(num << 3 | 2) + varint(len(b)) + b


def dfield(num, d):
    return varint(num << 3 | 1) + struct.pack("<d", d)


def u32(v):
    return struct.pack("<I", v)


def metric_names(count):
    names = ["gpu__time_duration.sum", "launch__grid_size", "launch__block_size", "device__attribute_display_name",
             "smsp__pcsamp_sample_count"]
    counters = ["dram__bytes", "lts__t_sectors", "sm__cycles_active", "smsp__inst_executed", "l1tex__t_requests"]
    i = 0
    while len(names) < count:
        c = counters[i % len(counters)]
        suffix = ["sum", "avg", "max", "sum.per_second", "avg.pct_of_peak_sustained_elapsed"][(i // 5) % 5]
        names.append(f"{c}_{i}.{suffix}")
        i += 1
    return names


def result(index, names, rng):
    kernel = f"kernel_{index % 37}"
    msg = bytearray()
    for fn, v in ((1, 4242), (2, 100 + 3 * index), (4, index % 37)):
        msg += vfield(fn, v)
    msg += bfield(5, "_Z" + kernel) + bfield(6, kernel) + bfield(7, kernel + "(float*)")
    msg += bfield(10, vfield(1, 128) + vfield(2, 1) + vfield(3, 1))
    msg += bfield(11, vfield(1, 256) + vfield(2, 1) + vfield(3, 1))
    for name_id, name in enumerate(names):
        if name == "gpu__time_duration.sum":
            value = dfield(3, 1000.0 + rng.random() * 1e5)
        elif name.startswith("launch__"):
            value = vfield(5, 128 if "grid" in name else 256)
        elif name.startswith("device__"):
            value = bfield(1, "NVIDIA Synthetic GPU")
        elif name.startswith("smsp__pcsamp"):
            items = b"".join(bfield(3, bfield(1, vfield(5, k)) + bfield(2, vfield(5, rng.randrange(1000))))
                             for k in range(4))
            msg += bfield(13, vfield(1, name_id) + items)
            continue
        else:
            value = dfield(3, rng.random() * 1e6)
        msg += bfield(13, vfield(1, name_id) + bfield(2, value))
    for rule in ("SOLBottleneck", "AchievedOccupancy", "LaunchConfiguration"):
        items = bfield(1, bfield(1, bfield(1, f"{rule} message for result {index}") + vfield(2, 4) + vfield(3, 1)))
        items += bfield(1, bfield(10, vfield(1, 1) + dfield(2, 12.5)))
        msg += bfield(19, bfield(1, rule) + bfield(2, rule) + bfield(3, items) + bfield(4, "SpeedOfLight"))
    stack = bfield(3, bfield(1, "step")) + bfield(3, bfield(1, f"layer_{index % 12}"))
    nvtx = bfield(1, vfield(1, 0) + bfield(2, "<default domain>")) + bfield(2, vfield(1, 4242) + bfield(2, vfield(1, 0) + stack))
    msg += bfield(21, nvtx) + vfield(22, 1) + vfield(23, 7)
    return bytes(msg)


def block(entries, num_results, extra_header=b""):
    payload = b"".join(u32(len(e)) + e for e in entries)
    header = vfield(1, 0) + vfield(2, num_results) + extra_header + vfield(5, len(payload))
    header += bfield(6, vfield(1, 4242) + bfield(2, "127.0.0.1") + bfield(3, "/usr/bin/python3"))
    return u32(len(header)) + header + payload


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, required=True)
    parser.add_argument("--metrics", type=int, default=200)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = random.Random(18)
    names = metric_names(args.metrics)
    table = bfield(4, b"".join(bfield(1, n) for n in names))
    device = bfield(3, bfield(6, vfield(1, 0) + bfield(2, "NVIDIA Synthetic GPU") +
                              bfield(3, bfield(1, "device__attribute_multiprocessor_count") + bfield(2, vfield(5, 132)))))
    with open(args.out, "wb") as out:
        out.write(b"NVR\0" + u32(2) + vfield(1, 7))
        for i in range(args.results):
            out.write(block([result(i, names, rng)], 1, table if i == 0 else b""))
            if i == 0:
                out.write(block([], 0, device))


if __name__ == "__main__":
    main()
