#!/usr/bin/env python3
"""Checks isobench's iteration traces (isobench-iteration-trace.json, docs/model-workloads.md).

Two checks per file: the Chrome Trace Event format's schema (tests/data/trace/chrome_trace.schema.json,
through the jsonschema package when it is installed), and the structure isobench promises: exactly
one iteration slice, every flow arrow with one start and one end, every complete event inside the
iteration's host window or on the GPU.

    tools/check_trace.py [--require-schema] TRACE... [--reject BAD_TRACE]...

Exit 0 when every TRACE passes and every BAD_TRACE fails a check, 1 otherwise, 2 when
--require-schema is given and jsonschema is missing (CI installs it: scripts/install-deps.sh).
"""

import argparse
import collections
import json
import pathlib
import sys

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "trace" / "chrome_trace.schema.json"


def schema_problems(trace, validator):
    if validator is None:
        return []
    return [f"schema: {'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
            for e in sorted(validator.iter_errors(trace), key=lambda e: list(map(str, e.absolute_path)))][:5]


def structure_problems(trace):
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["structure: no traceEvents array"]
    events = [e for e in trace["traceEvents"] if isinstance(e, dict)]
    problems = []
    iterations = [e for e in events if e.get("ph") == "X" and e.get("cat") == "iteration"]
    if len(iterations) != 1:
        problems.append(f"structure: {len(iterations)} iteration slices, not exactly one")
    flows = collections.defaultdict(lambda: {"s": 0, "f": 0})
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows[e.get("id")][e["ph"]] += 1
    for flow, ends in sorted(flows.items(), key=lambda kv: str(kv[0])):
        if ends != {"s": 1, "f": 1}:
            problems.append(f"structure: flow {flow} has {ends['s']} start(s) and {ends['f']} end(s)")
    if len(iterations) == 1:
        host_pid = iterations[0].get("pid")
        end = iterations[0].get("ts", 0) + iterations[0].get("dur", 0)
        for e in events:
            # Host API calls start inside the iteration (GPU work may run past its end).
            if e.get("ph") == "X" and e.get("pid") == host_pid and not 0 <= e.get("ts", 0) <= end:
                problems.append(f"structure: host event {e.get('name')} at {e.get('ts')} us lies outside the iteration")
    return problems[:5]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="*", type=pathlib.Path)
    parser.add_argument("--reject", action="append", default=[], type=pathlib.Path,
                        help="a trace that must fail a check (shows that the checks can fail)")
    parser.add_argument("--require-schema", action="store_true",
                        help="fail (exit 2) when the jsonschema package is missing instead of checking the structure only")
    args = parser.parse_args()
    try:
        import jsonschema
        validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    except ImportError:
        if args.require_schema:
            print("check_trace: the jsonschema package is missing (pip install jsonschema, or Debian's python3-jsonschema)")
            return 2
        print("check_trace: jsonschema is not installed: the structure is checked, not the schema")
        validator = None
    failed = False
    for path, expect_ok in [(p, True) for p in args.traces] + [(p, False) for p in args.reject]:
        try:
            trace = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read it as JSON: {e}")
            failed = True
            continue
        problems = schema_problems(trace, validator) + structure_problems(trace)
        if expect_ok and problems:
            failed = True
            print(f"{path}: FAILS")
            for p in problems:
                print(f"  {p}")
        elif not expect_ok and not problems:
            failed = True
            print(f"{path}: passes, but it is a broken trace that must fail")
        else:
            events = len(trace.get("traceEvents", [])) if isinstance(trace, dict) else 0
            print(f"{path}: {'ok' if expect_ok else 'rejected as it must be'} ({events} events)"
                  + ("" if expect_ok else f": {problems[0]}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
