"""Checks that README.md's **Contents** list is its headings (scripts/lint):
every `##` and `###` heading after the list, in order, as a GitHub anchor
link, and nothing else. Prints the list it expects when they differ.

Usage: readme_contents.py README.md
"""

import re
import sys


def anchor(title):
    """GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*]", "", title.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    try:
        start = lines.index("**Contents**")
    except ValueError:
        sys.exit("readme_contents: README.md has no **Contents** list")
    listed, index = [], start + 1
    while index < len(lines) and (not lines[index].strip() or lines[index].lstrip().startswith("- [")):
        if lines[index].strip():
            listed.append(lines[index])
        index += 1
    expected, fenced = [], False
    for line in lines[index:]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            expected.append(f"- [{line[3:]}](#{anchor(line[3:])})")
        elif not fenced and line.startswith("### "):
            expected.append(f"  - [{line[4:]}](#{anchor(line[4:])})")
    if listed != expected:
        print("readme_contents: README.md's Contents differ from its headings; expected:", file=sys.stderr)
        print("\n".join(expected), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
