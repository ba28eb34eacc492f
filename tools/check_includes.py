#!/usr/bin/env python3
"""Cycles between the rooms of orchestrator/: each folder is a room, the folder's own files (not
its subfolders') are in it, and one room depends on another when a file of it includes a file of
the other. A header beside a folder of its name (orchestrator/sweep.hpp beside orchestrator/sweep/)
is that folder's face, in its room. Dependencies point one way (README.md, "Layout"): a room may include a
room above it (orchestrator/ itself holds the shared vocabulary: plans, run directories, errors)
only when that room does not depend on it in turn, and no two rooms may include each other
through any chain.

Includes are read as the compiler finds them: "orchestrator/run/run.hpp" from the repository
root, "slurm_run.hpp" or "commands/run_command.hpp" beside the including file. Includes of other
folders (stats/, ipc/, kernels/) and of libraries are not the orchestrator's rooms.

Prints every cycle (its rooms, and one include for each of its edges) and exits 1; prints nothing
and exits 0 when the rooms form no cycle.

    tools/check_includes.py [--root REPO] [--top orchestrator] [--graph]
"""
import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def source_files(root, top):
    for folder, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(folder, name), root)


def room_of(root, path):
    """The room of a repository-relative file: its folder, or the folder its name names beside it
    (a folder's face: orchestrator/sweep.hpp is orchestrator/sweep/'s)."""
    stem, suffix = os.path.splitext(path)
    if suffix in (".hpp", ".h") and os.path.isdir(os.path.join(root, stem)):
        return stem
    return os.path.dirname(path)


def resolve(root, top, including, target):
    """The repository-relative path an include names, or None when it is not a file under top."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including), target))
    for candidate in (beside, os.path.normpath(target)):
        if candidate.split(os.sep)[0] == top and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def room_graph(root, top):
    """{room: {room it includes: "file:line: #include ..." (the first such include)}}."""
    graph = {}
    for path in source_files(root, top):
        room = room_of(root, path)
        graph.setdefault(room, {})
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = resolve(root, top, path, match.group(1))
                if target is None or room_of(root, target) == room:
                    continue
                graph[room].setdefault(room_of(root, target), f'{path}:{number}: #include "{match.group(1)}"')
    return graph


def cycles(graph):
    """The strongly connected components of more than one room (Tarjan), each as a sorted list."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(room):
        index[room] = low[room] = len(index)
        stack.append(room)
        on_stack.add(room)
        for other in sorted(graph.get(room, {})):
            if other not in index:
                visit(other)
                low[room] = min(low[room], low[other])
            elif other in on_stack:
                low[room] = min(low[room], index[other])
        if low[room] == index[room]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == room:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(1000, 10 * len(graph)))
    for room in sorted(graph):
        if room not in index:
            visit(room)
    return sorted(found)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the repository (default: the one this script is in)")
    parser.add_argument("--top", default="orchestrator", help="the folder whose rooms are checked")
    parser.add_argument("--graph", action="store_true", help="also print every room and the rooms it includes")
    args = parser.parse_args(argv)
    if not os.path.isdir(os.path.join(args.root, args.top)):
        print(f"check_includes: {os.path.join(args.root, args.top)}: no such folder", file=sys.stderr)
        return 2
    graph = room_graph(args.root, args.top)
    if args.graph:
        for room in sorted(graph):
            print(f"{room}/ -> " + " ".join(other + "/" for other in sorted(graph[room])))
    found = cycles(graph)
    for component in found:
        print("cycle between " + ", ".join(r + "/" for r in component) + ":")
        for room in component:
            for other in sorted(graph[room]):
                if other in component:
                    print(f"  {room}/ -> {other}/: {graph[room][other]}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
