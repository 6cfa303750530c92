#!/usr/bin/env python3
"""
scripts/check_layering.py - layering checks for the implementation files.

Usage: python3 scripts/check_layering.py [--root DIR] [--all-names] [--edges] [--layers L]
  --root DIR   the repository root (default: the one holding this script)
  --all-names  every name of every edge (default: the first six)
  --edges      also every edge of the whole graph
  --layers L   the folders, lowest first, comma-separated (default: LAYERS)

Checks, over the files of impl/ and backends/ (the implementation):

 1. No dependency cycle between files. File A depends on file B when A uses
    a name that B defines.
 2. impl/ includes no concrete backend: an #include in impl/ of a file of
    backends/ other than backends/backend.h is a violation.
 3. Folders are stacked: every file sits in one of the folders of LAYERS
    (impl/aclrt_impl.h, the index, excepted), and a file uses and includes
    only files of its own folder or of folders listed before it.
 4. A file includes what it uses: when A uses a name that B defines, B is
    among the files A's #includes reach (directly or through the files they
    include). Together with `make check-headers` (each header compiled on
    its own) this keeps every header standalone.
 5. The implementation is whole: the files aclrt.h includes behind
    ACLRT_IMPLEMENTATION reach every header of impl/ and backends/.
 6. File names are unique across the folders (an editor's quick-open, the
    comments that name a file).
 7. A function's first word says who calls it: ACLRT_INTERNAL (static,
    quiet when unused) for a function other files call, the file's
    interface; plain `static` for one only its own file calls; ACLRT_INLINE
    (static inline) for a short function meant to be inlined, whoever calls
    it; ACLRT_API for an entry point of the API.
 8. The table of task kinds in impl/task/task.h names, for each kind, the
    file that defines its descriptor ("(memcpy.h)"; an entry without a name
    shares the one above it).
 9. A file a comment names by its bare name ("(stream_sync.h)") is a file
    of the tree (or a public or library header): a comment that points a
    reader at a file keeps pointing at one after a move or a rename.

Exit status: 1 if there is a violation of any rule, 0 otherwise (2 on a
usage error). For each strongly connected component (Tarjan) of more than
one file it prints the files, a shortest cycle inside it (each edge with one
or two names that create it), every edge inside it with its names, and the
edges that go against the order in which the files appear in the translation
unit (from impl/aclrt_impl.h), with every name and the line of its first
use: every cycle contains at least one of those, so they are the edges to
remove or invert. An edge's names read: `aclrt_fail` (a function, macro,
variable, typedef or enum constant), `struct aclrt_task` (a complete-type use
of a tag), `aclrt_stream.hdr` (a member access on that struct).

How the files are read (a small tokenizer, no preprocessor): comments,
string and character literals are dropped; preprocessor lines (with their
backslash continuations) are read apart from the code; the code is split at
brace depth 0 into declarations and function definitions. Both branches of
an #if are read.

What a file defines (the "definer" of a name):
  - functions: the file with the body. A declaration alone (a forward
    declaration or prototype) defines nothing when some file has the body;
    with no body anywhere, the first declaring file is the definer.
  - macros (#define), typedefs, enum constants;
  - struct / union / enum tags: the file with the body ({ ... });
  - file-scope variables: the file whose definition has an initializer; a
    tentative definition ("static struct x v;", also extern) defines nothing
    when another file has the initialized one; with none, the first file.
  Files are taken in translation-unit order (impl/aclrt_impl.h's includes,
  followed recursively), then the others in name order.

What counts as a use (an identifier outside comments and strings):
  - any ordinary identifier (function, macro, typedef, enum constant,
    variable) defined by another file, in code, in #if/#ifdef/#elif lines and
    in macro bodies (a macro's body counts as a use by the file that defines
    the macro). A forward declaration (prototype) of a function is not a
    use by itself: the declaring file depends on the file with the body only
    where it calls or otherwise names the function (so a contract header may
    declare entry points that another layer defines).
  - a struct/union tag when its complete type is needed: a by-value member,
    variable, parameter or return type, sizeof(struct x), offsetof, a macro
    argument "struct x" (e.g. a table initializer taking sizeof), and
    sizeof(*p) where p is declared "struct x *". NOT a use: "struct x *p"
    (pointer only, qualifiers allowed between: const, volatile, _Atomic,
    restrict), "struct x;" (forward declaration). An enum tag always counts.
    CK_RING_PROTOTYPE(name, x) counts as a use of struct x (ck_ring's
    typed functions take its size).
  - a member access (p->m, p.m, designated initializers .m = ...), which
    needs the struct's definition. Heuristic for finding the struct:
      a. typed: the base's type is inferred from declarations seen so far in
         the same function (parameters and locals "struct x *p", "struct x v",
         also through _Atomic(...)), from file-scope variables, from the
         return type of a called function ("f(...)->m"), from a cast
         "((struct x *)e)->m", from "v = { .m = ... }" and "(struct x){ .m
         = ... }" for designated initializers, from a macro argument pair
         "struct x, name)" (ACLRT_TABLE_FOREACH declares name), and along
         chains (a->b.c: the type of member b of a's struct; an untagged
         struct/union type of a member is known as "outer.member", e.g.
         aclrt_task.u.wait). The access is a use of that struct's file. A
         base of a type that is not an implementation struct (struct
         timespec, cds_lfht_node, a scalar, a typedef of a system or public
         type) is no use.
      b. by name, when the base's type is unknown (macro bodies, nested
         initializers, other expressions): the member name is looked up among the
         members of every implementation struct; if all structs with a
         member of that name are defined in one file, the access is a use of
         that file; if they are in several files the access is ambiguous and
         counts for none (counted and reported as "ambiguous member uses").
  Names are ignored when a system header, Concurrency Kit (ck_*, CK_*),
  liburcu (cds_*, urcu_*, caa_*, and upper case), jsmn, aclrt.h (the
  public API: its macros, typedefs, enum constants and tags) or the
  CANN-named headers under acl/ and hccl/ (their types; a member name that a
  public struct also has is looked up by name as ambiguous) define them.
  A public function declared in aclrt.h whose body is in an implementation
  file is defined by that file, like any function.

Limits (known, accepted): identifiers are not scoped (a local variable named
like another file's global counts as a use of it); macros are not expanded
(a use inside an expansion counts where the macro is defined, see above);
struct tags reached only through typedefs of struct types are resolved for
"typedef struct x y;" only.
"""

import argparse
import collections
import os
import re
import sys

