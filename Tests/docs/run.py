#!/usr/bin/env python3
"""Tests/docs/run.py <repository> — every command block of the documents,
run as written, in order, in a new shell per document.

A newcomer reads README.md, doc/*.md, the man pages (doc/*.1, doc/*.3)
and the build lines at the top of examples/, and types what they show.
This runs the same, after `make example` (which makes build/stage and
build/stage/env.sh), so that the documents cannot drift from the code:

- Markdown (README.md, doc/*.md): every ```sh block is commands. A ```c
  block is saved as app.c and an ```xml block holding a configuration
  profile as editor.mobileconfig, the names the commands after them use.
  ```swift, ```yaml, ```puppet and unlabelled blocks are source, listed
  as such.
- Man pages: every .nf/.EX block; one that is a C program is saved as app.c
  before the page's commands run (the SYNOPSIS compiles the EXAMPLE), one
  that is the output of a command is listed as such.
- examples/: the indented lines of a file's opening comment are commands,
  run in the file's directory.

Each document runs in its own `bash` (no rc files), from a copy of the
checkout's tracked files (with build/ linked to the checkout's, so that
build/stage/env.sh works as the README says), with HOME, the preference
directories (PREFS_SYSTEM_DIR, PREFS_MANAGED_DIR) and TMPDIR in a scratch
directory: nothing outside it is read or written. `sudo` is a shell
function that runs its command as it is, inside that scratch directory.
The README says how to use build/stage (`. build/stage/env.sh`); the
other documents assume libprefs installed, and build/stage stands in for
it: their shell sources env.sh first.

The README's Swift package block and typed-key snippet are built as a
program beside the copy, which must fetch nothing and print what the
snippet promises (swift_package below); in the same package, the Swift
of each article of PrefsCore's DocC catalog is built as a program of its
own (docc_articles below), so the articles cannot drift from the API.

doc/behaviour.md names, under "Checked by", the tests of each behaviour:
each Swift suite and test function, C test file and function it names
must exist (checked_by below), so a renamed or removed test cannot leave
the page pointing at nothing.

A command line ending in `# <text>` whose command is `prefs read` must
print <text>; `prefs explain`'s first line must be the text before ` / `.

Commands that cannot run here are listed in SKIP below, each with its
reason, and reported as SKIP; a SKIP entry that matches nothing fails, so
the list cannot go stale. A block whose command fails stops its document:
the blocks after it are reported as not run.

One line per block (PASS, FAIL, SKIP, or what a non-command block is),
then "N passed, N failed, N skipped". Exit status 0 when none failed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# (document, regular expression matching the start of a command line, reason)
SKIP = [
    ("README.md", r"make example\b", "the set-up command itself: this test runs after it"),
    ("README.md", r"make check\b", "the set-up command itself: it runs this test"),
    ("doc/installing.md", r"make install PREFIX=/usr/local", "installs into /usr/local: changes the machine (Tests/packaging/install-check.sh covers install and uninstall)"),
    ("README.md", r"cc app\.c \$\(pkg-config --cflags --libs prefs\) -o app", "needs libprefs installed in a system directory (root); the private-prefix line after it is run"),
    ("README.md", r"prefs watch ", "runs until interrupted (Tests/cli/run.sh drives watch)"),
    ("README.md", r"prefs ui ", "interactive (Tests/ui/run.sh drives it through tmux)"),
    ("doc/prefs.1", r"prefs watch ", "runs until interrupted (Tests/cli/run.sh drives watch)"),
    ("doc/prefs.1", r"sudo prefs profile install editor\.mobileconfig", "the profile is doc/fleet.md's, installed there"),
    ("doc/prefs.1", r"PATH=/usr/libexec/prefs:\$PATH defaults", "needs the Debian package prefs (root); `defaults` is driven by Tests/ansible/run.sh"),
]

# Blocks that are not commands: (document, first line, what they are).
NOT_COMMANDS = [
    ("doc/prefs.1", "FontSize = 20 (app)", "output of prefs explain"),
    ("doc/prefs.1", "FontSize = 18 (synced from laptop 6f3e...c2 at 2026-11-27T12:00:01.123Z)",
     "output of prefs explain for a synced key"),
]

PRELUDE = r"""
set -o pipefail
sudo() { "$@"; }
__block() { __id=$1; __ok=1; }
__fail() { echo "FAILED-BLOCK $__id: $1" >>"$__STATUS"; exit 1; }
__check() {  # status command-text
    [ "$1" -eq 0 ] || __fail "exit status $1: $2"
}
__expect() {  # want command-text, then the command
    local want=$1 text=$2 got rc
    shift 2
    got=$("$@")
    rc=$?
    printf '%s\n' "$got"
    [ $rc -eq 0 ] || __fail "exit status $rc: $text"
    [ "$got" = "$want" ] || __fail "printed '$got', the text says '$want': $text"
}
__expect_first() {  # the same, for the first line printed
    local want=$1 text=$2 got rc
    shift 2
    got=$("$@")
    rc=$?
    printf '%s\n' "$got"
    [ $rc -eq 0 ] || __fail "exit status $rc: $text"
    [ "${got%%$'\n'*}" = "$want" ] || __fail "printed '${got%%$'\n'*}', the text says '$want': $text"
}
"""


def man_text(line):
    """A roff line as a reader sees it, for the few requests blocks use."""
    line = re.sub(r"^\.(B|I|BI|BR|IR|RB)\s+", "", line)
    return line.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\").replace('\\(em', "—")


def markdown_blocks(path):
    blocks, lang, start, body = [], None, 0, []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if lang is None and line.startswith("```"):
            lang, start, body = line[3:].strip(), n, []
        elif lang is not None and line.startswith("```"):
            blocks.append((start, lang, body))
            lang = None
        elif lang is not None:
            body.append(line)
    return blocks


def man_blocks(path):
    blocks, start, body = [], None, []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if start is None and line in (".nf", ".EX"):
            start, body = n, []
        elif start is not None and line in (".fi", ".EE"):
            blocks.append((start, body))
            start = None
        elif start is not None and line not in (".PP",):
            body.append(man_text(line))
    return blocks


def example_block(path):
    """The indented lines of the opening comment, or None."""
    lines = open(path, encoding="utf-8").read().split("\n")[:40]
    start, body = None, []
    for n, line in enumerate(lines, 1):
        m = re.match(r"^(?: \*|//)(\s{3,})(\S.*)$", line)
        if m:
            if start is None:
                start = n
            body.append(m.group(2))
        elif start is not None:
            break
    return (start, body) if start else None


def commands(doc, block, used):
    """The block as shell text: skipped lines replaced, checks added."""
    out, skipped, continuing = [], [], False
    for line in block:
        if continuing:
            out.append(("# " if skipping else "") + line)
            continuing = line.endswith("\\")
            continue
        skipping = False
        for i, (d, pattern, reason) in enumerate(SKIP):
            if d == doc and re.match(pattern, line.strip()):
                skipping = True
                used.add(i)
                skipped.append((line.strip(), reason))
        continuing = line.endswith("\\")
        if skipping:
            out.append("# skipped: " + line)
            continue
        m = re.match(r"^(prefs (read|explain) [^#]*?)\s+#\s*(.+)$", line)
        if m:
            cmd, verb, want = m.group(1), m.group(2), m.group(3)
            if verb == "explain":
                want = want.split(" / ")[0]
            # A comment that reads as a value (a word; `Key = value ...`
            # for explain) is what the command prints; other comments are
            # prose.
            if (verb == "read" and " " in want) or (verb == "explain" and " = " not in want):
                out.append(line)
                continue
            q = lambda s: "'" + s.replace("'", "'\\''") + "'"
            out.append("%s %s %s %s" % ("__expect_first" if verb == "explain" else "__expect", q(want), q(cmd), cmd))
        else:
            out.append(line)
    return "\n".join(out), skipped


def docc_articles(src, app):
    """PrefsCore's DocC articles as programs. A ```swift block whose first
    line of code is an `import` starts a program; a block without one
    continues the one before it, as the article's text does. Each program
    is the main.swift of an executable target of its own (top-level code,
    so declarations and statements mix as in the article), with
    #sourceLocation pointing errors at the article's lines. A block
    holding a Package.swift (`import PackageDescription`) is not Swift of
    the program and is left out. Returns the targets' names."""
    catalog = os.path.join(src, "Sources/PrefsCore/PrefsCore.docc")
    programs = []
    for article in sorted(f for f in os.listdir(catalog) if f.endswith(".md")):
        rel = "Sources/PrefsCore/PrefsCore.docc/" + article
        for start, lang, body in markdown_blocks(os.path.join(catalog, article)):
            if lang != "swift" or any("import PackageDescription" in l for l in body):
                continue
            code = [l for l in body if l.strip() and not l.strip().startswith("//")]
            part = '#sourceLocation(file: "%s", line: %d)\n%s\n#sourceLocation()' % (rel, start + 1, "\n".join(body))
            if not programs or programs[-1][0] != article or (code and code[0].startswith("import ")):
                programs.append((article, start, [part]))
            else:
                programs[-1][2].append(part)
    names = []
    for article, start, parts in programs:
        name = "article-%s-%d" % (article[:-3], start)
        os.makedirs(os.path.join(app, "Articles", name))
        with open(os.path.join(app, "Articles", name, "main.swift"), "w") as f:
            f.write("\n".join(parts) + "\n")
        names.append(name)
    return names


