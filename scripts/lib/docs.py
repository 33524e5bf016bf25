"""The DocC site of the library modules, from a finished build (scripts/check-docs).

Usage: docs.py BUILD_DIR OUTPUT MODULE...

BUILD_DIR is SwiftPM's scratch folder after `swift build` of the libraries
(its llbuild manifest, debug.yaml, names each module's compiler flags). For
each module, in two processes at a time:

1. swift-symbolgraph-extract writes its public symbol graphs (extension
   blocks included, as swift-docc-plugin asks) to BUILD_DIR/symbol-graphs/M/
   — what scripts/check-api compares with api/;
2. docc convert builds its archive from its catalog and those graphs,
   warnings as errors, linking to the archives of the library modules it
   depends on (so a module is converted after them).

Then docc merge combines the archives into one site in OUTPUT. This is what
`swift package generate-documentation` does, without building each module
once more and without building the plugin and its tools: the test command
builds the libraries once. Exits 1, printing docc's and the extractor's
output, when any step fails.
"""

import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys

JOBS = 2


def tool(name):
    """The toolchain's NAME, next to the `swift` that runs the build."""
    swift = shutil.which("swift")
    if swift is None:
        sys.exit("docs: no swift on PATH")
    path = pathlib.Path(os.path.realpath(swift)).parent / name
    if not path.exists():
        sys.exit(f"docs: the toolchain has no {name} ({path})")
    return str(path)


def compile_commands(build):
    """Each Swift module's compile arguments, from the build's llbuild manifest."""
    commands = {}
    for line in (build / "debug.yaml").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("args: [") and '"-module-name"' in stripped:
            args = json.loads(stripped[len("args: ") :])
            commands[args[args.index("-module-name") + 1]] = args
    return commands


def search_flags(args):
    """The flags that let a tool load the module: search paths, module maps, the target."""
    flags = []
    pairs = {"-I", "-Xcc", "-target", "-sdk", "-module-cache-path", "-F"}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in pairs and i + 1 < len(args):
            flags += [arg, args[i + 1]]
            i += 2
            continue
        if arg.startswith("-I") and len(arg) > 2:
            flags.append(arg)
        i += 1
    return flags


def library_dependencies(modules):
    """MODULE → the library modules it uses, directly or not (swift package dump-package)."""
    package = json.loads(
        subprocess.run(
            ["swift", "package", "dump-package"], check=True, capture_output=True, text=True
        ).stdout
    )
    direct = {}
    for target in package["targets"]:
        names = []
        for dependency in target.get("dependencies", []):
            for kind, value in dependency.items():
                if kind in ("byName", "target") and value and value[0] in modules:
                    names.append(value[0])
        direct[target["name"]] = names
    closure = {}

    def visit(module):
        if module not in closure:
            closure[module] = set()
            for name in direct.get(module, []):
                closure[module] |= {name} | visit(name)
        return closure[module]

    for module in modules:
        visit(module)
    return {module: sorted(closure[module]) for module in modules}


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def main():
    build, output, modules = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    debug = build / "debug"
    commands = compile_commands(build)
    graphs = build / "symbol-graphs"
    archives = build / "doc-archives"
    for folder in (graphs, archives):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    extract, docc = tool("swift-symbolgraph-extract"), tool("docc")
    root = pathlib.Path.cwd()

    def extract_graphs(module):
        if module not in commands:
            return 1, f"docs: {build}/debug.yaml has no compile command for {module} (build the libraries first)"
        (graphs / module).mkdir()
        return run(
            [extract, "-module-name", module, *search_flags(commands[module]), "-I", str(debug / "Modules"),
             "-minimum-access-level", "public", "-emit-extension-block-symbols", "-include-spi-symbols",
             "-output-dir", str(graphs / module)]
        )

    def convert(module, dependencies):
        catalog = next((root / "Modules" / module / "Sources").glob("*.docc"))
        command = [docc, "convert", str(catalog), "--warnings-as-errors", "--transform-for-static-hosting",
                   "--emit-lmdb-index", "--fallback-display-name", module,
                   "--fallback-bundle-identifier", module,
                   "--additional-symbol-graph-dir", str(graphs / module),
                   "--output-path", str(archives / f"{module}.doccarchive"),
                   "--enable-experimental-external-link-support"]
        for dependency in dependencies:
            command += ["--dependency", str(archives / f"{dependency}.doccarchive")]
        return run(command)

    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        for module, (status, text) in zip(modules, pool.map(extract_graphs, modules)):
            if status != 0:
                sys.exit(f"{text}\ndocs: no symbol graphs for {module} (above)")
        dependencies = library_dependencies(modules)
        done = set()
        while len(done) < len(modules):
            ready = [m for m in modules if m not in done and set(dependencies[m]) <= done]
            if not ready:
                sys.exit(f"docs: the modules' dependencies form a cycle: {dependencies}")
            for module, (status, text) in zip(ready, pool.map(lambda m: convert(m, dependencies[m]), ready)):
                if status != 0:
                    sys.exit(f"{text}\ndocs: the documentation of {module} has errors (above)")
            done |= set(ready)

    shutil.rmtree(output, ignore_errors=True)
    status, text = run(
        [docc, "merge", *(str(archives / f"{m}.doccarchive") for m in modules), "--output-path", str(output),
         "--synthesized-landing-page-name", "Courier", "--synthesized-landing-page-kind", "Package"]
    )
    if status != 0:
        sys.exit(f"{text}\ndocs: docc merge failed (above)")


if __name__ == "__main__":
    main()
