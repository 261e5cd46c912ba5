# %% [markdown]
# # The method, step by step, on one job
#
# The five steps of docs/methodology.md with trainscope's Python module:
# macro distribution, log-log duration density, timeline panorama,
# fingerprints (motifs), root-cause portrait. Cells are `# %%` blocks (the
# "percent" notebook format: VS Code and JupyterLab with jupytext open this
# file as a notebook); `python3 examples/method_walkthrough.py JOB OUTDIR`
# runs them all and writes the pictures to OUTDIR.
#
# JOB defaults to build/demo-job (written by scripts/demo.sh).

# %%
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # files, not windows: also runs where there is no display
import matplotlib.pyplot as plt
from matplotlib.patches import Patch
import numpy as np

import trainscope

JOB = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/demo-job")
OUT = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "build/walkthrough")
OUT.mkdir(parents=True, exist_ok=True)

job = trainscope.analyze(JOB)
rank = job.ranks[0]["rank"]
step = job.selected_step(rank)
kernels = job.kernels(rank=rank, step=step)
print(f"{job!r}; rank {rank}, step {step}: {len(kernels)} device tasks")

# %% [markdown]
# ## 1. Macro distribution: counts, quantiles and families

# %%
compute = kernels[kernels["kind"] == "compute"]
durations_us = compute["duration_ns"].to_numpy() / 1000.0
quantiles = np.percentile(durations_us, [50, 90, 99]) if len(durations_us) else [np.nan] * 3
print(f"compute kernels: {len(compute)}; p50 {quantiles[0]:.1f} us, p90 {quantiles[1]:.1f} us, "
      f"p99 {quantiles[2]:.1f} us")
by_family = (compute.groupby("family", observed=True)["duration_ns"]
             .agg(["count", "sum"]).sort_values("sum", ascending=False))
by_family["share"] = by_family["sum"] / by_family["sum"].sum()
print(by_family.head(10))

# %% [markdown]
# ## 2. Log-log duration density: many tiny kernels are the unfused code's signature

# %%
figure, axis = plt.subplots(figsize=(7, 4))
positive = durations_us[durations_us > 0]
if len(positive):
    bins = np.logspace(np.log10(positive.min()), np.log10(positive.max()) + 1e-9, 40)
    axis.hist(positive, bins=bins)
axis.set_xscale("log")
axis.set_yscale("log")
axis.set_xlabel("kernel duration (us)")
axis.set_ylabel("kernels")
axis.set_title(f"rank {rank}, step {step}: duration density")
figure.savefig(OUT / "density.png", dpi=100, bbox_inches="tight")
plt.close(figure)

# %% [markdown]
# ## 3. Timeline panorama: compute, communication and free time per rank

# %%
all_ranks = job.kernels(step=step)
figure, axis = plt.subplots(figsize=(9, 0.5 + 0.4 * all_ranks["rank"].nunique()))
colours = {"compute": "tab:blue", "communication": "tab:orange", "memcpy": "tab:green",
           "memset": "tab:gray"}
origin = all_ranks["start_ns"].min() if len(all_ranks) else 0
for kind, colour in colours.items():
    part = all_ranks[all_ranks["kind"] == kind]
    for r, rows in part.groupby("rank"):
        axis.broken_barh(list(zip((rows["start_ns"] - origin) / 1e6, rows["duration_ns"] / 1e6)),
                         (r - 0.4, 0.8), facecolors=colour)
axis.set_xlabel("ms from the step's first task (free time is what stays white)")
axis.set_ylabel("rank")
axis.legend(handles=[Patch(color=c, label=k) for k, c in colours.items()], loc="upper right",
            fontsize="small")
figure.savefig(OUT / "panorama.png", dpi=100, bbox_inches="tight")
plt.close(figure)
for entry in job.ranks:
    breakdown = next((s.get("breakdown") for s in entry["steps"] if s["step"] == step), None)
    if breakdown:
        print(f"rank {entry['rank']}: " + ", ".join(
            f"{k} {v:.0f} us" for k, v in breakdown.items()
            if k.endswith("_us") and isinstance(v, (int, float))))

# %% [markdown]
# ## 4. Fingerprints: periodic kernel chains matched to known unfused patterns

# %%
motifs = job.motifs
if len(motifs):
    columns = [c for c in ("rank", "step", "pattern", "occurrences", "total_us", "source")
               if c in motifs.columns]
    print(motifs[columns].head(10).to_string())

# %% [markdown]
# ## 5. Root-cause portrait: findings ranked by expected gain

# %%
for finding in job.findings[:10]:
    gain = finding.get("estimated_gain_pct")
    gain_text = "n/a" if gain is None else f"{gain:5.1f}%"
    print(f"{gain_text}  {finding['title']}  ({finding['id']})")
if job.projection:
    print("all findings applied:", job.projection)
