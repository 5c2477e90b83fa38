#!/usr/bin/python3
"""Checks a trace.json against the Chrome trace event format rules Perfetto relies on.

    check_trace_json.py TRACE.json [--expect-async N] [--expect-flows N] [--expect-api N]

Rules: a JSON object with a traceEvents list; every event has a known ph, a
string name, integer pid and tid, and (metadata aside) a numeric ts; complete
events (X) have dur >= 0 and, per thread, nest (an X that overlaps another
without containing it is dropped by Perfetto); instant events have a scope;
async begin/end (b/e) carry cat and id and pair up one to one, end not before
begin; flow start/finish (s/f) pair by cat, name and id, finish not before
start, each bound to a complete event enclosing it on its thread; metadata
names a process or thread (sort indexes included) with args. Exit 1 with the
list of problems.
"""

import argparse
import collections
import json
import sys

PHASES = set("BEXiIbensftMC")
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index", "process_labels"}


def check(doc):
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not an object with a traceEvents list"], {}
    events = doc["traceEvents"]
    slices = collections.defaultdict(list)  # (pid, tid) -> [(start, end)]
    async_open = {}
    async_pairs = 0
    flows = collections.defaultdict(dict)
    counts = collections.Counter()
    for n, e in enumerate(events):
        where = "event %d (%s)" % (n, json.dumps(e)[:120])
        ph = e.get("ph")
        counts[ph] += 1
        if ph not in PHASES:
            problems.append("%s: unknown ph %r" % (where, ph))
            continue
        if not isinstance(e.get("name"), str):
            problems.append("%s: name missing or not a string" % where)
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int) or isinstance(e.get(key), bool):
                problems.append("%s: %s missing or not an integer" % (where, key))
        if ph == "M":
            if e.get("name") not in META or not isinstance(e.get("args"), dict):
                problems.append("%s: metadata without a known name and args" % where)
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)):
            problems.append("%s: ts missing" % where)
            continue
        thread = (e.get("pid"), e.get("tid"))
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                problems.append("%s: complete event without dur >= 0" % where)
            else:
                slices[thread].append((ts, ts + dur, n))
        elif ph in "iI" and e.get("s", "t") not in ("g", "p", "t"):
            problems.append("%s: instant event scope %r" % (where, e.get("s")))
        elif ph in "be":
            if not isinstance(e.get("cat"), str) or "id" not in e:
                problems.append("%s: async event without cat and id" % where)
                continue
            key = (e["pid"], e["cat"], str(e["id"]))
            if ph == "b":
                if key in async_open:
                    problems.append("%s: async id reused while open" % where)
                async_open[key] = (ts, e["name"])
            else:
                begin = async_open.pop(key, None)
                if begin is None:
                    problems.append("%s: async end without a begin" % where)
                elif begin[0] > ts or begin[1] != e["name"]:
                    problems.append("%s: async end before its begin or under another name" % where)
                else:
                    async_pairs += 1
        elif ph in "sf":
            if "id" not in e or not isinstance(e.get("cat"), str):
                problems.append("%s: flow event without cat and id" % where)
                continue
            key = (e["cat"], e["name"], str(e["id"]))
            if ph in flows[key]:
                problems.append("%s: second flow %s for one id" % (where, ph))
            flows[key][ph] = (ts, thread, n)
    for key in async_open:
        problems.append("async begin %s never ends" % (key,))
    problems += check_nesting(slices)
    flow_pairs = 0
    for key, ends in flows.items():
        if set(ends) != {"s", "f"}:
            problems.append("flow %s has only %s" % (key, sorted(ends)))
            continue
        if ends["s"][0] > ends["f"][0]:
            problems.append("flow %s finishes before it starts" % (key,))
        for ph in "sf":
            ts, thread, n = ends[ph]
            if not any(s <= ts <= end for s, end, _ in slices[thread]):
                problems.append("flow %s %s at %s is inside no slice of its thread" % (key, ph, ts))
        flow_pairs += 1
    stats = {"events": len(events), "phases": dict(counts), "async_pairs": async_pairs, "flows": flow_pairs}
    return problems, stats


def check_nesting(slices):
    problems = []
    for thread, items in slices.items():
        stack = []
        for start, end, n in sorted(items, key=lambda s: (s[0], -s[1], s[2])):
            while stack and stack[-1][1] <= start:
                stack.pop()
            if stack and end > stack[-1][1]:
                problems.append("thread %s: complete events %d and %d overlap without nesting" %
                                (thread, stack[-1][2], n))
            stack.append((start, end, n))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--expect-async", type=int)
    ap.add_argument("--expect-flows", type=int)
    ap.add_argument("--expect-api", type=int)
    args = ap.parse_args()
    with open(args.trace, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))  # strict: invalid UTF-8 fails here
    problems, stats = check(doc)
    api = sum(1 for e in doc.get("traceEvents", []) if e.get("cat") == "cuda_api" and e.get("ph") == "X")
    stats["api_slices"] = api
    for name, want, got in (("async pairs", args.expect_async, stats["async_pairs"]),
                            ("flows", args.expect_flows, stats["flows"]), ("API slices", args.expect_api, api)):
        if want is not None and want != got:
            problems.append("%s: %d, expected %d" % (name, got, want))
    print(json.dumps({"stats": stats, "problems": problems}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