IMPL_DIRS = ("impl", "backends")
# The folders, lowest first: a file may use only its own folder and the ones before it.
LAYERS = ("impl/core", "impl/task", "backends", "impl/runtime", "impl/stream", "impl/context", "impl/shm",
          "impl/memory", "impl/sync", "impl/prof", "impl/exec", "impl/kernel", "impl/model", "impl/ipc",
          "impl/queue", "impl/system",
          "impl/hccl", "impl/sanitize", "impl/tdt",
          "backends/host", "backends/cuda")
ALLOWED_BACKEND_INCLUDE = "backends/backend.h"
AGGREGATE = "impl/aclrt_impl.h"
PUBLIC_HEADER = "aclrt.h"
PUBLIC_API_DIRS = ("acl", "hccl")  # CANN-named headers: their structs are public types


def public_api_headers(root):
    out = []
    for d in PUBLIC_API_DIRS:
        full = os.path.join(root, d)
        if os.path.isdir(full):
            out.extend(os.path.join(d, n) for n in sorted(os.listdir(full)) if n.endswith(".h"))
    return out

KEYWORDS = set("""
auto break case char const continue default do double else enum extern float for goto if inline int long
register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local
__attribute__ __attribute __typeof__ __typeof typeof __asm__ __asm asm __volatile__ __inline __inline__
__restrict __restrict__ __extension__ __thread __func__ __FUNCTION__ __alignof__ __builtin_offsetof
""".split())
QUALIFIERS = {"const", "volatile", "restrict", "_Atomic", "__restrict", "__restrict__"}
# Identifiers followed by a parenthesized group that is not a function call or name.
ATTRIBUTE_WORDS = {"__attribute__", "__attribute", "_Alignas", "__asm__", "__asm", "asm", "__declspec"}
IGNORED_PREFIXES = ("ck_", "cds_", "urcu_", "caa_", "jsmn")

# Three kinds of names in the edge labels; the shortest cycle shows the first kinds first.
KIND_NAME, KIND_TAG, KIND_MEMBER = 0, 1, 2


def ignored_name(name):
    low = name.lower()
    return low.startswith(IGNORED_PREFIXES)


def all_caps(name):
    return re.fullmatch(r"_*[A-Z][A-Z0-9_]*", name) is not None


# ---------------------------------------------------------------------------
# Tokenizer

class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind    # "id", "num", "str", "punct"
        self.text = text
        self.line = line

    def __repr__(self):
        return "Tok(%s %r @%d)" % (self.kind, self.text, self.line)


PUNCTS = ["...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
          "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##"]
ID_RE = re.compile(r"[A-Za-z_]\w*")
NUM_RE = re.compile(r"\.?\d(?:[eEpP][+-]|[\w.])*")


class Directive:
    __slots__ = ("name", "toks", "line")

    def __init__(self, name, toks, line):
        self.name = name
        self.toks = toks
        self.line = line


def tokenize(text):
    """Return (code tokens, directives). Comments are dropped, strings kept as
    one "str" token (their text is needed only for #include)."""
    toks = []
    directives = []
    i, n, line = 0, len(text), 1
    at_line_start = True
    in_directive = None  # list of tokens of the current directive
    dir_line = 0
    out = toks
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if c == "\n":
            line += 1
            i += 1
            if in_directive is not None:
                directives.append(_make_directive(in_directive, dir_line))
                in_directive = None
                out = toks
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        if text.startswith("//", i):
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    line += 1
                    continue
                j += 1
            i = j
            continue
        if c == "#" and at_line_start and in_directive is None:
            in_directive = []
            dir_line = line
            out = in_directive
            at_line_start = False
            i += 1
            continue
        at_line_start = False
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    if j + 1 < n and text[j + 1] == "\n":
                        line += 1
                    j += 2
                    continue
                if text[j] == "\n":  # unterminated: stop at the line end
                    break
                j += 1
            out.append(Tok("str", text[i:j + 1], line))
            i = j + 1
            continue
        m = ID_RE.match(text, i)
        if m:
            out.append(Tok("id", m.group(), line))
            i = m.end()
            continue
        m = NUM_RE.match(text, i)
        if m:
            out.append(Tok("num", m.group(), line))
            i = m.end()
            continue
        for p in PUNCTS:
            if text.startswith(p, i):
                out.append(Tok("punct", p, line))
                i += len(p)
                break
        else:
            out.append(Tok("punct", c, line))
            i += 1
    if in_directive is not None:
        directives.append(_make_directive(in_directive, dir_line))
    return toks, directives


def _make_directive(toks, line):
    if toks and toks[0].kind == "id":
        return Directive(toks[0].text, toks[1:], line)
    return Directive("", toks, line)


