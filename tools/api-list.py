#!/usr/bin/env python3
"""api-list.py MODULE GRAPH_DIR: the public Swift API of MODULE as sorted text.

Reads the symbol graphs swift-symbolgraph-extract wrote into GRAPH_DIR
(MODULE.symbols.json, and MODULE@Other.symbols.json for the extensions
MODULE makes to other modules' types) and prints one line a public
declaration, and one a conformance:

    Preferences.init(applicationID:)  init(applicationID: String) throws(PrefsError)
    Preferences: Sendable

The lines are sorted (C locale), so the file changes only where the API
does; documentation comments and source positions are left out. Used by
Tests/packaging/api-check.sh; prints nothing else.
"""

import json
import os
import subprocess
import sys


# Conformances every type of the kind has without writing them.
IMPLIED = {"Copyable", "Escapable", "SendableMetatype", "BitwiseCopyable"}


def spell(fragments):
    return "".join(f["spelling"] for f in fragments or []).strip()


def where_clause(symbol):
    """The constraints of an extension that the declaration does not show."""
    constraints = (symbol.get("swiftExtension") or {}).get("constraints") or []
    shown = spell(symbol.get("declarationFragments"))
    parts = []
    for c in constraints:
        op = {"conformance": ":", "superclass": ":", "sameType": "=="}.get(c["kind"], c["kind"])
        text = f"{c['lhs']} {op} {c['rhs']}"
        if text not in shown:
            parts.append(text)
    return f"  (where {', '.join(parts)})" if parts else ""


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: api-list.py MODULE GRAPH_DIR")
    module, folder = sys.argv[1], sys.argv[2]
    files = sorted(
        name for name in os.listdir(folder)
        if name == f"{module}.symbols.json" or (name.startswith(f"{module}@") and name.endswith(".symbols.json")))
    if f"{module}.symbols.json" not in files:
        sys.exit(f"api-list.py: no {module}.symbols.json in {folder}")
    graphs = [json.load(open(os.path.join(folder, name), encoding="utf-8")) for name in files]
    # Every symbol's path, and the names of the other modules' types that
    # MODULE extends (they have no symbol of their own, only members).
    paths = {}
    for graph in graphs:
        for s in graph["symbols"]:
            paths[s["identifier"]["precise"]] = ".".join(s["pathComponents"])
    for graph in graphs:
        for r in graph["relationships"]:
            if r["kind"] == "memberOf" and r["target"] not in paths and r.get("targetFallback"):
                paths[r["target"]] = r["targetFallback"].split(".", 1)[-1]
    # A type extended only to conform (`extension Int: P {}`) has neither:
    # its name comes from its USR, demangled by the toolchain.
    unnamed = sorted({
        r["source"] for graph in graphs for r in graph["relationships"]
        if r["kind"] == "conformsTo" and r["source"] not in paths and r["source"].startswith("s:")})
    if unnamed:
        names = subprocess.run(
            ["swift-demangle", "--compact"], input="".join(f"$s{u[2:]}\n" for u in unnamed),
            capture_output=True, text=True, check=True).stdout.splitlines()
        for usr, name in zip(unnamed, names):
            paths[usr] = name.split(".", 1)[-1]
    lines = set()
    for graph in graphs:
        for s in graph["symbols"]:
            decl = spell(s.get("declarationFragments"))
            note = ""
            for a in s.get("availability") or []:
                if a.get("isUnconditionallyDeprecated"):
                    note = "  (deprecated)"
            lines.add(f"{paths[s['identifier']['precise']]}  {decl}{where_clause(s)}{note}")
        for r in graph["relationships"]:
            if r["kind"] != "conformsTo":
                continue
            source = paths.get(r["source"])
            if source is None:
                sys.exit(f"api-list.py: no name for {r['source']}")
            target = paths.get(r["target"]) or (r.get("targetFallback") or r["target"]).split(".")[-1]
            if target in IMPLIED:
                continue
            conditions = r.get("swiftConstraints") or []
            cond = ""
            if conditions:
                cond = "  (where " + ", ".join(
                    f"{c['lhs']} {':' if c['kind'] != 'sameType' else '=='} {c['rhs']}" for c in conditions) + ")"
            lines.add(f"{source}: {target}{cond}")
    for line in sorted(lines, key=lambda x: x.encode("utf-8")):
        print(line)


if __name__ == "__main__":
    main()
