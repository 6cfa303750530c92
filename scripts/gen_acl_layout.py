#!/usr/bin/env python3
"""
scripts/gen_acl_layout.py - writes tests/test_acl_layout.c: every constant,
enumerator, struct size and member offset of CANN's public runtime headers
that aclrt also defines, with CANN's value, checked against aclrt's.

Usage: python3 scripts/gen_acl_layout.py CANN_INCLUDE [--root DIR] [--report]
  CANN_INCLUDE  a directory holding CANN's acl/ headers (include/external of
                CANN's runtime repository): read, compiled against, never
                copied. The test this writes holds names and numbers only.
  --report      print what CANN's headers define that aclrt does not; write nothing.

How: clang++ dumps the AST of a unit that includes every CANN header (C++,
because acl_tdt.h names an enum without its tag), which gives the names of
the enumerators, the static constants and the structs with their members;
the #define constants come from the headers' text. A C++ program built
against CANN's headers prints each one's value, size and offset; the same
dump of aclrt's acl/ headers says which of those names aclrt defines. The
test asserts, for each name both define, that aclrt's value is CANN's.
Needs clang++ and python3; run it when aclrt.h gains types or constants.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HEADERS = ["acl/acl_rt.h", "acl/acl_base_rt.h", "acl/acl_rt_allocator.h", "acl/acl_prof.h", "acl/acl_dump.h",
           "acl/acl_platform.h", "acl/acl_rt_memory_soma.h", "acl/acl_tdt.h", "acl/acl_tdt_queue.h",
           "acl/error_codes/rt_error_codes.h", "acl/error_codes/ge_error_codes.h"]
OUT = "tests/test_acl_layout.c"
MACRO = re.compile(r"^#define\s+((?:ACL|ACLRT|MSPROF|ACL_PROF)[A-Z0-9_]*)\s+\(?\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?\s*(?://.*|/\*.*)?$")


def ast_of(include_dirs, headers):
    unit = "".join('#include "%s"\n' % h for h in headers)
    cmd = ["clang++", "-x", "c++", "-std=c++17", "-fsyntax-only", "-Xclang", "-ast-dump=json", "-"]
    for d in include_dirs:
        cmd[1:1] = ["-I", d]
    res = subprocess.run(cmd, input=unit, capture_output=True, text=True, cwd="/")  # no stray quoted includes
    if res.returncode != 0:
        raise SystemExit("gen_acl_layout: clang++ failed:\n" + res.stderr[-3000:])
    return json.loads(res.stdout)


def names_in(ast, where):
    """Enumerators, static constants and records (name -> [member names]) declared in files under `where`."""
    cur = {"file": None}
    enums, consts, records = [], [], {}
    pending = []  # anonymous records waiting for their typedef name

    def file_of(n):
        loc = n.get("loc", {})
        loc = loc.get("expansionLoc", loc.get("spellingLoc", loc))
        if "file" in loc:
            cur["file"] = loc["file"]
        return cur["file"] or ""

    def walk(n, nested=False):
        k = n.get("kind")
        f = file_of(n)
        mine = where(f) and not nested  # a record inside a record has no name of its own in C
        if mine and k == "EnumConstantDecl":
            enums.append(n["name"])
        elif mine and k == "VarDecl" and n.get("storageClass") == "static":
            consts.append(n["name"])
        elif mine and k in ("RecordDecl", "CXXRecordDecl") and n.get("completeDefinition"):
            fields = [c["name"] for c in n.get("inner", []) if c.get("kind") == "FieldDecl" and c.get("name")]
            if n.get("name"):
                records[n["name"]] = ("%s %s" % (n.get("tagUsed", "struct"), n["name"]), fields)
            else:
                pending.append(fields)
        elif mine and k == "TypedefDecl" and pending and "unnamed" in n.get("type", {}).get("qualType", ""):
            records[n["name"]] = (n["name"], pending.pop())
        inner = nested or k in ("RecordDecl", "CXXRecordDecl")
        for c in n.get("inner", []):
            walk(c, inner)

    walk(ast)
    return enums, consts, records


def macros_in(include_dir, headers):
    out = []
    for h in headers:
        path = os.path.join(include_dir, h)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = MACRO.match(line.strip())
                if m:
                    out.append(m.group(1))
    return out


def cann_values(include_dir, enums, consts, macros, records):
    """Run a program built against CANN's headers: each value, size and offset."""
    lines = ["#include <cstddef>", "#include <cstdio>"] + ['#include "%s"' % h for h in HEADERS]
    lines.append("int main() {")
    for n in enums + consts + macros:
        lines.append('  std::printf("v %s %%lld\\n", (long long)(%s));' % (n, n))
    for name, (ctype, fields) in records.items():
        lines.append('  std::printf("s %s %%zu %%zu\\n", sizeof(%s), alignof(%s));' % (name, ctype, ctype))
        for fld in fields:
            lines.append('  std::printf("o %s.%s %%zu\\n", offsetof(%s, %s));' % (name, fld, ctype, fld))
    lines.append("  return 0;\n}")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "cann.cpp"), os.path.join(tmp, "cann")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        res = subprocess.run(["clang++", "-std=c++17", "-w", "-I", include_dir, src, "-o", exe],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit("gen_acl_layout: the CANN program failed to build:\n" + res.stderr[-3000:])
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    vals = {}
    for line in out.splitlines():
        parts = line.split()
        vals[(parts[0], parts[1])] = parts[2:]
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cann_include")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args()
    inc = os.path.abspath(args.cann_include)
    scope = {os.path.join(inc, h) for h in HEADERS}  # not acl_base.h, acl_mdl.h, acl_op.h: no runtime API
    enums, consts, records = names_in(ast_of([inc], HEADERS), lambda f: os.path.normpath(f) in scope)
    macros = [m for m in dict.fromkeys(macros_in(inc, HEADERS)) if m not in consts and m not in enums]
    enums = list(dict.fromkeys(enums))
    ours_hdrs = [h for h in HEADERS if os.path.exists(os.path.join(args.root, h))]
    root = os.path.abspath(args.root)
    o_enums, o_consts, o_records = names_in(ast_of([root], ours_hdrs), lambda f: f.startswith(root))
    o_macros = set(macros_in(root, ["aclrt.h"] + ours_hdrs))
    have = set(o_enums) | set(o_consts) | o_macros
    missing = [n for n in enums + consts + macros if n not in have]
    missing += ["%s (struct)" % r for r in records if r not in o_records]
    if args.report:
        print("\n".join(missing) if missing else "nothing missing")
        print("gen_acl_layout: %d names of CANN's headers that aclrt does not define" % len(missing), file=sys.stderr)
        return 0
    vals = cann_values(inc, enums, consts, macros, records)
    v_names = [n for n in enums + consts + macros if n in have]
    recs = [(n, records[n]) for n in records if n in o_records]
    text = []
    w = text.append
    w("/*")
    w(" * %s - generated by scripts/gen_acl_layout.py from CANN's public runtime" % OUT)
    w(" * headers: do not edit. Each constant and enumerator aclrt defines has CANN's value,")
    w(" * each struct CANN's size and alignment, each member CANN's offset.")
    w(" * %d values, %d structs; %d names of CANN's headers are not in aclrt yet." % (len(v_names), len(recs), len(missing)))
    w(" */")
    w('#include "check.h"')
    w("")
    # The headers acl/acl.h does not reach (as in CANN, a program includes them by name).
    for h in ("acl/acl_dump.h", "acl/acl_platform.h"):
        if os.path.exists(os.path.join(root, h)):
            w('#include "%s"' % h)
    w("")
    w("#include <stddef.h>")
    w("#include <stdint.h>")
    w("")
    w("struct expect {")
    w("    const char *name;")
    w("    long long ours, cann;")
    w("};")
    w("")
    w("#pragma GCC diagnostic push")
    w('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    w("static const struct expect values[] = {")
    for n in v_names:
        w('    {"%s", (long long)(%s), %sLL},' % (n, n, vals[("v", n)][0]))
    w("};")
    w("")
    w("static const struct expect layouts[] = {")
    for n, (ctype, fields) in recs:
        size, align = vals[("s", n)]
        ours_type = o_records[n][0]
        w('    {"sizeof(%s)", (long long)sizeof(%s), %s},' % (n, ours_type, size))
        w('    {"_Alignof(%s)", (long long)_Alignof(%s), %s},' % (n, ours_type, align))
        for fld in fields:
            if fld in o_records[n][1]:
                w('    {"offsetof(%s, %s)", (long long)offsetof(%s, %s), %s},' % (n, fld, ours_type, fld,
                                                                             vals[("o", "%s.%s" % (n, fld))][0]))
            else:
                w('    {"%s.%s (a member aclrt lacks)", 0, 1},' % (n, fld))
    w("};")
    w("#pragma GCC diagnostic pop")
    w("")
    w("static void check_all(const struct expect *e, size_t n)")
    w("{")
    w("    for (size_t i = 0; i < n; i++)")
    w("        if (e[i].ours != e[i].cann) {")
    w('            fprintf(stderr, "FAIL %s: aclrt %lld, CANN %lld\\n", e[i].name, e[i].ours, e[i].cann);')
    w("            check_failures++;")
    w("        }")
    w("}")
    w("")
    w("TEST(every_constant_and_enumerator_has_canns_value)")
    w("{")
    w("    check_all(values, sizeof values / sizeof values[0]);")
    w("}")
    w("")
    w("TEST(every_struct_has_canns_size_alignment_and_offsets)")
    w("{")
    w("    check_all(layouts, sizeof layouts / sizeof layouts[0]);")
    w("}")
    w("")
    w("int main(void)")
    w("{")
    w("    RUN(every_constant_and_enumerator_has_canns_value);")
    w("    RUN(every_struct_has_canns_size_alignment_and_offsets);")
    w('    return check_report("acl layout");')
    w("}")
    with open(os.path.join(root, OUT), "w") as f:
        f.write("\n".join(text) + "\n")
    print("gen_acl_layout: wrote %s (%d values, %d structs; %d names missing)" % (OUT, len(v_names), len(recs),
                                                                               len(missing)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
