#!/usr/bin/env python3
"""Replay accuracy on synth twins (docs/clusters.md §3c, issue 51 item 5).

For each planted cause, writes the synth job with it and its twin without it
(the same seed), analyses both, and compares what the replay predicts for the
remedy (a finding's own replay, or the path's what-if) with the twin's
measured span. Prints a Markdown table; errors are shares of the planted
job's measured span.

Usage: scripts/replay_accuracy.py [--bin TRAINSCOPE] [--out DIR] [--ranks 8]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ALL = ["rmsnorm", "gated-norm", "swiglu", "cross-entropy", "custom-op", "unshard", "numa",
       "optimizer"]


def without(*names):
    return ",".join(r for r in ALL if r not in names)


# (label, planted job's synth options, the remedy's what-if: a finding id,
#  "all" for every replayed finding together, or a change's text prefix,
#  and options both the planted job and its twin take: --trace-view where the
#  cause is on the host)
HOST = ["--trace-view"]
CASES = [
    ("unfused RMSNorm", ["--fused", without("rmsnorm")], "unfused-rmsnorm"),
    ("unfused gated norm", ["--fused", without("gated-norm")], "unfused-gated-norm"),
    ("unfused SwiGLU", ["--fused", without("swiglu")], "unfused-swiglu"),
    ("unfused cross-entropy", ["--fused", without("cross-entropy")], "unfused-cross-entropy"),
    ("glue around a custom op", ["--fused", without("custom-op")], "glue-around-custom-op"),
    ("unshard on its own stream, not prefetched", ["--fused", without("unshard")],
     "pseudo-overlap"),
    ("unbound ranks (NUMA)", ["--fused", without("numa")], "step-start-skew"),
    ("late rank 5, 25 ms", ["--fused", without(), "--late-rank", "5", "--late-ms", "25"],
     "straggler-rank"),
    ("straggler rank 3", ["--fused", without(), "--straggler-rank", "3"], "straggler-rank"),
    ("slow link 0 -> 1 at 10% bandwidth", ["--fused", without(), "--slow-link"], "slow-link"),
    ("one GEMM shape 3x slower (MatMulV3 4096,2048;2048,6144)",
     ["--fused", without(), "--slow-op", "MatMulV3@4096,2048;2048,6144:3"], "slow-matmul-shape"),
    ("host-bound rank 3, a kernel per 200 us (host traced)",
     ["--fused", without(), "--host-bound-rank", "3"], "host-bound", HOST),
    ("late rank 5, 25 ms in its data loader (host traced)",
     ["--fused", without(), "--late-rank", "5", "--late-ms", "25"], "input-bound", HOST),
    ("every pattern above but the late rank and straggler", [], "all"),
]


def analyze(binary, out, name, options, base_options):
    job = os.path.join(out, name)
    if not os.path.exists(os.path.join(job, "ground_truth.json")):
        subprocess.run([binary, "synth", "-o", job] + base_options + options, check=True,
                       stdout=subprocess.DEVNULL)
    result = subprocess.run([binary, "analyze", job, "--json", "-"], check=True,
                            capture_output=True, text=True)
    return json.loads(result.stdout)


def remedy(path, key):
    """The what-if of finding |key|, else the path's change that starts with it."""
    for w in path["what_if"]:
        if w.get("finding") == key:
            return w
    for w in path["what_if"]:
        if not w.get("finding") and w["change"].startswith(key):
            return w
    return None


def estimate(job, key):
    """The finding's (or, for "all", the projection's) gain without the replay, % of the step."""
    if key == "all":
        return None
    for f in job["findings"]:
        if f["id"] == key:
            m = re.search(r"estimated without the replay: ([0-9.]+)%", f["gain_model"])
            return float(m.group(1)) if m else f["estimated_gain_pct"]
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="build/ci/src/cli/trainscope")
    parser.add_argument("--out", default="build/replay-accuracy")
    parser.add_argument("--ranks", default="8")
    args = parser.parse_args()
    base = ["--ranks", args.ranks, "--layers", "2", "--steps", "3", "--seed", "1"]
    twin_spans = {}

    def twin_span_of(shared):
        key = " ".join(shared)
        if key not in twin_spans:
            name = "twin" + "".join(o.replace("--", "-") for o in shared)
            twin = analyze(args.bin, args.out, name, ["--fused", without()] + shared, base)
            twin_spans[key] = twin["cluster"]["critical_path"]["span_us"]
        return twin_spans[key]

    print(f"| planted (synth `{' '.join(base)}`) | measured span | change replayed | predicted |"
          f" the twin (every remedy), measured | error, % of the step |"
          f" the detector's own estimate: predicted, error |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    for label, options, key, *rest in CASES:
        shared = rest[0] if rest else []
        twin_span = twin_span_of(shared)
        options = options + shared
        name = "planted-" + "-".join(o.strip("-") for o in options) if options else "unfused"
        name = name.replace(without(), "all")
        job = analyze(args.bin, args.out, name, options, base)
        path = job["cluster"]["critical_path"]
        w = remedy(path, key)
        span = path["span_us"]
        if w is None:
            print(f"| {label} | {span / 1e3:.1f} ms | {key}: not replayed | n/a |"
                  f" {twin_span / 1e3:.1f} ms | n/a | |")
            continue
        error = abs(w["predicted_us"] - twin_span) / span * 100
        worst = max(worst, error)
        own = estimate(job, key)
        own_text = "n/a"
        if own is not None:
            own_predicted = span * (1 - own / 100)
            own_text = (f"{own_predicted / 1e3:.1f} ms,"
                        f" {abs(own_predicted - twin_span) / span * 100:.1f}%")
        print(f"| {label} | {span / 1e3:.1f} ms | {w['change']} | {w['predicted_us'] / 1e3:.1f} ms |"
              f" {twin_span / 1e3:.1f} ms | {error:.1f}% | {own_text} |")
    # The demo (8 ranks, its own default size) against its twin with every remedy.
    demo_dir = os.path.join(args.out, "demo")
    if not os.path.exists(os.path.join(demo_dir, "ground_truth.json")):
        subprocess.run([args.bin, "demo", "--ranks", "8", "--out", demo_dir], check=True,
                       stdout=subprocess.DEVNULL)
    demo = json.loads(subprocess.run([args.bin, "analyze", demo_dir, "--json", "-"], check=True,
                                     capture_output=True, text=True).stdout)
    demo_twin = analyze(args.bin, args.out, "demo-twin", ["--fused", without()],
                        ["--ranks", "8", "--seed", "1"])
    path = demo["cluster"]["critical_path"]
    w = remedy(path, "all")
    twin_span = demo_twin["cluster"]["critical_path"]["span_us"]
    span = path["span_us"]
    error = abs(w["predicted_us"] - twin_span) / span * 100
    worst = max(worst, error)
    print(f"| `trainscope demo --ranks 8` (every pattern, 8 layers) | {span / 1e3:.1f} ms |"
          f" {w['change']} | {w['predicted_us'] / 1e3:.1f} ms | {twin_span / 1e3:.1f} ms |"
          f" {error:.1f}% | n/a |")
    print(f"\nworst error: {worst:.1f}% of the step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
