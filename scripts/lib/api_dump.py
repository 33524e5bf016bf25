"""Writes the public API of Courier's library modules as text, one file per
module, from the symbol graphs scripts/check-docs extracted (.build/symbol-graphs):
every public symbol with its declaration, and every conformance of a public
type. Sorted, so that a diff of two dumps shows exactly what changed. Symbols
in an SPI (`@_spi(Transport)`, `@_spi(Decoding)`: the tiers for transport and
decoder authors; `Locking`, not API) go to MODULE.spi.txt, so that MODULE.txt
is what an app sees with a plain `import`.

Usage: api_dump.py SYMBOL_GRAPH_DIR OUT_DIR MODULE...
"""

import json
import pathlib
import sys


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    return " ".join(text.split())


def dump(folder):
    lines, spi_lines = set(), set()
    for graph_file in sorted(folder.glob("*.symbols.json")):
        graph = json.loads(graph_file.read_text())
        # "CourierCache@CourierCore.symbols.json" holds CourierCache's extensions of CourierCore's types.
        extended = graph_file.name.split(".")[0].partition("@")[2]
        prefix = f"{extended}." if extended else ""
        names, spi = {}, {}
        for symbol in graph["symbols"]:
            precise = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in precise or symbol.get("accessLevel") not in ("public", "open"):
                continue
            path = prefix + ".".join(symbol["pathComponents"])
            names[precise] = path
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            if symbol.get("spi"):
                spi[precise] = True
                spi_lines.add(f"{path} [{kind}] {declaration(symbol)}")
            else:
                lines.add(f"{path} [{kind}] {declaration(symbol)}")
        for relation in graph["relationships"]:
            if relation["kind"] != "conformsTo" or relation["source"] not in names:
                continue
            target = relation.get("targetFallback") or names.get(relation["target"], relation["target"])
            line = f"{names[relation['source']]} conforms to {target}"
            (spi_lines if relation["source"] in spi else lines).add(line)
    return sorted(lines), sorted(spi_lines)


def main():
    graphs, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for module in sys.argv[3:]:
        folder = graphs / module
        if not folder.is_dir():
            sys.exit(f"api_dump: no symbol graphs for {module} in {graphs} (run scripts/check-docs first)")
        public, spi = dump(folder)
        (out / f"{module}.txt").write_text("".join(line + "\n" for line in public))
        if spi:
            (out / f"{module}.spi.txt").write_text("".join(line + "\n" for line in spi))


main()
