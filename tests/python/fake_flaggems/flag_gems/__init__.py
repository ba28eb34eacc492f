"""A stand-in of FlagGems' tuner for the tests, with no torch and no GPU (libentry.py): written
from the interface isobench relies on, not from FlagGems' code."""
