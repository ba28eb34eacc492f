"""A stand-in script that times nothing through Triton: it prints and ends."""

from utils import parse_benchmark_script_args

if __name__ == "__main__":
    print("nothing timed here for", parse_benchmark_script_args().x_values)