def match_close(toks, i, open_="(", close=")"):
    """Index of the token closing the group opened at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def match_open(toks, j, open_="(", close=")"):
    """Index of the token opening the group closed at toks[j]."""
    depth = 0
    for i in range(j, -1, -1):
        t = toks[i].text
        if t == close:
            depth += 1
        elif t == open_:
            depth -= 1
            if depth == 0:
                return i
    return 0


# ---------------------------------------------------------------------------
# Definitions

class Struct:
    def __init__(self, tag, kind, file, line):
        self.tag = tag
        self.kind = kind          # struct, union, enum
        self.file = file
        self.line = line
        self.members = {}         # name -> tag of its struct/union type (or None)


class FileInfo:
    def __init__(self, rel, text):
        self.rel = rel
        self.toks, self.directives = tokenize(text)
        self.includes = []          # (line, spelled path, resolved rel or None, quoted)
        self.member_decl_idx = set()  # token indices of member names in struct bodies
        self.prototype_idx = set()    # token indices of the names in function prototypes
        self.items = []             # top-level items in order: ("func", hdr_start, body_start, body_end)
        self.functions = []         # function definitions: (name, first word: static / ACLRT_INTERNAL ..., line)


class Model:
    """Everything defined by the files read, and the rules to resolve names."""

    def __init__(self):
        # ordinary names: name -> list of (strength, order, file, kind)
        self.ordinary = collections.defaultdict(list)
        self.tags = collections.defaultdict(list)      # tag -> [Struct] with a body
        self.macros = set()                            # every macro name (any file)
        self.func_ret_tag = {}                         # function -> struct tag it returns
        self.global_var_tag = {}                       # file-scope variable -> tag or FOREIGN
        self.typedef_tag = {}                          # typedef name -> struct tag
        self.public_names = set()                      # defined by aclrt.h
        self.public_tags = set()
        self.public_members = set()                    # member names of public structs
        self.public_typedefs = set()
        self.member_owners = collections.defaultdict(set)  # member name -> {(tag, file)}

    # which files define an ordinary name (empty: not an implementation name)
    def definers(self, name):
        if name in self.public_names or ignored_name(name):
            return ()
        defs = self.ordinary.get(name)
        if not defs:
            return ()
        best = max(d[0] for d in defs)
        chosen = [d for d in defs if d[0] == best]
        if best == 1:  # declarations / tentative definitions only: the first one
            chosen = [min(chosen, key=lambda d: d[1])]
        return tuple(sorted({d[2] for d in chosen}))

    def tag_files(self, tag):
        if tag in self.public_tags or ignored_name(tag):
            return ()
        return tuple(sorted({s.file for s in self.tags.get(tag, ())}))

    def struct(self, tag):
        lst = self.tags.get(tag)
        return lst[0] if lst else None


FOREIGN = "<foreign>"


def strip_attributes(toks, idx, macros):
    """Drop attribute groups (__attribute__((...)), _Alignas(...), MACRO(...)
    where MACRO is a macro name or upper case) and object-like macro words from
    a list of token indices; _Atomic(T) becomes T."""
    out = []
    k = 0
    while k < len(idx):
        t = toks[idx[k]]
        nxt = toks[idx[k + 1]].text if k + 1 < len(idx) else None
        if t.kind == "id" and nxt == "(" and (t.text in ATTRIBUTE_WORDS or
                                              (t.text not in KEYWORDS and (t.text in macros or all_caps(t.text)))):
            k = _skip_group(toks, idx, k + 1)
            continue
        if t.kind == "id" and t.text == "_Atomic" and nxt == "(":
            end = _skip_group(toks, idx, k + 1)
            out.extend(idx[k + 2:end - 1])
            k = end
            continue
        if t.kind == "id" and t.text in macros and t.text not in KEYWORDS and nxt != "(":
            k += 1
            continue
        out.append(idx[k])
        k += 1
    return out


def _skip_group(toks, idx, k):
    """idx[k] is an opening parenthesis; return the position after its match."""
    depth = 0
    while k < len(idx):
        t = toks[idx[k]].text
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return k


def split_top(toks, idx, sep):
    """Split a token index list at `sep` outside (), [] and {}."""
    parts, cur, depth = [], [], 0
    for i in idx:
        t = toks[i].text
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(i)
    parts.append(cur)
    return parts


def declarator_name(toks, idx, macros):
    """The declared name in a declarator (index list, attributes stripped):
    (*name)(...) for function pointers, else the last identifier before
    [, :, = or a parameter list."""
    idx = strip_attributes(toks, idx, macros)
    # function pointer: ( * [qualifiers] name )
    for k in range(len(idx) - 2):
        if toks[idx[k]].text == "(" and toks[idx[k + 1]].text == "*":
            m = k + 1
            while m < len(idx) and (toks[idx[m]].text == "*" or toks[idx[m]].text in QUALIFIERS):
                m += 1
            if m < len(idx) and toks[idx[m]].kind == "id" and toks[idx[m]].text not in KEYWORDS:
                return idx[m]
    name = None
    depth = 0
    for i in idx:
        t = toks[i]
        if depth == 0 and t.text in ("[", ":", "=", "("):
            if t.text == "(" and name is None:
                depth += 1
                continue
            break
        if t.text in "([":
            depth += 1
        elif t.text in ")]":
            depth -= 1
        elif depth == 0 and t.kind == "id" and t.text not in KEYWORDS:
            name = i
    return name


def function_name(toks, idx, macros):
    """For a declaration or definition header: the index of the function name
    (an identifier directly followed by a parameter list that is not an
    attribute, a macro or a keyword), or None."""
    k = 0
    while k < len(idx) - 1:
        t = toks[idx[k]]
        if toks[idx[k + 1]].text == "(":
            if t.kind == "id" and t.text not in KEYWORDS and t.text not in ATTRIBUTE_WORDS \
                    and t.text not in macros and not all_caps(t.text):
                return idx[k]
            if t.text == "=":
                return None
            k = _skip_group(toks, idx, k + 1)
            continue
        if t.text in ("=", "{"):
            return None
        k += 1
    return None


def header_is_function(toks, idx, macros):
    """A chunk of top-level tokens followed by `{`: is it a function header?"""
    if not idx or toks[idx[0]].text == "typedef":
        return False
    depth = 0
    for i in idx:
        t = toks[i].text
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif t == "=" and depth == 0:
            return False
    body = strip_attributes(toks, idx, macros)
    if not body or toks[body[-1]].text != ")":
        return False
    return function_name(toks, idx, macros) is not None


def tag_in(toks, idx):
    """The first 'struct/union TAG' in an index list (the type of a
    declaration), before any parameter list (a function pointer's parameters
    are not its type); _Atomic(struct x *) is looked into."""
    for k in range(len(idx) - 1):
        t = toks[idx[k]].text
        if t == "(" and not (k > 0 and toks[idx[k - 1]].text == "_Atomic"):
            return None
        if t in ("struct", "union") and toks[idx[k + 1]].kind == "id":
            return toks[idx[k + 1]].text
    return None


def read_file(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def collect_macros(fi, model, public):
    for d in fi.directives:
        if d.name == "define" and d.toks and d.toks[0].kind == "id":
            name = d.toks[0].text
            model.macros.add(name)
            if public:
                model.public_names.add(name)


def collect_includes(fi, root):
    for d in fi.directives:
        if d.name != "include" or not d.toks:
            continue
        t = d.toks[0]
        if t.kind == "str" and t.text.startswith('"'):
            spelled, quoted = t.text.strip('"'), True
        elif t.text == "<":
            spelled, quoted = "".join(x.text for x in d.toks[1:] if x.text != ">"), False
        else:
            continue
        resolved = None
        candidates = [os.path.join(os.path.dirname(fi.rel), spelled)] if quoted else []
        candidates.append(spelled)
        for c in candidates:
            c = os.path.normpath(c)
            if not c.startswith("..") and os.path.isfile(os.path.join(root, c)):
                resolved = c.replace(os.sep, "/")
                break
        fi.includes.append((d.line, spelled, resolved, quoted))


def parse_definitions(fi, model, order, public=False):
    """Top-level parse: record what this file defines."""
    toks = fi.toks
    macros = model.macros

    def add(name, strength, kind):
        if public:
            if strength >= 2 or kind in ("typedef", "enumconst", "macro"):
                model.public_names.add(name)
            return
        model.ordinary[name].append((strength, order, fi.rel, kind))

    if not public:
        for d in fi.directives:
            if d.name == "define" and d.toks and d.toks[0].kind == "id":
                add(d.toks[0].text, 2, "macro")

    n = len(toks)
    i = 0
    chunk = []
    while i < n:
        t = toks[i]
        # A top-level macro invocation with no semicolon (CK_RING_PROTOTYPE(...)).
        if not chunk and t.kind == "id" and all_caps(t.text) and i + 1 < n and toks[i + 1].text == "(" \
                and t.text not in KEYWORDS:
            j = match_close(toks, i + 1)
            if j + 1 >= n or toks[j + 1].text != ";":
                i = j + 1
                continue
        if t.text == "{" and [toks[k].text for k in chunk] == ["extern", '"C"']:
            chunk = []  # C++ linkage block: its contents are top level
            i += 1
            continue
        if t.text == "}" and not chunk:
            i += 1  # the end of an extern "C" block
            continue
        if t.text == "{":
            j = match_close(toks, i, "{", "}")
            if header_is_function(toks, chunk, macros):
                name_i = function_name(toks, chunk, macros)
                name = toks[name_i].text
                add(name, 2, "function")
                if not public:
                    fi.functions.append((name, toks[chunk[0]].text, toks[name_i].line))
                tag = tag_in(toks, [k for k in chunk if k < name_i])
                if tag and not public:
                    model.func_ret_tag[name] = tag
                fi.items.append(("func", chunk[0], i, j))
                chunk = []
                i = j + 1
                continue
            chunk.extend(range(i, j + 1))
            i = j + 1
            continue
        if t.text == ";":
            if chunk:
                parse_declaration(fi, model, chunk, add, public)
                fi.items.append(("decl", chunk[0], chunk[-1], i))
            chunk = []
            i += 1
            continue
        chunk.append(i)
        i += 1


def parse_declaration(fi, model, idx, add, public):
    toks = fi.toks
    macros = model.macros
    words = [toks[k].text for k in idx]
    if words[0] in ("_Static_assert", "static_assert"):
        return
    # struct / union / enum bodies anywhere in the declaration
    top, last = parse_bodies(fi, model, idx, public)
    is_typedef = "typedef" in words
    is_extern = "extern" in words
    fname = function_name(toks, top, macros)
    if fname is not None and not is_typedef:
        name = toks[fname].text
        add(name, 1, "function")
        fi.prototype_idx.add(fname)  # declaring a function is not using it
        tag = tag_in(toks, [k for k in top if k < fname])
        if tag and not public:
            model.func_ret_tag.setdefault(name, tag)
        return
    spec_tag = tag_in(toks, top)
    if spec_tag is None and last is not None and not public:
        spec_tag = last  # "static struct { ... } v": an untagged type, named after v below
    pieces = split_top(toks, top, ",")
    for p_i, piece in enumerate(pieces):
        name_i = declarator_name(toks, piece, macros)
        if name_i is None:
            continue
        name = toks[name_i].text
        eq = next((k for k in piece if toks[k].text == "="), None)
        if toks[name_i - 1].text in ("struct", "union", "enum") or \
                any(toks[k].text == "}" for k in piece if k > name_i and (eq is None or k < eq)):
            continue  # "struct x;" or "struct [attr] x {...};": a tag, no declarator
        if isinstance(spec_tag, Struct):
            if spec_tag.tag is None:
                spec_tag.tag = name if is_typedef else "typeof(%s)" % name
                model.tags[spec_tag.tag].append(spec_tag)
                for iname in spec_tag.members:
                    model.member_owners[iname].add((spec_tag.tag, fi.rel))
            spec_tag = spec_tag.tag
        if is_typedef:
            add(name, 2, "typedef")
            if public:
                model.public_typedefs.add(name)
            if spec_tag:  # a public typedef of a struct the implementation defines (struct rtExceptionInfo)
                model.typedef_tag[name] = spec_tag
            continue
        has_init = any(toks[k].text == "=" for k in piece)
        add(name, 2 if has_init and not is_extern else 1, "variable")
        if not public:
            model.global_var_tag.setdefault(name, spec_tag if spec_tag else FOREIGN)


def parse_bodies(fi, model, idx, public):
    """Record the struct/union/enum definitions (with bodies) in idx; return
    idx without the bodies (for finding the outer declarators; each body
    leaves its closing brace) and the last struct/union read."""
    last = None
    toks = fi.toks
    out = []
    k = 0
    while k < len(idx):
        i = idx[k]
        t = toks[i]
        if t.text in ("struct", "union", "enum"):
            tag = None
            m = k + 1
            # attributes between the keyword and the tag: struct ACLRT_ALIGNED(64) x {
            while m < len(idx) and toks[idx[m]].kind == "id" and (
                    toks[idx[m]].text in ATTRIBUTE_WORDS or toks[idx[m]].text in model.macros):
                if m + 1 < len(idx) and toks[idx[m + 1]].text == "(":
                    m = _skip_group(toks, idx, m + 1)
                else:
                    m += 1
            if m < len(idx) and toks[idx[m]].kind == "id":
                tag = toks[idx[m]].text
                m += 1
            if m < len(idx) and toks[idx[m]].text == "{":
                start = idx[m]
                end = match_close(toks, start, "{", "}")
                body = [x for x in idx if start < x < end]
                st = Struct(tag, t.text, fi.rel, t.line)
                if t.text == "enum":
                    for item in split_top(toks, body, ","):
                        if item and toks[item[0]].kind == "id":
                            if public:
                                model.public_names.add(toks[item[0]].text)
                            else:
                                model.ordinary[toks[item[0]].text].append((2, 0, fi.rel, "enumconst"))
                else:
                    parse_members(fi, model, body, st, public)
                if public:
                    model.public_members.update(st.members)
                if tag is not None:
                    if public:
                        model.public_tags.add(tag)
                    else:
                        model.tags[tag].append(st)
                        for mname, mtag in st.members.items():
                            model.member_owners[mname].add((tag, fi.rel))
                out.extend(idx[k:m])
                # skip to the closing brace
                while k < len(idx) and idx[k] <= end:
                    k += 1
                out.append(end)  # keep the '}' so "struct x {...} v" still splits
                if t.text != "enum":
                    last = st
                continue
        out.append(i)
        k += 1
    return out, last


def name_anonymous(model):
    """Untagged struct/union types of named members get the name
    "outer.member" (e.g. aclrt_task.u.wait), so that member chains through
    them stay typed."""
    def visit(st):
        for mname, mtype in list(st.members.items()):
            if isinstance(mtype, Struct):
                mtype.tag = "%s.%s" % (st.tag, mname)
                model.tags[mtype.tag].append(mtype)
                for iname in mtype.members:
                    model.member_owners[iname].add((mtype.tag, mtype.file))
                st.members[mname] = mtype.tag
                visit(mtype)
    for lst in list(model.tags.values()):
        for st in lst:
            visit(st)


def parse_members(fi, model, body, st, public):
    toks = fi.toks
    macros = model.macros
    for decl in split_top(toks, body, ";"):
        if not decl:
            continue
        top, inner = parse_bodies(fi, model, decl, public)
        spec_tag = tag_in(toks, decl)
        declared = False
        for piece in split_top(toks, top, ","):
            name_i = declarator_name(toks, piece, macros)
            if name_i is None or toks[name_i - 1].text in ("struct", "union", "enum"):
                continue  # no declarator: only a tag
            declared = True
            fi.member_decl_idx.add(name_i)
            mname = toks[name_i].text
            if inner is not None:
                # an untagged type stays a Struct here; name_anonymous() names it
                st.members[mname] = inner if inner.tag is None else inner.tag
            else:
                st.members[mname] = spec_tag
        if inner is not None and not declared:
            # anonymous struct/union member: its members are ours
            for mname, mtag in inner.members.items():
                st.members.setdefault(mname, mtag)


# ---------------------------------------------------------------------------
# Uses

class Uses:
    def __init__(self):
        # (from, to) -> {label: (kind, line)}
        self.edges = collections.defaultdict(dict)
        self.ambiguous = collections.Counter()

    def add(self, src, dst, label, kind, line):
        if src == dst:
            return
        d = self.edges[(src, dst)]
        if label not in d or d[label][1] > line:
            d[label] = (kind, line)


def scan_uses(fi, model, uses):
    toks = fi.toks
    src = fi.rel
    # 1. ordinary names and tags in code
    scan_names(toks, range(len(toks)), src, model, uses, fi.member_decl_idx | fi.prototype_idx)
    # 2. member accesses, typed per function
    done = set()
    for item in fi.items:
        if item[0] == "func":
            _, hdr_start, body_start, body_end = item
            scan_members(toks, hdr_start, body_end + 1, src, model, uses, done)
        else:
            _, start, _, end = item
            scan_members(toks, start, end + 1, src, model, uses, done)
    # 3. preprocessor lines
    for d in fi.directives:
        dt = d.toks
        if d.name == "define" and dt and dt[0].kind == "id":
            params = set()
            k = 1
            if len(dt) > 1 and dt[1].text == "(" and dt[1].line == dt[0].line:
                e = match_close(dt, 1)
                params = {x.text for x in dt[2:e] if x.kind == "id"}
                k = e + 1
            body = dt[k:]
            skip = {p for p, x in enumerate(body) if x.kind == "id" and x.text in params}
            scan_names(body, range(len(body)), src, model, uses, skip)
            scan_members(body, 0, len(body), src, model, uses, set())
        elif d.name in ("if", "ifdef", "ifndef", "elif"):
            names = [x for x in dt if x.kind == "id" and x.text != "defined"]
            scan_names(names, range(len(names)), src, model, uses, set())


def scan_names(toks, rng, src, model, uses, skip):
    for i in rng:
        t = toks[i]
        if t.kind != "id" or t.text in KEYWORDS or i in skip:
            continue
        prev = toks[i - 1].text if i > 0 else ""
        if prev in (".", "->"):
            continue
        if prev in ("struct", "union", "enum") and t.text not in model.macros:
            tag_use(toks, i, src, model, uses)
            continue
        if t.text == "CK_RING_PROTOTYPE" and i + 1 < len(toks) and toks[i + 1].text == "(":
            e = match_close(toks, i + 1)
            args = [x for x in toks[i + 2:e] if x.kind == "id"]
            if len(args) >= 2:
                for f in model.tag_files(args[1].text):
                    uses.add(src, f, "struct " + args[1].text, KIND_TAG, t.line)
        for f in model.definers(t.text):
            uses.add(src, f, t.text, KIND_NAME, t.line)


def tag_use(toks, i, src, model, uses):
    tag = toks[i].text
    files = model.tag_files(tag)
    if not files or src in files:
        return
    kw = toks[i - 1].text
    if kw != "enum":
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        if nxt in ("{", ";"):  # a definition, or "struct x;"
            return
        j = i + 1
        while j < len(toks) and toks[j].text in QUALIFIERS:
            j += 1
        if j < len(toks) and toks[j].text == "*":
            return  # pointer only
    for f in files:
        uses.add(src, f, "%s %s" % (kw, tag), KIND_TAG, toks[i].line)


def var_tag(model, local, name):
    if name in local:
        return local[name]
    if name in model.global_var_tag:
        return model.global_var_tag[name]
    return None


def scan_members(toks, start, end, src, model, uses, done):
    """Member accesses in toks[start:end]; declarations seen on the way give
    the variables' types (for a function: its parameters and locals)."""
    local = {}
    i = start
    while i < end:
        t = toks[i]
        # declarations: struct TAG [quals|*|_Atomic(]* NAME
        if t.text in ("struct", "union") and i + 1 < end and toks[i + 1].kind == "id":
            tag = toks[i + 1].text
            j = i + 2
            declare_after(toks, j, end, tag, local)
            # a macro that declares a variable: ACLRT_TABLE_FOREACH(table, struct x, name)
            if j + 2 < end and toks[j].text == "," and toks[j + 1].kind == "id" and toks[j + 2].text == ")":
                local[toks[j + 1].text] = tag
        elif t.kind == "id" and (t.text in model.typedef_tag or t.text in model.public_typedefs
                                 or t.text.endswith("_t")) and i + 1 < end:
            prev = toks[i - 1].text if i > 0 else ""
            if prev not in (".", "->"):
                tag = model.typedef_tag.get(t.text, FOREIGN)
                declare_after(toks, i + 1, end, tag, local)
        if t.text == "sizeof":
            j = i + 1
            if j < end and toks[j].text == "(":
                j += 1
            after = toks[j + 2].text if j + 2 < end else ""
            closes = after == ")" if toks[j - 1].text == "(" else after not in (".", "->", "[", "(")
            if j + 1 < end and toks[j].text == "*" and toks[j + 1].kind == "id" and closes:
                tag = var_tag(model, local, toks[j + 1].text)
                if tag and tag != FOREIGN:
                    for f in model.tag_files(tag):
                        uses.add(src, f, "sizeof(*%s) struct %s" % (toks[j + 1].text, tag), KIND_TAG, t.line)
        # member chains
        if t.text in (".", "->") and i + 1 < end and toks[i + 1].kind == "id" and (i + 1) not in done:
            base_tag = base_type(toks, i, start, model, local)
            j = i
            tag = base_tag
            while j + 1 < end and toks[j].text in (".", "->") and toks[j + 1].kind == "id":
                m = toks[j + 1]
                done.add(j + 1)
                tag = member_use(model, uses, src, tag, m.text, m.line)
                j += 2
                while j < end and toks[j].text in ("[", "("):
                    close = match_close(toks, j, toks[j].text, "]" if toks[j].text == "[" else ")")
                    if toks[j].text == "(":
                        tag = None  # a call through a function-pointer member
                    j = close + 1
                if j >= end or toks[j].text not in (".", "->"):
                    break
        i += 1


def declare_after(toks, j, end, tag, local):
    """After a type: record the declarators (NAME or *NAME, also inside an
    _Atomic(...) group) that follow."""
    first = True
    while j < end:
        k = j
        paren_close = 0
        while k < end and (toks[k].text in QUALIFIERS or toks[k].text == "*" or
                           (toks[k].text == "(" and k > 0 and toks[k - 1].text == "_Atomic") or
                           (toks[k].text == ")" and paren_close > 0)):
            if toks[k].text == "(":
                paren_close += 1
            elif toks[k].text == ")":
                paren_close -= 1
            k += 1
        if k >= end or toks[k].kind != "id" or toks[k].text in KEYWORDS:
            return
        nxt = toks[k + 1].text if k + 1 < end else ";"
        if nxt == "(" and not first:
            return
        if nxt == "(":
            return  # a function returning the type
        if nxt not in (",", ";", "=", ")", "[", ":"):
            return
        local[toks[k].text] = tag
        first = False
        # more declarators: skip an initializer, continue after a comma
        m = k + 1
        depth = 0
        while m < end:
            x = toks[m].text
            if x in "([{":
                depth += 1
            elif x in ")]}":
                if depth == 0:
                    return
                depth -= 1
            elif depth == 0 and x == ";":
                return
            elif depth == 0 and x == ",":
                break
            m += 1
        else:
            return
        # in a parameter list a comma starts a new type: stop there
        if m + 1 >= end or (toks[m + 1].kind == "id" and
                            (toks[m + 1].text in KEYWORDS or toks[m + 1].text.endswith("_t"))):
            return
        j = m + 1


def base_type(toks, op, start, model, local):
    """The struct tag of the expression before toks[op] ('.' or '->'): a tag,
    FOREIGN, or None (unknown)."""
    k = op - 1
    # skip subscripts: a[i].m, a[i]->m
    while k >= start and toks[k].text == "]":
        k = match_open(toks, k, "[", "]") - 1
    if k < start:
        return None
    t = toks[k]
    if t.text in ("{", ",") and toks[op].text == ".":
        return initializer_type(toks, k, start, model, local)
    if t.kind == "id":
        prev = toks[k - 1].text if k - 1 >= start else ""
        if prev in (".", "->"):
            return None  # a chain handled from its start (unknown here)
        return var_tag(model, local, t.text)
    if t.text == ")":
        o = match_open(toks, k)
        # call: f(...)->m
        if o - 1 >= start and toks[o - 1].kind == "id" and toks[o - 1].text not in KEYWORDS:
            name = toks[o - 1].text
            if name in model.func_ret_tag:
                return model.func_ret_tag[name]
            return None
        # cast inside parentheses: ((struct x *)e)->m
        if o + 3 < k and toks[o + 1].text == "(" and toks[o + 2].text in ("struct", "union"):
            return toks[o + 3].text
        # (*p).m
        if o + 2 < k and toks[o + 1].text == "*" and toks[o + 2].kind == "id" and o + 3 == k:
            return var_tag(model, local, toks[o + 2].text)
    return None


def initializer_type(toks, k, start, model, local):
    """A designated initializer ".m = ..." at toks[k + 1]: the type of the
    object the enclosing braces initialize, when that is "v = {" with v's
    type known, or a compound literal "(struct x){"."""
    depth = 0
    while k >= start:
        x = toks[k].text
        if x in (")", "]", "}"):
            depth += 1
        elif x in ("(", "["):
            depth -= 1
        elif x == "{":
            if depth == 0:
                break
            depth -= 1
        k -= 1
    if k - 2 < start:
        return None
    if toks[k - 1].text == "=" and toks[k - 2].kind == "id":
        return var_tag(model, local, toks[k - 2].text)
    if toks[k - 1].text == ")":
        o = match_open(toks, k - 1)
        if o + 2 < k and toks[o + 1].text in ("struct", "union"):
            return toks[o + 2].text
    return None


def member_use(model, uses, src, tag, member, line):
    """Record a member access; return the tag of the member's type."""
    if tag == FOREIGN:
        return FOREIGN
    if tag is not None:
        st = model.struct(tag)
        files = model.tag_files(tag)
        if not files:
            return FOREIGN  # not an implementation struct
        if "." not in tag:  # a nested untagged type: its outer access is listed already
            for f in files:
                uses.add(src, f, "%s.%s" % (tag, member), KIND_MEMBER, line)
        if st is not None and member in st.members:
            # a member of no struct type (scalar, pointer to a typedef'd or
            # system type): a further member access is on a foreign type
            return st.members[member] or FOREIGN
        return None
    owners = model.member_owners.get(member)
    if not owners:
        return None
    files = {f for _, f in owners}
    if len(files) != 1 or member in model.public_members:
        # a public struct (acl/*.h, hccl/*.h) has a member of that name too
        uses.ambiguous[member] += 1
        return None
    f = next(iter(files))
    tags = sorted(t for t, _ in owners)
    uses.add(src, f, "%s.%s" % ("|".join(tags), member), KIND_MEMBER, line)
    if len(tags) == 1:
        return model.struct(tags[0]).members.get(member)
    return None


# ---------------------------------------------------------------------------
# Graph

def tarjan(nodes, succ):
    index = {}
    low = {}
    on_stack = set()
    stack = []
    sccs = []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            sccs.append(comp)

    sys.setrecursionlimit(max(1000, 10 * len(nodes) + 100))
    for v in nodes:
        if v not in index:
            strong(v)
    return sccs


def shortest_cycle(comp, succ, rank):
    members = set(comp)
    best = None
    for s in sorted(comp, key=rank):
        # BFS from s back to s
        prev = {s: None}
        queue = collections.deque([s])
        found = None
        while queue and found is None:
            v = queue.popleft()
            for w in sorted(succ.get(v, ()), key=rank):
                if w not in members:
                    continue
                if w == s:
                    found = v
                    break
                if w not in prev:
                    prev[w] = v
                    queue.append(w)
        if found is None:
            continue
        path = [found]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        path.reverse()  # s ... found
        if best is None or len(path) < len(best):
            best = path
    return best


def translation_order(files, infos):
    """Files in the order their contents appear when impl/aclrt_impl.h is
    expanded (a file comes after what it includes), then the rest by name."""
    order = []
    seen = set()

    def visit(rel):
        if rel in seen or rel not in infos:
            return
        seen.add(rel)
        for _, _, resolved, _ in infos[rel].includes:
            if resolved:
                visit(resolved)
        order.append(rel)

    if AGGREGATE in infos:
        visit(AGGREGATE)
    for f in sorted(files):
        visit(f)
    return order


def labels(edge_names, limit, lines=False):
    items = sorted(edge_names.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]))
    names = ["%s (line %d)" % (k, v[1]) if lines else k for k, v in items]
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + ", +%d more" % (len(names) - limit)
    return ", ".join(names)


