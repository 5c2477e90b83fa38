#!/usr/bin/env python3
"""Checks a profile run folder's region report against what a workload documents.

    check_regions.py nvtx_regions --mode kernel|range RUN_DIR
    check_regions.py tiny_llm_prefill --layers N RUN_DIR

Reads RUN_DIR/ncu/regions/report.json (or RUN_DIR/regions/report.json, an
import's output) and RUN_DIR/kernels.json (stdlib only).
The expected launch counts are those in workloads/*/ *.cu and docs/workloads.md.
Exits 0 when everything matches, 1 with one line per problem otherwise.
"""
import argparse
import collections
import json
import os
import sys

# nvtx_regions at --repeat 1: inclusive kernel launches per region, and the
# launches outside every range.
NVTX_REGIONS = {
    ('A',): {'a_scale_kernel': 12, 'a_mix_kernel': 12, 'a1_square_kernel': 10, 'a1_clamp_kernel': 10},
    ('A', 'A::A1'): {'a1_square_kernel': 10, 'a1_clamp_kernel': 10},
    ('B',): {'b_axpy_kernel': 15, 'b_abs_kernel': 15},
    ('startend',): {'se_fill_kernel': 4},
    ('LLM@decode',): {'decode_step_kernel': 4},
}
NVTX_OUTSIDE = {'warmup_kernel': 1}


def kernel_base(name):
    """'void ns::foo<int>(float *, int)' -> 'foo' (the workloads' kernels are extern "C": 'foo')."""
    name = name.split('(')[0].strip()
    if name.startswith('void '):
        name = name[5:]
    return name.split('<')[0].split('::')[-1].strip()


def region_key(region):
    """The region's path as labels: default-domain ranges by name, others as DOMAIN@name."""
    return tuple(region.get('path') or [region['name']])


def region_kernels(region):
    counts = collections.Counter()
    for k in region.get('kernels', []):
        counts[kernel_base(k['name'])] += int(k['calls'])
    return dict(counts)


def load(run_dir):
    # A profile run folder has ncu/regions/; an import output has regions/.
    path = os.path.join(run_dir, 'ncu', 'regions', 'report.json')
    if not os.path.exists(path):
        path = os.path.join(run_dir, 'regions', 'report.json')
    with open(path) as f:
        report = json.load(f)
    totals = collections.Counter()
    path = os.path.join(run_dir, 'kernels.json')
    if os.path.exists(path):
        with open(path) as f:
            for k in json.load(f).get('kernels', []):
                totals[kernel_base(k['name'])] += int(k['calls'])
    return report, dict(totals)


def dump(report, totals):
    print('regions in report.json:')
    for r in report['regions']:
        print(f"  {' > '.join(region_key(r))}  kind={r.get('kind')} parent={r.get('parent')} "
              f"launches={r.get('kernel_count')} instances={(r.get('instances') or {}).get('count')} "
              f"kernels={region_kernels(r)}")
    print(f"launches_outside_ranges={report.get('launches_outside_ranges')}")
    print(f'kernels.json totals: {totals}')


def check_nvtx_kernel(report, totals, problems):
    regions = {region_key(r): r for r in report['regions']}
    for key, want in NVTX_REGIONS.items():
        r = regions.get(key)
        if r is None:
            problems.append(f"no region {' > '.join(key)}")
            continue
        want_parent = key[-2] if len(key) > 1 else None
        if r.get('parent') != want_parent:
            problems.append(f"region {key[-1]}: parent {r.get('parent')!r}, expected {want_parent!r}")
        got = region_kernels(r)
        if got != want:
            problems.append(f"region {' > '.join(key)}: kernels {got}, expected {want}")
    # Each region kernel runs only inside its region: the run-wide total of
    # every kernel equals its count in its innermost region.
    innermost = {}
    for key in sorted(NVTX_REGIONS, key=len):
        innermost.update(NVTX_REGIONS[key])
    innermost.update(NVTX_OUTSIDE)
    for kernel, n in sorted(innermost.items()):
        if totals.get(kernel) != n:
            problems.append(f'{kernel}: {totals.get(kernel)} launches in the run (kernels.json), expected {n}')
    extra = sorted(set(totals) - set(innermost))
    if extra:
        problems.append(f'unexpected kernels in the run: {extra}')
    outside = report.get('launches_outside_ranges')
    if outside != sum(NVTX_OUTSIDE.values()):
        problems.append(f'launches_outside_ranges is {outside}, expected {sum(NVTX_OUTSIDE.values())} (the warm-up)')


