"""Checks each module's public API dump against its bound in
docs/public-api.md's table (`| module | call API bound | SPI bound |`, after
the `api-bounds` marker): prints a line per module over its bound, or per
module the table leaves out, and exits 1 if there is any.

Usage: api_bounds.py DOC DUMP_DIR MODULE...
"""

import pathlib
import re
import sys


def size(path):
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if " conforms to " not in line)


def main():
    doc, dump, modules = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    text = doc.read_text()
    marker = text.find("<!-- api-bounds:")
    if marker < 0:
        sys.exit(f"{doc}: no api-bounds table")
    bounds = {}
    for line in text[marker:].splitlines()[1:]:
        if not line.startswith("|"):
            if bounds:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"\d+", cells[1]) and re.fullmatch(r"\d+", cells[2]):
            bounds[cells[0]] = (int(cells[1]), int(cells[2]))
    problems = []
    for module in modules:
        if module not in bounds:
            problems.append(f"{module}: no bound in {doc}")
            continue
        public, spi = size(dump / f"{module}.txt"), size(dump / f"{module}.spi.txt")
        bound_public, bound_spi = bounds[module]
        if public > bound_public:
            problems.append(f"{module}: {public} public symbols, bound {bound_public}")
        if spi > bound_spi:
            problems.append(f"{module}: {spi} SPI symbols, bound {bound_spi}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)


main()