def analyse(root):
    files = []
    for d in IMPL_DIRS:
        base = os.path.join(root, d)
        if not os.path.isdir(base):
            continue
        for dirpath, _, names in os.walk(base):
            for n in names:
                if n.endswith((".h", ".c")):
                    rel = os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/")
                    files.append(rel)
    files.sort()
    infos = {rel: FileInfo(rel, read_file(root, rel)) for rel in files}
    for fi in infos.values():
        collect_includes(fi, root)
    order = translation_order(files, infos)
    rank = {f: k for k, f in enumerate(order)}

    model = Model()
    public = None
    if os.path.isfile(os.path.join(root, PUBLIC_HEADER)):
        public = FileInfo(PUBLIC_HEADER, read_file(root, PUBLIC_HEADER))
        collect_macros(public, model, True)
    for rel in order:
        collect_macros(infos[rel], model, False)
    if public is not None:
        parse_definitions(public, model, -1, public=True)
    for rel in public_api_headers(root):
        parse_definitions(FileInfo(rel, read_file(root, rel)), model, -1, public=True)
    for rel in order:
        parse_definitions(infos[rel], model, rank[rel])
    name_anonymous(model)

    uses = Uses()
    for rel in order:
        scan_uses(infos[rel], model, uses)
    return files, infos, order, rank, model, uses


