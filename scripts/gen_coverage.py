#!/usr/bin/env python3
"""
scripts/gen_coverage.py - writes docs/COVERAGE.md, the API coverage, from the headers.

Usage: python3 scripts/gen_coverage.py [--check] [--root DIR]
  (none)    write docs/COVERAGE.md
  --check   write nothing; exit 1 (with a hint) when docs/COVERAGE.md is not
            what this script would write
  --root    the repository root (default: the one holding this script)

What it reads:
  aclrt.h   every function declared with ACLRT_API in its public part (up to
            `#endif /* ACLRT_H */`), grouped as the header groups them:
            a section is a `/* ====` banner whose first line is its title;
            inside a section, a block comment that opens with a line of its
            own (`/*`) starts a group, titled by its first sentence (up to
            the first `.` or `:`). A group ends at the next such comment, at
            the next banner, or at a blank line after its functions; the
            functions outside any group are listed first under the section.
            The `aclrtx` section (extensions, not part of ACL) is counted apart.
  hccl/hccl.h
            the HCCL functions (ACLRT_API), one group per `/* ----` banner,
            titled by the banner's first sentence; listed as a section of
            their own and counted apart from ACL's.
  impl/, backends/
            each declared function must have a body there (ACLRT_API ...
            name(...) {); a function without one is an error.
  docs/SEMANTICS.md
            a section or group links to the heading of the same name, or to
            the one SEMANTIC_LINKS names.
  scripts/coverage_gaps.txt
            the hand-kept list of what is known to be missing or planned.
Exit status: 0 done (or up to date), 1 stale (--check) or an error in the
inputs, 2 usage.
"""

import argparse
import os
import re
import sys

from docfile import settle

OUT = "docs/COVERAGE.md"
GAPS = "scripts/coverage_gaps.txt"
SEMANTICS = "docs/SEMANTICS.md"
EXTENSIONS_PREFIX = "aclrtx"
HCCL_HEADER = "hccl/hccl.h"
HCCL_SECTION = "HCCL: collective communication"

# Sections and groups whose SEMANTICS.md heading is not found by their title.
SEMANTIC_LINKS = {
    "Device and context": "Devices and contexts",
    "Notifies, counting notifies, stream memory operations": "Notifies",
    "Physical memory and virtual address ranges": "Physical memory and virtual addresses",
    "IPC events": "IPC",
    "IPC notifies": "IPC",
    "IPC memory": "IPC",
    "Labels, in a model being built": "Labels",
    "Task groups": "Task groups and updates",
    "Peer access between devices": "Peer access",
    "Overflow status, the runtime's other names": "Overflow detection",
    "Kernels: binary descriptors, lookups by address, exception callbacks": "Kernels",
    "A model's abort, name and id": "Capture and replay",
    "Destroy callbacks": "Capture and replay",
    "A model described": "Capture and replay",
    "A model's streams and tasks": "Capture and replay",
    "Conditional tasks": "Capture and replay",
    "A captured model's tasks, read and changed": "Capture and replay",
    "Building a model explicitly": "Building a model explicitly",
    "External progress": None,
    "HCOM group record/wait tasks": "HCOM group record/wait tasks (aclrtx)",
}
# Extensions documented in docs/EMBEDDING.md rather than SEMANTICS.md.
EMBEDDING_LINKS = {
    "External progress": "External progress",
    "External tasks": "External tasks",
    "Backends an embedding runtime registers": "Registering a backend",
}


def slug(title):
    """GitHub's anchor of a Markdown heading."""
    s = title.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#{1,6} (.*)", line)
            if m:
                out[slug(m.group(1))] = m.group(1).strip()
    return out


def first_sentence(text):
    """The title of a comment: its first sentence, up to the first '.' or ':'
    that ends a word, without long parentheticals."""
    m = re.match(r"(.*?)[.:](\s|$)", text)
    t = m.group(1) if m else text
    t = re.sub(r"\s*\([^()]{20,}\)", "", t)  # "(aclmdlRITask handles come from ...)"
    return t.strip()


def section_title(text):
    # "Error details (acl_rt.h)" -> "Error details": the source header is not a capability;
    # "aclrtx: extensions beyond the ACL API (not part of the real runtime)": the long remark neither.
    text = re.sub(r"\s*\([^()]*\.h[^()]*\)", "", text)
    return re.sub(r"\s*\([^()]{20,}\)", "", text).strip()


