#!/usr/bin/env python3
"""Reference orders for tests/orchestrator/test_schedule.cpp, computed apart from isobench's code.

A plan made with a seed must give the same order on every machine and in every later build, so
the test pins literal outputs of orchestrator/schedule.hpp for fixed seeds. This script derives
them from the published definitions alone: MT19937-64 as C++ defines std::mt19937_64
([rand.predef]; its 10000th output from the default seed 5489 is 9981545732273789042) and the
Fisher-Yates shuffle as schedule.hpp documents it (for i = n down to 2: swap v[i-1] with
v[rng() % i]). Prints what the test pins. Run from anywhere: python3 tools/schedule_reference.py
"""

MASK = (1 << 64) - 1


class MT19937_64:
    def __init__(self, seed):
        self.state = [seed & MASK]
        for i in range(1, 312):
            previous = self.state[-1]
            self.state.append((6364136223846793005 * (previous ^ (previous >> 62)) + i) & MASK)
        self.index = 312

    def __call__(self):
        if self.index == 312:
            for k in range(312):
                x = (self.state[k] & 0xFFFFFFFF80000000) | (self.state[(k + 1) % 312] & 0x7FFFFFFF)
                self.state[k] = self.state[(k + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
            self.index = 0
        y = self.state[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        return y ^ (y >> 43)


def shuffle(values, rng):
    v = list(values)
    for i in range(len(v), 1, -1):
        j = rng() % i
        v[i - 1], v[j] = v[j], v[i - 1]
    return v


def main():
    engine = MT19937_64(5489)
    for _ in range(9999):
        engine()
    assert engine() == 9981545732273789042, "not the standard's MT19937-64"

    print("portable_shuffle of 0..7, seed 1:", shuffle(range(8), MT19937_64(1)))

    # make_schedule(interleave, batch, single_group(4), samples 3, seed 7): one round per sample,
    # each the group reshuffled, one generator across rounds.
    rng = MT19937_64(7)
    print("interleave, 4 instances, 3 rounds, seed 7:", [shuffle(range(4), rng) for _ in range(3)])

    # make_ab_schedule(batch, single_group(3), samples 2, seed 21): per round, the side that goes
    # first from rng() & 1, then each side's worker with the group reshuffled.
    rng = MT19937_64(21)
    runs = []
    for _ in range(2):
        first = rng() & 1
        for side in (first, 1 - first):
            runs.append((side, shuffle(range(3), rng)))
    print("ab per batch, 3 instances, 2 rounds, seed 21 (side, order):", runs)

    # make_ab_schedule(sample, single_group(2), samples 2, seed 21): per round the group
    # reshuffled, then per instance the side that goes first.
    rng = MT19937_64(21)
    runs = []
    for _ in range(2):
        for instance in shuffle(range(2), rng):
            first = rng() & 1
            runs += [(first, instance), (1 - first, instance)]
    print("ab per sample, 2 instances, 2 rounds, seed 21 (side, instance):", runs)


if __name__ == "__main__":
    main()