def include_violations(infos):
    out = []
    for rel, fi in sorted(infos.items()):
        if not rel.startswith("impl/"):
            continue
        for line, spelled, resolved, _ in fi.includes:
            if resolved and resolved.startswith("backends/") and resolved != ALLOWED_BACKEND_INCLUDE:
                out.append("%s:%d: includes %s (impl/ may include only %s from backends/)"
                           % (rel, line, spelled, ALLOWED_BACKEND_INCLUDE))
    return out


def include_closure(infos):
    """For every file, the implementation files its #includes reach (itself excluded)."""
    direct = {rel: [r for _, _, r, _ in fi.includes if r in infos] for rel, fi in infos.items()}
    memo = {}

    def reach(rel):
        if rel in memo:
            return memo[rel]
        seen, stack = set(), list(direct[rel])
        while stack:
            f = stack.pop()
            if f not in seen:
                seen.add(f)
                stack.extend(direct[f])
        seen.discard(rel)
        memo[rel] = seen
        return seen

    return {rel: reach(rel) for rel in infos}


def layer_of(rel, layers):
    folder = os.path.dirname(rel)
    return layers.index(folder) if folder in layers else None


def folder_violations(infos, uses, layers):
    """Files outside the known folders; uses and includes of a folder above."""
    out = []
    for rel in sorted(infos):
        if rel != AGGREGATE and layer_of(rel, layers) is None:
            out.append("%s: in no folder of the layering (%s)" % (rel, ", ".join(layers)))
    for rel, fi in sorted(infos.items()):
        mine = layer_of(rel, layers)
        if mine is None or rel == AGGREGATE:
            continue
        for line, spelled, resolved, _ in fi.includes:
            theirs = layer_of(resolved, layers) if resolved in infos else None
            if theirs is not None and theirs > mine:
                out.append("%s:%d: includes %s, of %s/, above %s/"
                           % (rel, line, spelled, os.path.dirname(resolved), os.path.dirname(rel)))
    for (a, b), names in sorted(uses.edges.items()):
        la, lb = layer_of(a, layers), layer_of(b, layers)
        if la is not None and lb is not None and lb > la:
            out.append("%s uses %s/ (above %s/): %s -> %s: %s"
                       % (a, os.path.dirname(b), os.path.dirname(a), a, b, labels(names, 4)))
    return out


