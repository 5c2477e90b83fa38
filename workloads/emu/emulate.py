#!/usr/bin/env python3
"""Builds a bundled workload for the CPU emulation (include/cuda_runtime.h here).

Rewrites `kernel<<<grid, block[, smem[, stream]]>>>(args)` into
`::emu::Launch(kernel, grid, block, smem, args)` and `extern __shared__ T name[];`
into a pointer to the emulated dynamic shared memory, then compiles the result
with the host compiler:

    emulate.py SOURCE.cu OUTPUT_BINARY [--cxx g++]

Only for checking the kernels' logic and the self-checks where there is no
GPU; timings mean nothing. See docs/workloads.md.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def split_top(text):
    """Splits on commas that are not inside (), [], {} or <>."""
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch in '([{<':
            depth += 1
        elif ch in ')]}>':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def rewrite(src):
    src = re.sub(r'extern\s+__shared__\s+(\w+)\s+(\w+)\[\];', r'\1* \2 = ::emu::DynamicShared<\1>();', src)
    out, pos = [], 0
    for m in re.finditer(r'([A-Za-z_][\w:]*)\s*<<<', src):
        if m.start() < pos:
            continue
        end_cfg = src.index('>>>', m.end())
        cfg = split_top(src[m.end():end_cfg])
        i = src.index('(', end_cfg + 3)
        depth, j = 0, i
        while True:
            if src[j] == '(':
                depth += 1
            elif src[j] == ')':
                depth -= 1
                if depth == 0:
                    break
            j += 1
        args = src[i + 1:j].strip()
        grid, block = cfg[0], cfg[1]
        smem = cfg[2] if len(cfg) > 2 else '0'
        call = f'::emu::Launch({m.group(1)}, dim3({grid}), dim3({block}), {smem}'
        call += f', {args})' if args else ')'
        out.append(src[pos:m.start()])
        out.append(call)
        pos = j + 1
    out.append(src[pos:])
    return ''.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('source')
    ap.add_argument('output')
    ap.add_argument('--cxx', default=os.environ.get('CXX', 'g++'))
    ap.add_argument('--cuda-include', default='/usr/local/cuda/include', help='where nvtx3/ is')
    a = ap.parse_args()
    with open(a.source) as f:
        text = rewrite(f.read())
    cc = a.output + '.emu.cc'
    with open(cc, 'w') as f:
        f.write(f'#line 1 "{os.path.abspath(a.source)}"\n' + text)
    common = os.path.join(HERE, '..', 'common')
    cmd = [a.cxx, '-std=c++20', '-O1', '-pthread', '-Wall', '-Wno-unused-function', '-I', os.path.join(HERE, 'include'),
           '-I', common, '-isystem', a.cuda_include, cc, '-o', a.output, '-ldl']
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.exit(r.returncode)


if __name__ == '__main__':
    main()
