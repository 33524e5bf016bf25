"""Maps findings about extracted examples (`…/snippet-NAME/main.swift:LINE:COL: …`)
back to the Markdown file and line the example was written at, as
scripts/lib/snippets.py listed them (`NAME MODE FILE:LINE`, one per row;
the extracted main.swift has one header line). Used by scripts/lint
(formatting findings) and scripts/check-snippets (compiler errors).

Usage: snippet_places.py ROWS FINDINGS_FILE [--errors] [--prefix TEXT]
Prints one line per finding; with --errors only compiler errors, once each,
and the whole findings file when none maps.
"""

import re
import sys


def main():
    rows, findings = sys.argv[1], open(sys.argv[2]).read()
    errors_only = "--errors" in sys.argv
    prefix = sys.argv[sys.argv.index("--prefix") + 1] if "--prefix" in sys.argv else ""
    where = {}
    for row in rows.splitlines():
        name, _, source = row.split()
        path, line = source.rsplit(":", 1)
        where[name] = (path, int(line))
    pattern = r"(snippet-[^/]+)/main\.swift:(\d+):\d+: " + ("error: (.*)" if errors_only else "(.*)")
    seen = []
    for finding in findings.splitlines():
        match = re.search(pattern, finding)
        if match and match.group(1) in where:
            path, start = where[match.group(1)]
            text = f"{prefix}{path}:{start + int(match.group(2)) - 2}: {match.group(3)}"
            if text not in seen:
                seen.append(text)
        elif not errors_only and finding.strip():
            seen.append(finding)
    if errors_only and not seen:
        print(findings)
    else:
        print("\n".join(seen))


main()