def reach_violations(infos, uses, closure):
    """Uses of a file that the user's includes do not reach."""
    out = []
    for (a, b), names in sorted(uses.edges.items()):
        if a != AGGREGATE and b not in closure.get(a, ()):
            out.append("%s uses %s, which its includes do not reach: %s" % (a, b, labels(names, 4, lines=True)))
    return out


def whole_violations(root, infos, closure):
    """Headers that the implementation, as aclrt.h assembles it, never includes."""
    public = os.path.join(root, PUBLIC_HEADER)
    if not os.path.isfile(public):
        return []
    top = FileInfo(PUBLIC_HEADER, read_file(root, PUBLIC_HEADER))
    collect_includes(top, root)
    reached = set()
    for _, _, resolved, _ in top.includes:
        if resolved in infos:
            reached.add(resolved)
            reached |= closure[resolved]
    if not reached:
        return []  # a tree whose aclrt.h assembles nothing (a fixture): nothing to check
    return ["%s: no file aclrt.h includes reaches it" % rel for rel in sorted(infos)
            if rel not in reached and rel.endswith(".h")]


def linkage_violations(infos, uses):
    """Functions whose first word does not say who calls them (rule 7)."""
    callers = collections.defaultdict(set)
    for (a, b), names in uses.edges.items():
        for n in names:
            callers[(b, n)].add(a)
    out = []
    for rel, fi in sorted(infos.items()):
        for name, word, line in fi.functions:
            others = sorted(callers.get((rel, name), ()))
            if word == "static" and others:
                out.append("%s:%d: %s is static, but %s call%s it: make it ACLRT_INTERNAL (or ACLRT_INLINE)"
                           % (rel, line, name, ", ".join(others), "s" if len(others) == 1 else ""))
            elif word == "ACLRT_INTERNAL" and not others:
                out.append("%s:%d: %s is ACLRT_INTERNAL, but no other file calls it: make it static"
                           % (rel, line, name))
    return out


