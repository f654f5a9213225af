#!/usr/bin/env python3
# Builds a fake root for `STACKBENCH_PROBE_ROOT` from a .tree file (format in
# capture.sh). Usage: mktree.py TREE ROOTDIR. Needs no root: device nodes
# are image files, made with mkfs.ext4 when the line asks for a file system.
import os
import subprocess
import sys

tree, root = sys.argv[1], sys.argv[2]


def at(p):
    return os.path.join(root, p.lstrip("/"))


for n, line in enumerate(open(tree), 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    kind, _, rest = line.partition(" ")
    path, _, value = rest.partition(" ")
    if kind in ("d", "f", "a", "img", "l"):
        os.makedirs(os.path.dirname(at(path)), exist_ok=True)
    if kind == "d":
        os.makedirs(at(path), exist_ok=True)
    elif kind == "f":
        with open(at(path), "w") as f:
            f.write(value + "\n" if value else "")
    elif kind == "a":
        with open(at(path), "a") as f:
            f.write(value + "\n")
    elif kind == "l":
        os.symlink(value, at(path))
    elif kind == "img":
        size, fstype, *args = value.split()
        subprocess.run(["truncate", "-s", size, at(path)], check=True)
        if fstype == "ext4":
            label, uuid = args
            subprocess.run(["mkfs.ext4", "-q", "-F", "-L", label, "-U", uuid, at(path)],
                           check=True, stdin=subprocess.DEVNULL)
        elif fstype != "none":
            sys.exit(f"{tree}:{n}: unknown image type '{fstype}', expected ext4 or none")
    else:
        sys.exit(f"{tree}:{n}: unknown line kind '{kind}', expected d, f, a, l or img")
