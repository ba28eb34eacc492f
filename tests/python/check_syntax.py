"""Compiles every Python file under the given folders with this interpreter (CI's 3.11): the
scripts for the H200 (bench/gpu/), the examples that need torch or Triton and the isobench
package cannot be run here, but a syntax error or a construct 3.11 lacks fails here, not on the
device. Writes nothing (no __pycache__). Exits 1 naming each file that does not compile."""

import os
import sys


def main(folders):
    failed, checked = [], 0
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(root, name)
                checked += 1
                try:
                    with open(path, encoding="utf-8") as f:
                        compile(f.read(), path, "exec")
                except SyntaxError as error:
                    failed.append("%s:%s: %s" % (path, error.lineno, error.msg))
    for line in failed:
        print(line)
    print("%d Python files compiled, %d failed" % (checked, len(failed)))
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
