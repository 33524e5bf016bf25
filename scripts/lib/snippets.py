"""Extracts the Swift code blocks of the project's READMEs, so that every
example is compiled as written, imports included. A block that is run
becomes an executable target of the ContractTests package
(ContractTests/ReadmeExamples/<name>/main.swift); one that is only compiled
goes to ReadmeExamples/checked/<name>/main.swift, which scripts/lib/check_examples.py
compiles against the package's build without linking it.

A block is compiled on its own: it must import what it uses and declare what
it needs. An HTML comment on the line before a block changes what happens to it:
  <!-- snippet: run -->   also run it against courier-mock (API_URL is set)
  <!-- snippet: skip -->  neither (say why next to it; for fragments only)
  <!-- snippet: manifest -->  a package manifest: not compiled here;
                              scripts/check-consumer builds a package with it
Prints one line per snippet: name, mode, source file and line.

With --manifests OUT SOURCE, writes each manifest block of SOURCE to
OUT/<ordinal>/Package.swift instead, one line per manifest printed.
"""

import pathlib
import re
import shutil
import sys


def blocks(path):
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.strip() == "```swift":
            mode = "compile"
            before = lines[index - 1].strip() if index > 0 else ""
            marker = re.fullmatch(r"<!--\s*snippet:\s*(\w+)\s*-->", before)
            if marker:
                mode = marker.group(1)
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            yield start + 1, mode, lines[start:end]
            index = end
        index += 1


def manifests(out, source):
    ordinal = 0
    for line, mode, code in blocks(source):
        if mode != "manifest":
            continue
        ordinal += 1
        folder = out / str(ordinal)
        folder.mkdir(parents=True)
        (folder / "Package.swift").write_text("\n".join(code) + "\n")
        print(f"{folder} {source}:{line}")


def main():
    if sys.argv[1] == "--manifests":
        manifests(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]))
        return
    out = pathlib.Path(sys.argv[1])
    sources = [pathlib.Path(p) for p in sys.argv[2:]]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for source in sources:
        stem = re.sub(r"[^A-Za-z0-9]+", "-", str(source.with_suffix(""))).strip("-").lower()
        for ordinal, (line, mode, code) in enumerate(blocks(source), start=1):
            if mode not in ("compile", "run", "skip", "manifest"):
                sys.exit(f"{source}:{line - 1}: unknown snippet mode '{mode}'")
            if mode in ("skip", "manifest"):
                continue
            name = f"snippet-{stem}-{ordinal}"
            folder = out / name if mode == "run" else out / "checked" / name
            folder.mkdir(parents=True)
            header = f"// {source}, line {line}: extracted by scripts/check-snippets; edit the README, not this.\n"
            (folder / "main.swift").write_text(header + "\n".join(code) + "\n")
            print(f"{name} {mode} {source}:{line}")


main()
