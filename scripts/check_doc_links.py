#!/usr/bin/env python3
"""
scripts/check_doc_links.py - the links and paths of the documentation resolve.

Usage: python3 scripts/check_doc_links.py [--root DIR] [FILE.md ...]
  (default: README.md and docs/*.md)

Checks, in each Markdown file:
  1. every relative link [text](target) names a file or folder of the
     repository (relative to the linking file), and its #anchor, if any,
     names a heading of the target (GitHub's anchors: lower case, spaces
     to '-', punctuation dropped, '-1', '-2' for repeats); a link to
     #anchor alone names a heading of the same file;
  2. every path the text names in the repository's own folders (`impl/...`,
     `backends/...`, `tests/...`, `scripts/...`, `bench/...`, `python/...`,
     `examples/...`, `acl/...`, `docs/...`) exists. Paths with wildcards
     or placeholders (`*`, `<`, `{`) are not checked, nor the outputs of a
     build (OUTPUTS);
  3. every header the text names by its bare name (`ring.h`, stream.h) is a
     file of the repository, unless EXTERNAL lists it (headers of other
     packages that the docs name);
  4. README.md links every page of docs/ (when README.md is checked).
Links to other sites (http:, https:, mailto:) are not checked.
Exit status: 1 if anything does not resolve (each is listed), 0 otherwise.
"""

import argparse
import glob
import os
import re
import sys

TOP = ("impl", "backends", "tests", "scripts", "bench", "python", "examples", "acl", "docs")
# Files that a build writes and the repository does not hold.
# What a build or a benchmark run writes (not in the repository): the docs may name it.
OUTPUTS = ("bench/results", "dist/aclrt.h", "python/build")

# Headers of other packages the docs name; every other bare name must be a file of the repository.
EXTERNAL = {"acl_dump.h", "acl_prof.h", "acl_tdt.h", "acl_tdt_queue.h", "aclnn_add.h", "kernel_operator.h",
            "securec.h", "stdio.h", "acl_base_rt.h", "jsmn.h", "ck_ring.h", "Python.h", "acl_rt_memory_soma.h"}
HEADER = re.compile(r"(?<![\w/.-])([A-Za-z_]\w*\.h)\b")

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w/$.~-])((?:%s)/[\w./+-]*[\w/])" % "|".join(TOP))


def slug(title):
    s = title.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        fence = False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                    continue
                m = None if fence else re.match(r"#{1,6} (.*?)\s*#*\s*$", line)
                if m:
                    a = slug(m.group(1))
                    n = seen.get(a, 0)
                    seen[a] = n + 1
                    out.add(a if n == 0 else "%s-%d" % (a, n))
        cache[path] = out
    return cache[path]


def repo_headers(root, cache={}):
    if root not in cache:
        names = set()
        for d, dirs, files in os.walk(root):
            rel = os.path.relpath(d, root)
            dirs[:] = [x for x in dirs if not x.startswith((".", "build")) and
                       os.path.join(rel, x) not in ("./dist", "dist", "python/build")]
            names.update(f for f in files if f.endswith(".h"))
        cache[root] = names
    return cache[root]


def check_file(root, rel):
    problems = []
    path = os.path.join(root, rel)
    here = os.path.dirname(path)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = False
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = not fence
        if not fence:
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(here, file_part)) if file_part else path
                shown = os.path.relpath(dest, root)
                if not os.path.exists(dest):
                    if not (shown in OUTPUTS or shown.startswith(tuple(o + "/" for o in OUTPUTS))):
                        problems.append("%s:%d: link to %s: no such file" % (rel, n, target))
                    continue
                if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append("%s:%d: link to %s: %s has no heading with that anchor" % (rel, n, target, shown))
        for m in PATH.finditer(line):
            p = m.group(1).rstrip(".")
            if any(c in line[m.end(1):m.end(1) + 1] for c in "*<{"):
                continue
            if p in OUTPUTS or p.startswith(tuple(o + "/" for o in OUTPUTS)) or os.path.exists(os.path.join(root, p)) or glob.glob(os.path.join(root, p) + "*"):
                continue
            msg = "%s:%d: names %s, which does not exist" % (rel, n, p)
            if msg not in problems:
                problems.append(msg)
        for m in HEADER.finditer(line):
            name = m.group(1)
            if name not in EXTERNAL and name not in repo_headers(root):
                msg = "%s:%d: names %s, which is no file of the repository" % (rel, n, name)
                if msg not in problems:
                    problems.append(msg)
    return problems


def main():
    ap = argparse.ArgumentParser(description="check the links and paths of the documentation")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or (["README.md"] + sorted(os.path.relpath(p, args.root)
                                                  for p in glob.glob(os.path.join(args.root, "docs", "*.md"))))
    problems = []
    for rel in files:
        problems += check_file(args.root, rel)
    if "README.md" in files:
        with open(os.path.join(args.root, "README.md"), encoding="utf-8") as f:
            linked = {os.path.normpath(m.group(1).partition("#")[0]) for m in LINK.finditer(f.read()) if m.group(1)}
        for page in sorted(glob.glob(os.path.join(args.root, "docs", "*.md"))):
            rel = os.path.relpath(page, args.root)
            if rel not in linked:
                problems.append("README.md: links no %s (every page of docs/ is listed there)" % rel)
    for p in problems:
        print(p)
    if problems:
        print("check_doc_links: %d link(s) or path(s) do not resolve" % len(problems))
        return 1
    print("check_doc_links: %d files, every link and path resolves" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
