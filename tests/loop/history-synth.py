#!/usr/bin/env python3
"""Writes synthetic result sets for the history tests (not a test itself).

history-synth.py OUTDIR N [--step-at K] [--step PCT] [--noise PCT] [--seed S]
                 [--repeats R] [--kernel K] [--host H] [--second PCT] [--minute M]
OUTDIR/runNN/result.json for NN = 01..N: one variant "ext4", seq's
block_write around 100000 KB/s with NOISE% Gaussian noise per repeat,
stepping by PCT% from run K (1-based) on; one minute apart (from minute M).
--second PCT: a second variant "xfs", PCT% off the first.
"""
import argparse, json, os, random

p = argparse.ArgumentParser()
p.add_argument("out"); p.add_argument("n", type=int)
p.add_argument("--step-at", type=int, default=0); p.add_argument("--step", type=float, default=10)
p.add_argument("--noise", type=float, default=2); p.add_argument("--seed", type=int, default=1)
p.add_argument("--repeats", type=int, default=3); p.add_argument("--kernel", default="6.1.0-test")
p.add_argument("--host", default="synth")
p.add_argument("--second", type=float, default=None); p.add_argument("--minute", type=int, default=0)
a = p.parse_args()
rng = random.Random(a.seed)
def repeats(level):
    reps = []
    for k in range(a.repeats):
        v = level * (1 + a.noise / 100 * rng.gauss(0, 1))
        reps.append({"index": k, "started": "2026-11-01T00:%02d:%02dZ" % (a.minute + i, k),
                     "workloads": [{"workload": "seq", "spec": "seq", "flags": [],
                                    "metrics": [{"name": "block_write", "unit": "KB/s",
                                                 "better": "higher", "value": v,
                                                 "label": "Sequential Output Block",
                                                 "headline": True, "phase": "block write"}],
                                    "latency": []}]})
    return reps
for i in range(1, a.n + 1):
    level = 100000 * (1 + a.step / 100 if a.step_at and i >= a.step_at else 1)
    reps = repeats(level)
    rs = {"format": "stackbench-result", "version": 2, "tool_version": "test",
          "created": "2026-11-01T00:%02d:00Z" % (a.minute + i), "command": "run",
          "host": {"hostname": a.host, "kernel": a.kernel, "cpu": "Test CPU", "ncpu": 2,
                   "ram_bytes": 4294967296, "arch": "x86_64"},
          "profile": {"name": "synthetic", "values": {"fs.type": "ext4", "workloads.run": ["seq"]},
                      "variants": [{"name": "ext4", "values": {"fs.type": "ext4"}}],
                      "loop": True, "quick": True},
          "target": None,
          "devices": [{"name": "loop0", "model": None, "serial": None, "size": 335544320,
                       "transport": "loop", "rotational": False}],
          "tools": {}, "variants": [{"name": "ext4", "params": {"fs.type": "ext4"},
                                     "repeats": reps}]}
    if a.second is not None:
        rs["profile"]["variants"].append({"name": "xfs", "values": {"fs.type": "xfs"}})
        rs["variants"].append({"name": "xfs", "params": {"fs.type": "xfs"},
                               "repeats": repeats(level * (1 + a.second / 100))})
    d = os.path.join(a.out, "run%02d" % i)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "result.json"), "w") as f:
        json.dump(rs, f, indent=2)
        f.write("\n")