def check_nvtx_range(report, totals, problems):
    regions = {region_key(r): r for r in report['regions']}
    for key in [('A',), ('B',)]:
        r = regions.get(key)
        if r is None:
            problems.append(f'no region {key[0]}')
            continue
        count = (r.get('instances') or {}).get('count')
        if count != 1:
            problems.append(f'region {key[0]}: {count} measured instances, expected 1')
        if not (r.get('total_ms') or 0) > 0:
            problems.append(f"region {key[0]}: total_ms {r.get('total_ms')}, expected > 0")
        if r.get('parent') is not None:
            problems.append(f"region {key[0]}: parent {r.get('parent')!r}, expected none")
    nested = regions.get(('A', 'A::A1'))
    if nested is not None and nested.get('parent') != 'A':
        problems.append(f"region A::A1: parent {nested.get('parent')!r}, expected 'A'")
    allowed = {('A',), ('A', 'A::A1'), ('B',)}
    extra = sorted(set(regions) - allowed)
    if extra:
        problems.append(f'regions outside the include filter [A, B]: {extra}')


def strip_domain(label):
    return label[4:] if label.startswith('LLM@') else label


def check_tiny_llm_prefill(report, totals, problems, layers):
    regions = {tuple(strip_domain(p) for p in region_key(r)): r for r in report['regions']}
    attention = {'rmsnorm_kernel': 1, 'matmul_tiled_kernel': 2, 'kv_append_kernel': 1, 'attention_kernel': 1}
    mlp = {'rmsnorm_kernel': 1, 'matmul_tiled_kernel': 2}
    layer = dict(collections.Counter(attention) + collections.Counter(mlp))
    prefill = collections.Counter({'embed_kernel': 1, 'rmsnorm_kernel': 1, 'lm_head_kernel': 1, 'argmax_kernel': 1})
    for _ in range(layers):
        prefill += collections.Counter(layer)
    want = {('prefill',): dict(prefill)}
    # Two or more layers fold into one region, layer_N, with one instance per
    # layer (pipeline.regions.instance_suffix, docs/regions.md); one stays layer_0.
    def times(counts, n):
        return {k: v * n for k, v in counts.items()}
    base = ('prefill', 'layer_N' if layers > 1 else 'layer_0')
    want[base] = times(layer, layers)
    want[base + ('attention',)] = times(attention, layers)
    want[base + ('mlp',)] = times(mlp, layers)
    want_instances = {base: layers} if layers > 1 else {}
    for key, kernels in want.items():
        r = regions.get(key)
        if r is None:
            problems.append(f"no region {' > '.join(key)}")
            continue
        if r.get('domain') != 'LLM':
            problems.append(f"region {' > '.join(key)}: domain {r.get('domain')!r}, expected 'LLM'")
        got = region_kernels(r)
        if got != kernels:
            problems.append(f"region {' > '.join(key)}: kernels {got}, expected {kernels}")
        if key in want_instances and (r.get('instances') or {}).get('count') != want_instances[key]:
            problems.append(f"region {' > '.join(key)}: instances {r.get('instances')}, expected {want_instances[key]}")
    extra = sorted(set(regions) - set(want))
    if extra:
        problems.append(f'regions outside LLM@prefill/: {extra}')
    if totals != dict(prefill):
        problems.append(f'kernels.json totals {totals}, expected only the prefill launches {dict(prefill)}')
    if report.get('launches_outside_ranges') != 0:
        problems.append(f"launches_outside_ranges is {report.get('launches_outside_ranges')}, expected 0")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('what', choices=['nvtx_regions', 'tiny_llm_prefill'])
    ap.add_argument('run_dir')
    ap.add_argument('--mode', choices=['kernel', 'range'], default='kernel')
    ap.add_argument('--layers', type=int, default=2)
    a = ap.parse_args()
    try:
        report, totals = load(a.run_dir)
    except (OSError, ValueError) as e:
        print(f'cannot read the region report: {e}')
        return 1
    problems = []
    if a.what == 'nvtx_regions':
        (check_nvtx_kernel if a.mode == 'kernel' else check_nvtx_range)(report, totals, problems)
    else:
        check_tiny_llm_prefill(report, totals, problems, a.layers)
    if problems:
        dump(report, totals)
        for p in problems:
            print(f'problem: {p}')
        return 1
    print(f'region report matches ({len(report["regions"])} regions)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