def parse_api(root):
    """[(section, [(group or None, [functions])])] in header order."""
    path = os.path.join(root, "aclrt.h")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sections = []
    cur = None  # [title, groups]
    group = None  # [title, functions] or None
    pending = None  # a comment's title, waiting for its first function
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#endif /* ACLRT_H"):
            break
        if line.startswith("/* ===="):
            title = lines[i + 1].lstrip(" *").strip()
            cur = [section_title(title), []]
            sections.append(cur)
            group, pending = None, None
            while not lines[i].rstrip().endswith("*/"):
                i += 1
            i += 1
            continue
        if line.rstrip() == "/*" and cur is not None:
            text = []
            i += 1
            while not lines[i].strip().startswith("*/"):
                text.append(lines[i].strip().lstrip("*").strip())
                i += 1
            pending = first_sentence(" ".join(t for t in text if t))
            group = None
            i += 1
            continue
        if line.strip() == "" and group is not None and group[1]:
            group = None  # a blank line after a group's functions ends it
        m = re.match(r"ACLRT_API\b(.*)", line)
        if m and cur is not None:
            name = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", m.group(1))
            if not name:
                raise SystemExit("gen_coverage: aclrt.h:%d: cannot read the function name" % (i + 1))
            if pending is not None:
                group = [pending, []]
                cur[1].append(group)
                pending = None
            if group is None:
                if not cur[1] or cur[1][0][0] is not None:
                    cur[1].insert(0, [None, []])
                cur[1][0][1].append(name.group(1))
            else:
                group[1].append(name.group(1))
        i += 1
    return [s for s in sections if any(g[1] for g in s[1])]


def parse_hccl(root):
    """[(group title, [functions])] of hccl/hccl.h, in header order."""
    path = os.path.join(root, HCCL_HEADER)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    groups, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("/* ----"):
            text = []
            i += 1
            while not lines[i].lstrip().startswith("* ----"):
                text.append(lines[i].strip().lstrip("*").strip())
                i += 1
            groups.append([first_sentence(" ".join(t for t in text if t)), []])
        m = re.match(r"ACLRT_API\b(.*)", line)
        if m and groups:
            name = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", m.group(1))
            if not name:
                raise SystemExit("gen_coverage: %s:%d: cannot read the function name" % (HCCL_HEADER, i + 1))
            groups[-1][1].append(name.group(1))
        i += 1
    return [g for g in groups if g[1]]


