#!/usr/bin/env python3
"""Writes include/swift/CPrefs.apinotes from include/prefs/Prefs.h.

Swift imports `const void *` (PrefsTypeRef, PrefsPropertyListRef) as
UnsafeRawPointer and the typed references (PrefsNumberRef, ...) as
OpaquePointer, so without these notes a Swift program needs a cast to
release a number or to store it. The notes make Swift see every value
reference as an opaque pointer, keeping each one's nullability; C and the
ABI are unchanged. `make install` puts the file beside the installed
module map, where the compiler finds it; the package's own CPrefs target
does not use it (the C face's @c @implementation checks the plain types).

Usage: tools/gen-apinotes.py [--check]   (--check: exit 1 if out of date)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "include", "prefs", "Prefs.h")
OUT = os.path.join(ROOT, "include", "swift", "CPrefs.apinotes")
VALUE = "const struct PrefsOpaqueValue"
REF = re.compile(r"(const\s+)?(PrefsTypeRef|PrefsPropertyListRef)\b")


def nullability(text):
    return "_Nullable" if "PREFS_NULLABLE" in text else "_Nonnull"


def notes(header):
    out = []
    for ret, name, params in re.findall(r"PREFS_EXPORT\s+([^;]*?)\b(Prefs\w+)\s*\(([^;]*?)\)\s*;", header, re.S):
        ret = " ".join(ret.split())
        ps = [" ".join(p.split()) for p in params.split(",")] if params.strip() != "void" else []
        entry = ""
        if REF.match(ret):
            entry += f'    ResultType: "{VALUE} *{nullability(ret)}"\n'
        changed = []
        for i, p in enumerate(ps):
            if not REF.match(p):
                continue
            if "*" not in p:
                t = f"{VALUE} *{nullability(p)}"
            else:  # const PrefsPropertyListRef PREFS_NULLABLE *PREFS_NULLABLE values
                inner, outer = p.split("*", 1)
                t = f"{VALUE} *{nullability(inner)} const *{nullability(outer)}"
            changed.append(f'      - Position: {i}\n        Type: "{t}"\n')
        if changed:
            entry += "    Parameters:\n" + "".join(changed)
        if entry:
            out.append(f"  - Name: {name}\n" + entry)
    head = (
        "# Swift's view of the C API (clang API notes, read beside the installed\n"
        "# module map): every value reference is an opaque pointer, as the typed\n"
        "# ones are, so Swift passes any value to PrefsRelease or PrefsSetAppValue\n"
        "# without a cast. C and the ABI are unchanged. Generated from Prefs.h by\n"
        "# tools/gen-apinotes.py: do not edit.\n"
    )
    return head + "Name: CPrefs\nFunctions:\n" + "".join(out)


def main():
    with open(HEADER) as f:
        text = notes(f.read())
    if "--check" in sys.argv:
        with open(OUT) as f:
            if f.read() != text:
                print(f"{OUT} is out of date: run tools/gen-apinotes.py", file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
