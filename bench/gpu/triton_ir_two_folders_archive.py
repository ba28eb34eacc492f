"""artifacts.json for each pair that bench/gpu/triton_ir_two_folders.sh captured on the H200, as
the orchestrator's archive writes it (schema 1: per side, per instance, its folder and its files
with bytes and sha256), so that `orchestrate ir-diff TF/<pair> INSTANCE` reads the pair as an A/B
run (side 0 the baseline).

    python3 bench/gpu/triton_ir_two_folders_archive.py TF     (TF: tf.tar.gz unpacked)
"""
import hashlib
import json
import os
import sys

IDS = {"softmax": "triton_softmax[rows=4096,cols=4096,dtype=bf16]",
       "layer_norm": "triton_layer_norm[rows=4096,hidden=4096,dtype=bf16]"}

root = sys.argv[1]
for pair in ("same", "moved", "real"):
    sides = []
    for side in (0, 1):
        instances = {}
        for short, instance in IDS.items():
            rel = "artifacts/side-%d/%s" % (side, short)
            folder = os.path.join(root, pair, rel)
            files = []
            for dirpath, _, names in os.walk(folder):
                for name in names:
                    path = os.path.join(dirpath, name)
                    with open(path, "rb") as f:
                        data = f.read()
                    files.append({"path": os.path.relpath(path, folder).replace(os.sep, "/"), "bytes": len(data),
                                  "sha256": hashlib.sha256(data).hexdigest()})
            instances[instance] = {"folder": rel, "files": sorted(files, key=lambda f: f["path"])}
        sides.append({"side": side, "instances": instances})
    with open(os.path.join(root, pair, "artifacts.json"), "w") as f:
        json.dump({"schema_version": 1, "sides": sides}, f, indent=1)
