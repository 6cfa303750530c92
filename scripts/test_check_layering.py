#!/usr/bin/env python3
"""
scripts/test_check_layering.py - tests of scripts/check_layering.py on tiny
trees written to a temporary directory (run by `make check-layering`).

Each case writes an aclrt.h, impl/ and backends/ files, runs the checker on
them and asserts on its exit status and on the edges it names.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")

PUBLIC = """\
#ifndef ACLRT_H
#define ACLRT_H
typedef int aclError;
#define ACL_SUCCESS 0
typedef void *aclrtStream;
aclError aclrtDoThing(aclrtStream s);
#endif
"""

BASE = """\
#ifndef ACLRT_IMPL_BASE_H
#define ACLRT_IMPL_BASE_H
#include <stdint.h>
#define ACLRT_UNUSED __attribute__((unused))
#define ACLRT_INTERNAL static ACLRT_UNUSED
#define ACLRT_INLINE static inline ACLRT_UNUSED
#define ACLRT_ALIGNED(n) __attribute__((aligned(n)))
#endif
"""


def run_checker(files, layers="backends,impl"):
    """Write `files` (path -> text) under a fresh root; return (status, output)."""
    with tempfile.TemporaryDirectory() as root:
        tree = {"aclrt.h": PUBLIC, "impl/base.h": BASE, "backends/backend.h": "struct aclrt_backend { int x; };\n"}
        tree.update(files)
        includes = [p for p in sorted(tree) if p.startswith("impl/") and p != "impl/aclrt_impl.h"]
        tree.setdefault("impl/aclrt_impl.h", "".join('#include "%s"\n' % os.path.basename(p) for p in includes))
        for rel, text in tree.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(textwrap.dedent(text))
        proc = subprocess.run([sys.executable, SCRIPT, "--root", root, "--edges", "--all-names",
                               "--layers", layers],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        return proc.returncode, proc.stdout


class CheckLayeringTest(unittest.TestCase):
    def assertEdge(self, out, src, dst, name):
        line = "  %s -> %s: " % (src, dst)
        found = [l for l in out.splitlines() if l.startswith(line)]
        self.assertTrue(found, "no edge %s -> %s in:\n%s" % (src, dst, out))
        self.assertIn(name, found[0], out)

    def assertNoEdge(self, out, src, dst):
        line = "  %s -> %s: " % (src, dst)
        self.assertFalse([l for l in out.splitlines() if l.startswith(line)],
                         "unexpected edge %s -> %s in:\n%s" % (src, dst, out))

    def test_clean_tree_passes(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                ACLRT_INLINE int a_twice(int x) { return 2 * x; }
                """,
            "impl/b.h": """\
                #include "a.h"
                static int b_four(void) { return a_twice(2); }
                """,
        })
        self.assertEqual(status, 0, out)
        self.assertIn("ok: no dependency cycle", out)
        self.assertIn("ok: impl/ includes no backend", out)
        self.assertEdge(out, "impl/b.h", "impl/a.h", "a_twice")
        self.assertEdge(out, "impl/a.h", "impl/base.h", "ACLRT_INLINE")

    def test_cycle_through_a_forward_declared_function_is_reported(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                static void b_gone(int *p);   /* body in b.h */
                ACLRT_INTERNAL void a_destroy(int *p) { b_gone(p); }
                """,
            "impl/b.h": """\
                #include "a.h"
                static void b_gone(int *p)
                {
                    if (*p) a_destroy(p);
                }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertIn("SCC 1 (2 files", out)
        self.assertIn("impl/a.h -> impl/b.h (b_gone)", out)
        self.assertIn("impl/b.h -> impl/a.h (a_destroy)", out)
        # the file that calls the forward-declared function depends on the body's (its first use: the call)
        self.assertIn("impl/a.h -> impl/b.h: b_gone (line 3)", out)

    def test_a_prototype_that_is_not_called_is_no_dependency(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                static void b_entry(int *p);   /* a contract: declared here, defined and called elsewhere */
                ACLRT_INTERNAL void a_destroy(int *p) { (void)p; }
                """,
            "impl/b.h": """\
                #include "a.h"
                static void b_entry(int *p)
                {
                    a_destroy(p);
                }
                """,
        })
        self.assertEqual(status, 0, out)
        self.assertNotIn("impl/a.h -> impl/b.h", out)

    def test_cycle_through_a_multiline_macro_is_reported(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                #define A_SLOTS(n) \\
                    ((n) * B_SLOT_BYTES + \\
                     1)
                """,
            "impl/b.h": """\
                #include "a.h"
                #define B_SLOT_BYTES 64
                ACLRT_INTERNAL int b_size(void) { return A_SLOTS(4); }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertEdge(out, "impl/a.h", "impl/b.h", "B_SLOT_BYTES")
        self.assertEdge(out, "impl/b.h", "impl/a.h", "A_SLOTS")

    def test_pointer_only_struct_use_is_no_dependency(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                struct b_state;
                struct a_holder {
                    struct b_state *direct;
                    const struct b_state *const_ptr;
                    _Atomic(struct b_state *) atomic_ptr;
                    struct b_state *_Atomic atomic_qual;
                };
                ACLRT_INTERNAL struct b_state *a_pass(struct b_state *p, const struct b_state *q)
                {
                    (void)q;
                    return (struct b_state *)p;
                }
                """,
            "impl/b.h": """\
                #include "a.h"
                struct b_state { int count; };
                static int b_count(struct b_state *s) { return a_pass(s, s)->count; }
                """,
        })
        self.assertEqual(status, 0, out)
        self.assertNoEdge(out, "impl/a.h", "impl/b.h")
        self.assertEdge(out, "impl/b.h", "impl/a.h", "a_pass")

    def test_member_access_sizeof_and_by_value_use_count(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                struct b_state;
                ACLRT_INTERNAL int a_read(const struct b_state *s) { return s->count; }
                """,
            "impl/b.h": """\
                #include "a.h"
                struct b_state { int count; };
                ACLRT_INTERNAL int b_get(struct b_state *s) { return a_read(s); }
                """,
            "impl/c.h": """\
                #include "b.h"
                struct c_wrap { struct b_state inner; };
                ACLRT_INTERNAL unsigned long c_bytes(void) { return sizeof(struct b_state); }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertEdge(out, "impl/a.h", "impl/b.h", "b_state.count")
        self.assertEdge(out, "impl/c.h", "impl/b.h", "struct b_state")
        self.assertIn("impl/a.h -> impl/b.h (b_state.count)", out)

    def test_member_chains_are_typed_through_nested_structs(self):
        # `next` is a member in two files: only the typed chain can tell which.
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                struct a_node { struct a_node *next; int v; };
                """,
            "impl/b.h": """\
                #include "a.h"
                struct b_list { struct b_list *next; struct { struct a_node head; } u; };
                """,
            "impl/c.h": """\
                #include "b.h"
                static int c_first(struct b_list *l) { return l->u.head.next->v; }
                """,
        })
        self.assertEqual(status, 0, out)
        self.assertEdge(out, "impl/c.h", "impl/b.h", "b_list.u")
        self.assertEdge(out, "impl/c.h", "impl/a.h", "a_node.next")

    def test_tentative_definition_depends_on_the_initialized_one(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                struct a_rt { int started; };
                static struct a_rt a_runtime;   /* initialized in b.h */
                ACLRT_INLINE int a_started(void) { return a_runtime.started; }
                """,
            "impl/b.h": """\
                #include "a.h"
                static struct a_rt a_runtime = {.started = 0};
                ACLRT_INLINE void b_start(void) { a_runtime.started = 1; }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertEdge(out, "impl/a.h", "impl/b.h", "a_runtime")
        self.assertEdge(out, "impl/b.h", "impl/a.h", "a_rt.started")
        # the file with the initializer defines the variable: its own uses are no edge
        b_to_a = [l for l in out.splitlines() if l.startswith("  impl/b.h -> impl/a.h: ")][0]
        self.assertNotIn("a_runtime", b_to_a)

    def test_comments_strings_and_library_names_do_not_count(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                /* b_helper() would be nice here */
                // and b_helper again
                ACLRT_INTERNAL const char *a_name(void) { return "b_helper"; }
                ACLRT_INTERNAL int a_ok(void) { return ACL_SUCCESS + ck_pr_load_int(0) + B_ch('b'); }
                """,
            "impl/b.h": """\
                #include "a.h"
                #define ck_pr_load_int(p) 0
                #define B_ch(c) (c)
                ACLRT_INTERNAL int b_helper(void) { return a_ok(); }
                """,
        })
        self.assertEdge(out, "impl/a.h", "impl/b.h", "B_ch")
        self.assertNotIn("b_helper", [l for l in out.splitlines() if l.startswith("  impl/a.h -> impl/b.h")][0])
        self.assertNotIn("ck_pr_load_int", out)

    def test_impl_including_a_concrete_backend_fails(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                #include "../backends/backend.h"
                """,
            "backends/host.h": """\
                #include "../impl/a.h"
                #include "backend.h"
                """,
            "impl/aclrt_impl.h": """\
                #include "a.h"
                #include "../backends/host.h"
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: impl/ includes a concrete backend (1)", out)
        self.assertIn("impl/aclrt_impl.h:2: includes ../backends/host.h", out)
        self.assertNotIn("impl/a.h:2: includes", out)
        self.assertIn("ok: no dependency cycle", out)

    def test_a_folder_using_a_folder_above_it_fails(self):
        status, out = run_checker({
            "impl/low/a.h": """\
                #include "../base.h"
                #include "../high/b.h"
                ACLRT_INLINE int a_calls_up(void) { return b_value(); }
                """,
            "impl/high/b.h": """\
                #include "../base.h"
                ACLRT_INLINE int b_value(void) { return 1; }
                """,
            "impl/other/c.h": '#include "../base.h"\n',
        }, layers="backends,impl,impl/low,impl/high")
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: files in folders above their own (3)", out)
        self.assertIn("impl/other/c.h: in no folder of the layering", out)
        self.assertIn("impl/low/a.h:2: includes ../high/b.h, of impl/high/, above impl/low/", out)
        self.assertIn("impl/low/a.h uses impl/high/ (above impl/low/): impl/low/a.h -> impl/high/b.h: b_value", out)
        self.assertNotIn("impl/high/b.h uses", out)

    def test_a_use_its_includes_do_not_reach_fails(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                ACLRT_INLINE int a_value(void) { return 1; }
                """,
            "impl/b.h": """\
                #include "base.h"
                ACLRT_INLINE int b_value(void) { return a_value() + 1; }
                """,
            "impl/c.h": """\
                #include "b.h"
                ACLRT_INLINE int c_value(void) { return b_value() + 1; }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: uses that the file's includes do not reach (1)", out)
        self.assertIn("impl/b.h uses impl/a.h, which its includes do not reach: a_value (line 2)", out)
        self.assertNotIn("impl/c.h uses", out)  # b.h reaches base.h through its include: enough

    def test_a_header_the_implementation_never_includes_fails(self):
        status, out = run_checker({
            "aclrt.h": PUBLIC + '#ifdef ACLRT_IMPLEMENTATION\n#include "impl/aclrt_impl.h"\n#endif\n',
            "impl/a.h": '#include "base.h"\n',
            "impl/forgotten.h": '#include "base.h"\n',
            "impl/aclrt_impl.h": '#include "a.h"\n',
        })
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: headers the implementation never includes (2)", out)
        self.assertIn("impl/forgotten.h: no file aclrt.h includes reaches it", out)
        self.assertIn("backends/backend.h: no file aclrt.h includes reaches it", out)
        self.assertNotIn("impl/a.h: no file", out)

    def test_a_file_name_used_twice_fails(self):
        status, out = run_checker({
            "impl/x/same.h": '#include "../base.h"\n',
            "impl/y/same.h": '#include "../base.h"\n',
        }, layers="backends,impl,impl/x,impl/y")
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: file names used twice (1)", out)
        self.assertIn("same.h: impl/x/same.h, impl/y/same.h", out)

    def test_a_public_typedef_of_an_implementation_struct_counts(self):
        status, out = run_checker({
            "aclrt.h": PUBLIC.replace("#endif", "typedef struct rtInfo aclrtInfo;\n#endif"),
            "impl/info.h": """\
                #include "base.h"
                struct rtInfo { int id; };
                """,
            "impl/get.h": """\
                #include "info.h"
                ACLRT_INLINE int get_id(const aclrtInfo *info) { return info->id; }
                """,
        })
        self.assertEqual(status, 0, out)
        self.assertEdge(out, "impl/get.h", "impl/info.h", "rtInfo.id")

    def test_a_member_of_a_cann_header_struct_is_no_use_of_an_impl_file(self):
        status, out = run_checker({
            "acl/acl_thing.h": "typedef struct aclThingChunk { long offset; int last; } aclThingChunk;\n",
            "impl/args.h": """\
                #include "base.h"
                struct rt_param { int offset; };
                """,
            "impl/dump.h": """\
                #include "base.h"
                #include "../acl/acl_thing.h"
                ACLRT_INLINE void fill(aclThingChunk *c) { c->offset = 1; }
                ACLRT_INLINE void fill_any(void *p) { ((aclThingChunk *)p)->offset = 2; }
                """,
        })
        self.assertEqual(status, 0, out)
        self.assertNotIn("rt_param.offset", out)

    def test_a_comment_naming_a_file_that_is_gone_fails(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                /* The ring (ring.h) and the clock (base.h) and the API (aclrt.h). */
                ACLRT_INLINE int a_value(void) { return 1; }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: comments that name a file the tree does not have (1)", out)
        self.assertIn("impl/a.h:2: names ring.h, which is no file of the tree", out)

    def test_linkage_says_who_calls_a_function(self):
        status, out = run_checker({
            "impl/a.h": """\
                #include "base.h"
                static int a_shared(void) { return 1; }
                ACLRT_INTERNAL int a_private(void) { return 2; }
                ACLRT_INTERNAL int a_interface(void) { return a_private(); }
                ACLRT_INLINE int a_fast(void) { return 3; }
                """,
            "impl/b.h": """\
                #include "a.h"
                static int b_sum(void) { return a_shared() + a_interface() + a_fast(); }
                """,
        })
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: functions whose first word does not say who calls them (2)", out)
        self.assertIn("impl/a.h:2: a_shared is static, but impl/b.h calls it", out)
        self.assertIn("impl/a.h:3: a_private is ACLRT_INTERNAL, but no other file calls it", out)

    def test_the_task_kind_table_names_each_descriptors_file(self):
        status, out = run_checker({
            "impl/task/task.h": """\
                #include "../base.h"
                enum aclrt_task_kind_id {
                    ACLRT_TASK_NOP,      /* does nothing (below) */
                    ACLRT_TASK_COPY,     /* a copy (copy.h) */
                    ACLRT_TASK_FILL,     /* a fill */
                    ACLRT_TASK_KIND_COUNT
                };
                struct aclrt_task_kind { enum aclrt_task_kind_id id; };
                static const struct aclrt_task_kind aclrt_kind_nop = {ACLRT_TASK_NOP};
                """,
            "impl/task/copy.h": """\
                #include "task.h"
                static const struct aclrt_task_kind aclrt_kind_copy = {ACLRT_TASK_COPY};
                """,
            "impl/task/fill.h": """\
                #include "task.h"
                static const struct aclrt_task_kind aclrt_kind_fill = {ACLRT_TASK_FILL};
                """,
        }, layers="backends,impl,impl/task")
        self.assertEqual(status, 1, out)
        self.assertIn("FAIL: task kinds the table in impl/task/task.h places wrongly (1)", out)
        self.assertIn("ACLRT_TASK_FILL is said to be in copy.h, but impl/task/fill.h defines its descriptor", out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
