"""A host-timed pure-Python workload whose time depends on the hash seed (docs/python.md, "What a
worker inherits"): a linear search for a name in a set's iteration order, which the hash seed of
the process decides. Under one seed the name comes early, under another late; the time of a
launch moves several-fold between seeds (configs/calibration-python-cpu.yaml)."""


def first_in_set(names, seed, device, stream):
    pool = frozenset("field_%03d" % i for i in range(names))
    wanted = "field_%03d" % (names // 2)

    def launch():
        for name in pool:
            if name == wanted:
                return name
        return None

    return launch