KIND_ENTRY = re.compile(r"^\s*(ACLRT_TASK_\w+),.*?(?:\(([\w]+\.h)\))?[^(]*$")
KIND_DESCRIPTOR = re.compile(r"struct aclrt_task_kind\s+\w+\s*=\s*\{\s*(ACLRT_TASK_\w+)")


def kind_table_violations(root, infos):
    """Rule 8: the task-kind table names the file of each kind's descriptor."""
    table = "impl/task/task.h"
    if table not in infos:
        return []
    defined = {}
    for rel in infos:
        for m in KIND_DESCRIPTOR.finditer(read_file(root, rel)):
            defined.setdefault(m.group(1), rel)
    out, named, inside = [], None, False
    for n, line in enumerate(read_file(root, table).splitlines(), 1):
        if line.startswith("enum aclrt_task_kind_id"):
            inside = True
            continue
        if inside and line.startswith("}"):
            break
        m = KIND_ENTRY.match(line) if inside else None
        if not m or m.group(1) == "ACLRT_TASK_KIND_COUNT":
            continue
        named = m.group(2) or named or os.path.basename(table)  # the first entries: the table's own file
        where = defined.get(m.group(1))
        if where is None:
            out.append("%s:%d: %s: no file defines its descriptor" % (table, n, m.group(1)))
        elif named != os.path.basename(where):
            out.append("%s:%d: %s is said to be in %s, but %s defines its descriptor"
                       % (table, n, m.group(1), named, where))
    return out


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
MENTION = re.compile(r"(?<![\w/.<-])([a-z_]\w*\.h)\b")
# Headers a comment may name that are not files of impl/ or backends/.
OTHER_HEADERS = {"aclrt.h", "acl.h", "acl_rt.h", "acl_base.h", "acl_base_rt.h", "acl_rt_allocator.h", "acl_prof.h", "acl_dump.h",
                 "rt_error_codes.h", "hccl.h", "hccl_types.h", "jsmn.h", "mpi.h"}