def swift_package(src, work, env, report):
    """The README's Swift: a program beside the copy (named libprefs, as
    the README says to clone it) whose Package.swift is the README's block
    and whose main.swift is the README's snippet (without its `for await`
    line, whose body is `...`). It must build fetching nothing (PrefsCore
    alone needs no other package), and @Preference must use the
    application the snippet set as Preferences.standard."""
    readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"```swift\n(.*?)```", readme, re.S)
    package = [b for b in blocks if "Package.swift of your program" in b]
    snippet = [b for b in blocks if "extension Preferences.Keys" in b]
    what = "README.md: the Swift package block and snippet"
    if not package or not snippet:
        report("FAIL", what, "the README has no Package.swift block or no typed-key snippet")
        return
    if shutil.which(os.environ.get("SWIFT", "swift")) is None:
        report("SKIP", what, "no swift on PATH")
        return
    app = os.path.join(work, "editor")
    os.makedirs(os.path.join(app, "Sources/editor"))
    body = package[0].split("\n", 1)[1].rstrip().rstrip(",")
    articles = docc_articles(src, app)
    with open(os.path.join(app, "Package.swift"), "w") as f:
        f.write('// swift-tools-version: 6.1\nimport PackageDescription\n\n'
                'let package = Package(\n    name: "editor",\n%s\n)\n' % body)
        for name in articles:
            f.write('package.targets.append(.executableTarget(name: "%s", dependencies: '
                    '[.product(name: "PrefsCore", package: "libprefs")], path: "Articles/%s"))\n' % (name, name))
    lines = [l for l in snippet[0].split("\n") if not l.startswith("for await")]
    with open(os.path.join(app, "Sources/editor/main.swift"), "w") as f:
        f.write("\n".join(lines) + '\nlet settings = Settings()\nprefs[.fontSize] = 14\n'
                'print("\\(settings.fontSize) \\(settings.$fontSize.preferences.applicationID)")\n')
    build = subprocess.run([os.environ.get("SWIFT", "swift"), "build"], cwd=app, env=env,
                           capture_output=True, text=True)
    if build.returncode != 0:
        out = build.stdout + build.stderr
        wrong = sorted(set(re.findall(r"(Sources/PrefsCore/PrefsCore\.docc/\w+\.md:\d+:\d+: error: [^\n]*)", out)))
        if wrong:
            for line in wrong:
                report("FAIL", "PrefsCore.docc: " + line)
        else:
            report("FAIL", what, "swift build failed: " + out[-600:])
        return
    report("PASS", "PrefsCore.docc: the articles' %d Swift programs compile against PrefsCore" % len(articles))
    fetched = os.listdir(os.path.join(app, ".build/checkouts")) if os.path.isdir(os.path.join(app, ".build/checkouts")) else []
    if fetched:
        report("FAIL", what, "PrefsCore alone fetched: " + ", ".join(fetched))
        return
    run = subprocess.run([os.path.join(app, ".build/debug/editor")], cwd=app, env=env, capture_output=True, text=True)
    if run.returncode != 0 or run.stdout.strip() != "14 com.example.editor":
        report("FAIL", what, "the program printed %r (status %d), not '14 com.example.editor'" % (run.stdout + run.stderr, run.returncode))
        return
    report("PASS", what, "builds fetching nothing; @Preference reads 14 from com.example.editor")


