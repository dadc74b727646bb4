#!/usr/bin/env python3
"""Function bodies longer than LIMIT lines in C/CUDA sources (clang-format's
layout: a definition starts at a column-0 line with 'name(' and ends at the
column-0 '}' that closes it). Usage: check_function_length.py LIMIT DIR...
Prints 'LINES file:function' for each one over; exit 1 if any."""
import os
import re
import sys

START = re.compile(r"^[A-Za-z_][^;]*?\b([A-Za-z_]\w*)\s*\(")


def long_functions(path, limit):
    found, name, first = [], None, 0
    with open(path, errors="replace") as f:
        for number, line in enumerate(f, 1):
            if name is None:
                m = START.match(line)
                if m and not line.startswith(("typedef", "struct", "enum", "#")) and not line.rstrip().endswith(";"):
                    name, first = m.group(1), number
            elif line.startswith("}"):
                if number - first + 1 > limit:
                    found.append((number - first + 1, f"{path}:{name}"))
                name = None
    return found


def main():
    limit, roots = int(sys.argv[1]), sys.argv[2:]
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith((".c", ".h", ".cu", ".cuh")):
                    found += long_functions(os.path.join(dirpath, name), limit)
    for lines, where in sorted(found, reverse=True):
        print(lines, where)
    print(f"functions over {limit} lines: {len(found)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