def defined_functions(root):
    """Names of the API functions that have a body in impl/ or backends/."""
    names = set()
    for top in ("impl", "backends"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for fn in files:
                if not fn.endswith(".h"):
                    continue
                with open(os.path.join(d, fn), encoding="utf-8") as f:
                    text = f.read()
                for m in re.finditer(r"^ACLRT_API\b[^;{]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", text, re.M):
                    names.add(m.group(1))
    return names


def read_gaps(root):
    gaps = []
    path = os.path.join(root, GAPS)
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3 or parts[1] not in ("planned", "missing", "refused"):
                raise SystemExit("gen_coverage: %s:%d: expected 'NAME | planned|missing|refused | text'" % (GAPS, n))
            gaps.append(parts)
    return gaps


# Extensions with a page of their own.
PAGE_LINKS = {
    "The stream-ordering sanitizer": "SANITIZER.md",
}


def link_for(title, sem, emb):
    """A Markdown link to the page that says what the calls of `title` do, or ''."""
    if title in PAGE_LINKS:
        return "[%s](%s)" % (PAGE_LINKS[title], PAGE_LINKS[title])
    if title in EMBEDDING_LINKS:
        target = EMBEDDING_LINKS[title]
        return "[EMBEDDING.md](EMBEDDING.md#%s)" % slug(target) if slug(target) in emb else ""
    target = SEMANTIC_LINKS.get(title, title)
    if target is None:
        return ""
    for t in (target, re.split(r"[:(]", target)[0]):
        if slug(t) in sem:
            return "[SEMANTICS.md](SEMANTICS.md#%s)" % slug(t)
    return ""


def render(root):
    sections = parse_api(root)
    hccl = parse_hccl(root)
    names = [f for s in sections for g in s[1] for f in g[1]] + [f for g in hccl for f in g[1]]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise SystemExit("gen_coverage: declared twice in aclrt.h: " + ", ".join(dups))
    missing_body = [n for n in names if n not in defined_functions(root)]
    if missing_body:
        raise SystemExit("gen_coverage: declared in aclrt.h or %s, no body in impl/ or backends/: %s"
                         % (HCCL_HEADER, ", ".join(missing_body)))
    gaps = read_gaps(root)
    declared = set(names)
    stale = [g[0] for g in gaps if g[1] in ("planned", "missing") and g[0] in declared]
    if stale:
        raise SystemExit("gen_coverage: %s lists as not declared what aclrt.h declares now: %s (remove the lines)"
                         % (GAPS, ", ".join(stale)))
    sem = headings(os.path.join(root, SEMANTICS))
    emb = headings(os.path.join(root, "docs/EMBEDDING.md"))

    def count(s):
        return sum(len(g[1]) for g in s[1])

    acl = [s for s in sections if not s[0].startswith(EXTENSIONS_PREFIX)]
    ext = [s for s in sections if s[0].startswith(EXTENSIONS_PREFIX)]
    n_acl = sum(count(s) for s in acl)
    n_ext = sum(count(s) for s in ext)

    out = []
    w = out.append
    w("# API coverage")
    w("")
    w("<!-- Generated by scripts/gen_coverage.py from aclrt.h and %s: do not edit;" % GAPS)
    w("     run `python3 scripts/gen_coverage.py` after changing them. -->")
    w("")
    w("aclrt declares **%d functions of the ACL runtime API** and **%d `aclrtx` extensions**." % (n_acl, n_ext))
    w("Each one is implemented: a call does what the ACL documentation says,")
    w("and where the documentation is silent, [SEMANTICS.md](SEMANTICS.md) says what aclrt does.")
    w("Names, signatures, types, enum and flag values and error codes are those of the")
    w("CANN runtime headers (ACL 1.17). The groups below are the sections of `aclrt.h`,")
    w("in its order; [Known gaps](#known-gaps) lists what is not there yet.")
    w("")
    w("| capability | functions |")
    w("|---|---:|")
    for s in acl:
        w("| [%s](#%s) | %d |" % (s[0], slug(s[0]), count(s)))
    w("| **ACL runtime API** | **%d** |" % n_acl)
    for s in ext:
        w("| [%s](#%s) | %d |" % (s[0], slug(s[0]), count(s)))
    hccl_section = [HCCL_SECTION, [[t, f] for t, f in hccl]]
    if hccl:
        w("| [%s](#%s) (`%s`) | %d |" % (HCCL_SECTION, slug(HCCL_SECTION), HCCL_HEADER, count(hccl_section)))
    w("")

    def emit(s, intro=None):
        w("## %s" % s[0])
        w("")
        if intro:
            w(intro)
            w("")
        link = link_for(s[0], sem, emb)
        w("%d functions.%s" % (count(s), " What they do: %s." % link if link else ""))
        w("")
        for title, funcs in s[1]:
            listing = ", ".join("`%s`" % f for f in funcs)
            if title is None:
                w("- %s" % listing)
            else:
                link = link_for(title, sem, emb)
                w("- **%s** (%d%s): %s" % (title, len(funcs), ", " + link if link else "", listing))
        w("")

    for s in acl:
        emit(s)
    for s in ext:
        emit(s, "Not part of ACL: what a CPU runtime and the programs that embed it need\n"
                "([EMBEDDING.md](EMBEDDING.md)). Programs written for the real runtime do not use them.")
    if hccl:
        emit(hccl_section, "Every function of CANN's `hccl.h` (and `hccl_comm.h`), declared in `%s`; what\n"
                           "they do, and where they run: [HCCL.md](HCCL.md)." % HCCL_HEADER)

    w("## Known gaps")
    w("")
    w("Kept by hand in `%s`. *planned*: to be implemented; *missing*: not declared," % GAPS)
    w("no plan yet; *refused*: accepted by the compiler, answered with")
    w("`ACL_ERROR_RT_FEATURE_NOT_SUPPORT` at run time.")
    w("")
    w("| name | status | what it is |")
    w("|---|---|---|")
    for name, status, text in gaps:
        text = re.sub(r"\b((?:acl|ACL_)\w+)", r"`\1`", text)
        w("| `%s` | %s | %s |" % (name, status, text))
    w("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description="write docs/COVERAGE.md from aclrt.h")
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/COVERAGE.md is stale")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    text = render(args.root)
    return settle(os.path.join(args.root, OUT), OUT, text, args.check, "gen_coverage", "from aclrt.h", OUT)

if __name__ == "__main__":
    sys.exit(main())