def checked_by(root, report):
    """Every test doc/behaviour.md names under "Checked by" exists."""
    doc = os.path.join(root, "doc/behaviour.md")
    swift = ""
    for dirpath, _, names in os.walk(os.path.join(root, "Tests")):
        for n in names:
            if n.endswith(".swift"):
                swift += open(os.path.join(dirpath, n), encoding="utf-8").read()
    missing = []
    for number, line in enumerate(open(doc, encoding="utf-8"), 1):
        if "*Checked by:*" not in line:
            continue
        for path in re.findall(r"`(Tests/[^` ]+)`", line):
            if not os.path.exists(os.path.join(root, path)):
                missing.append("%d: %s" % (number, path))
        for path, names in re.findall(r"`(Tests/C/[\w./]+\.c)` \(([^)]*)\)", line):
            text = open(os.path.join(root, path), encoding="utf-8").read() if os.path.exists(os.path.join(root, path)) else ""
            for name in re.findall(r"`(\w+)`", names):
                if not re.search(r"\b%s\b" % name, text):
                    missing.append("%d: %s in %s" % (number, name, path))
        suites = re.findall(r"`([A-Z]\w*Tests)(?:\.(\w+))?`(?: \(([^)]*)\))?", line)
        for suite, name, names in suites:
            if not re.search(r"\b(struct|final class|class) %s\b" % suite, swift):
                missing.append("%d: suite %s" % (number, suite))
            for n in ([name] if name else []) + re.findall(r"`(\w+)`", names or ""):
                if not re.search(r"func %s\(" % n, swift):
                    missing.append("%d: %s.%s" % (number, suite, n))
    if missing:
        report("FAIL", "doc/behaviour.md names tests that exist", "; ".join(missing)[:600])
    else:
        report("PASS", "doc/behaviour.md names tests that exist")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    env_sh = os.path.join(root, "build/stage/env.sh")
    if not os.path.exists(env_sh):
        print("run.py: %s is missing: run make example first" % env_sh, file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="prefs-docs-")
    results = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    used = set()

    def report(verdict, what, detail=""):
        if verdict in results:
            results[verdict] += 1
        print("%-5s %s%s" % (verdict, what, ("  (" + detail + ")") if detail else ""))

    try:
        src = os.path.join(work, "libprefs")
        files = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        for rel in files.decode().split("\0"):
            path = os.path.join(root, rel)
            if rel and (os.path.isfile(path) or os.path.islink(path)):
                os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
                if os.path.islink(path):
                    os.symlink(os.readlink(path), os.path.join(src, rel))
                else:
                    shutil.copy2(path, os.path.join(src, rel))
        os.symlink(os.path.join(root, "build"), os.path.join(src, "build"))
        home = os.path.join(work, "home")
        os.makedirs(home)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("XDG_", "PREFS_", "PKG_CONFIG", "MAKE", "MFLAGS")) and k not in ("MANPATH", "LD_LIBRARY_PATH")}
        env.update(HOME=home, TMPDIR=os.path.join(work, "tmp"), LANG="C.UTF-8",
                   PREFS_SYSTEM_DIR=os.path.join(work, "system"), PREFS_MANAGED_DIR=os.path.join(work, "managed"))
        os.makedirs(env["TMPDIR"])

        # Each document: [(id, kind, payload)], kind "sh" (shell text),
        # "file" (name, text) or "note" (what it is).
        docs = []
        for doc in ["README.md"] + sorted("doc/" + f for f in os.listdir(os.path.join(src, "doc")) if f.endswith(".md")):
            items = []
            for start, lang, body in markdown_blocks(os.path.join(src, doc)):
                bid = "%s:%d" % (doc, start)
                if lang in ("sh", "bash", "shell", "console"):
                    items.append((bid, "sh", body))
                elif lang == "c":
                    items.append((bid, "file", ("app.c", body)))
                elif lang == "xml" and any("PayloadContent" in l for l in body):
                    items.append((bid, "file", ("editor.mobileconfig", body)))
                else:
                    items.append((bid, "note", "%s source, not commands" % (lang or "unlabelled")))
            docs.append((doc, ".", items))
        for page in sorted(f for f in os.listdir(os.path.join(src, "doc")) if re.search(r"\.[1-8]$", f)):
            doc = "doc/" + page
            items, program = [], []
            for start, body in man_blocks(os.path.join(src, doc)):
                bid = "%s:%d" % (doc, start)
                note = [w for d, first, w in NOT_COMMANDS if d == doc and body and body[0] == first]
                if note:
                    items.append((bid, "note", note[0]))
                elif any(l.startswith("int main") for l in body):
                    program = [(bid, "file", ("app.c", body))]
                else:
                    items.append((bid, "sh", [l for l in body if l.strip()]))
            docs.append((doc, ".", program + items))
        for dirpath, _, names in sorted(os.walk(os.path.join(src, "examples"))):
            for name in sorted(names):
                if not name.endswith((".c", ".swift")) or name == "Package.swift":
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, src)
                found = example_block(path)
                if found:
                    docs.append((rel, os.path.relpath(dirpath, src), [("%s:%d" % (rel, found[0]), "sh", found[1])]))

        for doc, cwd, items in docs:
            script, ids = [PRELUDE], []
            if doc != "README.md":
                # The README shows how to use build/stage; the other
                # documents assume libprefs installed, which it stands for.
                script.append(". build/stage/env.sh || exit 1")
            script.append("cd %s || exit 1" % cwd)
            for bid, kind, payload in items:
                if kind == "note":
                    print("%-5s %s  (%s)" % ("-", bid, payload))
                elif kind == "file":
                    name, body = payload
                    script.append("cat >%s <<'__PREFS_DOC_EOF'\n%s\n__PREFS_DOC_EOF" % (name, "\n".join(body)))
                    print("%-5s %s  (saved as %s for the commands that use it)" % ("-", bid, name))
                else:
                    text, skipped = commands(doc, payload, used)
                    for line, reason in skipped:
                        report("SKIP", "%s: %s" % (bid, line[:70]), reason)
                    if all(not l.strip() or l.strip().startswith("#") for l in text.split("\n")):
                        continue
                    ids.append(bid)
                    # Each line runs as typed; a failing one ends the document.
                    script.append("__block %s" % bid)
                    script.append("trap '__fail \"exit status $?: $BASH_COMMAND\"' ERR")
                    script.append(text)
                    script.append("trap - ERR")
                    script.append("echo \"PASSED-BLOCK %s\" >>\"$__STATUS\"" % bid)
            if not ids:
                continue
            log = os.path.join(work, re.sub(r"[^A-Za-z0-9]", "_", doc) + ".log")
            status_file = log + ".status"
            open(status_file, "w").close()
            with open(log, "w") as out:
                p = subprocess.Popen(["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
                                     cwd=src, env=dict(env, __STATUS=status_file), stdout=out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                try:
                    p.wait(timeout=900)
                    status = open(status_file).read().splitlines()
                except subprocess.TimeoutExpired:
                    p.kill()
                    status = open(status_file).read().splitlines() + ["FAILED-BLOCK %s: timed out" % ids[-1]]
            done = {l.split(" ", 1)[1] for l in status if l.startswith("PASSED-BLOCK ")}
            failure = [l for l in status if l.startswith("FAILED-BLOCK ")]
            for bid in ids:
                if bid in done:
                    report("PASS", bid)
                elif failure and failure[0].split(" ")[1].rstrip(":") == bid:
                    report("FAIL", bid, failure[0].split(": ", 1)[1][:300])
                    tail = open(log).read().splitlines()[-12:]
                    for l in tail:
                        print("      | " + l)
                elif not failure and bid == next(b for b in ids if b not in done):
                    report("FAIL", bid, "the shell stopped in this block")
                    for l in open(log).read().splitlines()[-12:]:
                        print("      | " + l)
                else:
                    report("FAIL", bid, "not run: an earlier block of %s failed" % doc)
        swift_package(src, work, env, report)
        checked_by(root, report)
        for i, (d, pattern, reason) in enumerate(SKIP):
            if i not in used:
                report("FAIL", "SKIP entry for %s matches no command: %s" % (d, pattern), "remove it or fix the document")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (results["PASS"], results["FAIL"], results["SKIP"]))
    return 1 if results["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