OTHER_PREFIXES = ("ck_", "urcu", "cuda", "sys_", "linux_")


def mention_violations(root, infos):
    """Rule 9: files that comments name exist."""
    names = {os.path.basename(rel) for rel in infos}
    out = []
    for rel in sorted(infos):
        text = read_file(root, rel)
        for c in COMMENT.finditer(text):
            for m in MENTION.finditer(c.group(0)):
                n = m.group(1)
                if n not in names and n not in OTHER_HEADERS and not n.startswith(OTHER_PREFIXES):
                    line = text.count("\n", 0, c.start() + m.start()) + 1
                    out.append("%s:%d: names %s, which is no file of the tree" % (rel, line, n))
    return out


def duplicate_names(infos):
    by_name = collections.defaultdict(list)
    for rel in infos:
        by_name[os.path.basename(rel)].append(rel)
    return ["%s: %s" % (n, ", ".join(sorted(rels))) for n, rels in sorted(by_name.items()) if len(rels) > 1]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Layering checks for impl/ and backends/.")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="repository root (default: the one holding this script)")
    ap.add_argument("--all-names", action="store_true", help="list every name of each edge (default: 6)")
    ap.add_argument("--edges", action="store_true", help="also print every dependency edge of the graph")
    ap.add_argument("--layers", default=",".join(LAYERS), help="the folders, lowest first, comma-separated")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    if not any(os.path.isdir(os.path.join(root, d)) for d in IMPL_DIRS):
        print("check_layering: no impl/ or backends/ under %s" % root, file=sys.stderr)
        return 2

    files, infos, order, rank, model, uses = analyse(root)
    limit = None if args.all_names else 6
    succ = collections.defaultdict(set)
    for (a, b) in uses.edges:
        succ[a].add(b)
    rankf = lambda f: rank.get(f, len(rank))

    print("check_layering: %d files in %s, %d dependency edges"
          % (len(files), " and ".join(d + "/" for d in IMPL_DIRS), len(uses.edges)))
    if uses.ambiguous:
        print("  ambiguous member uses (counted for no file): %s"
              % ", ".join("%s x%d" % kv for kv in sorted(uses.ambiguous.items())))

    failed = False
    viol = include_violations(infos)
    print()
    if viol:
        failed = True
        print("FAIL: impl/ includes a concrete backend (%d)" % len(viol))
        for v in viol:
            print("  " + v)
    else:
        print("ok: impl/ includes no backend other than %s" % ALLOWED_BACKEND_INCLUDE)

    layers = tuple(l.strip("/") for l in args.layers.split(",") if l)
    closure = include_closure(infos)
    for title, ok, viol in (
            ("files in folders above their own", "every file uses and includes only its folder and the ones"
             " below it (%s)" % " < ".join(l + "/" for l in layers), folder_violations(infos, uses, layers)),
            ("uses that the file's includes do not reach", "every file includes what it uses",
             reach_violations(infos, uses, closure)),
            ("headers the implementation never includes", "aclrt.h's implementation reaches every header",
             whole_violations(root, infos, closure)),
            ("file names used twice", "file names are unique", duplicate_names(infos)),
            ("functions whose first word does not say who calls them",
             "ACLRT_INTERNAL functions are called by other files, static ones only by their own",
             linkage_violations(infos, uses)),
            ("task kinds the table in impl/task/task.h places wrongly",
             "the task-kind table names the file of every descriptor", kind_table_violations(root, infos)),
            ("comments that name a file the tree does not have", "every file a comment names exists",
             mention_violations(root, infos))):
        print()
        if viol:
            failed = True
            print("FAIL: %s (%d)" % (title, len(viol)))
            for v in viol:
                print("  " + v)
        else:
            print("ok: " + ok)

    comps = [sorted(c, key=rankf) for c in tarjan(order, succ) if len(c) > 1]
    comps.sort(key=lambda c: (-len(c), rankf(c[0])))
    print()
    if not comps:
        print("ok: no dependency cycle between files")
    else:
        failed = True
        print("FAIL: dependency cycles: %d strongly connected component(s) of more than one file" % len(comps))
    for n, comp in enumerate(comps, 1):
        members = set(comp)
        print()
        print("SCC %d (%d files, in translation-unit order): %s" % (n, len(comp), " ".join(comp)))
        cyc = shortest_cycle(comp, succ, rankf)
        parts = []
        for k, v in enumerate(cyc):
            w = cyc[(k + 1) % len(cyc)]
            parts.append("%s -> %s (%s)" % (v, w, labels(uses.edges[(v, w)], 2)))
        print("  shortest cycle (%d edges):" % len(cyc))
        for p in parts:
            print("    " + p)
        inside = sorted(((a, b) for (a, b) in uses.edges if a in members and b in members),
                        key=lambda e: (rankf(e[0]), rankf(e[1])))
        back = [e for e in inside if rankf(e[1]) > rankf(e[0])]
        print("  edges against the translation-unit order (%d; every cycle uses one: remove or invert these;"
              " all names, with the first line of each in the using file):" % len(back))
        for a, b in back:
            print("    %s -> %s: %s" % (a, b, labels(uses.edges[(a, b)], None, lines=True)))
        print("  all edges inside (%d):" % len(inside))
        for a, b in inside:
            print("    %s -> %s: %s" % (a, b, labels(uses.edges[(a, b)], limit)))

    if args.edges:
        print()
        print("all edges:")
        for (a, b) in sorted(uses.edges, key=lambda e: (rankf(e[0]), rankf(e[1]))):
            print("  %s -> %s: %s" % (a, b, labels(uses.edges[(a, b)], limit)))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        sys.exit(1)
