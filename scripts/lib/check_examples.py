"""Compiles README examples against a finished build of the ContractTests
package, without linking them (scripts/check-snippets).

Usage: check_examples.py BUILD_DIR MODULE BUDGET FILE...

Each FILE (a main.swift that scripts/lib/snippets.py extracted) is compiled
by `swiftc -emit-sil`: parsed, type-checked and through the mandatory SIL
passes — definite initialisation, exhaustiveness, the strict-concurrency
diagnostics — with the search paths, module maps and language mode of
MODULE, an example target of the same build that imports what every example
may import (its compile command is read from BUILD_DIR/debug.yaml). No
machine code is generated and nothing is linked: an example that is only
compiled costs one type-check instead of a compile and a link of every
Courier module and SwiftNIO. Two at a time; each has BUDGET seconds, a hang
guard for a compiler that never ends, not a timing assertion. Prints the
compiler's output and exits 1 when any example fails.
"""

import concurrent.futures
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from docs import compile_commands, search_flags, tool  # noqa: E402


def language_flags(args):
    """The language mode and conditions MODULE compiles with."""
    flags = []
    for i, arg in enumerate(args[:-1]):
        if arg in ("-swift-version", "-D"):
            flags += [arg, args[i + 1]]
    return flags


def main():
    build, module, budget, files = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    commands = compile_commands(build)
    if module not in commands:
        sys.exit(f"check-examples: {build}/debug.yaml has no compile command for {module} (build it first)")
    args = commands[module]
    swiftc = tool("swiftc")
    flags = search_flags(args) + language_flags(args) + ["-I", str(build / "debug" / "Modules")]

    def check(path):
        command = [swiftc, "-emit-sil", "-o", "/dev/null", "-module-name", "Example", *flags, path]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired:
            return 1, f"{path}:1:1: error: not compiled within {budget} s: a compiler hang\n"
        return result.returncode, result.stdout + result.stderr

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for status, text in pool.map(check, files):
            if status != 0:
                failed += 1
                print(text, end="")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
