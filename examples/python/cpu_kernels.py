"""Pure-Python CPU benchmarks (docs/python.md): what CI measures through the whole Python path
(zygote, fork, segment, CPU timer, journal) without torch. Each set-up makes its input from
`seed` and returns an object with launch() and check()."""

import json
import random


class SortFloats:
    def __init__(self, n, seed):
        self.data = [random.Random(seed).random() for _ in range(n)]
        self.out = []

    def launch(self):
        self.out = sorted(self.data)

    def check(self):
        ordered = all(a <= b for a, b in zip(self.out, self.out[1:]))
        return None if ordered and len(self.out) == len(self.data) else "the output is not the input sorted"


def sort_floats(n, seed, device, stream):
    """sorted() of n random floats."""
    return SortFloats(n, seed)


class JsonRoundTrip:
    def __init__(self, items, seed):
        rng = random.Random(seed)
        self.document = {"item%d" % i: {"id": i, "value": rng.random(), "tags": ["a", "b"][: i % 3]} for i in range(items)}
        self.out = None

    def launch(self):
        self.out = json.loads(json.dumps(self.document))

    def check(self):
        return None if self.out == self.document else "the document changed on its way through JSON"


def json_roundtrip(items, seed, device, stream):
    """json.dumps then json.loads of a dictionary of `items` small records."""
    return JsonRoundTrip(items, seed)
