"""
scripts/docfile.py - what the doc generators share: write a generated doc,
or (--check) say whether the committed one is current, with a diff.
"""

import difflib
import sys


def settle(path, shown, new_text, check, who, source, subject):
    """Write new_text to path, or with check compare it with the file.

    shown names the file in the diff, who is the generator, source what the
    text comes from (the diff's label), subject what the messages speak of.
    Returns the exit status: 1 when checking found the file stale, else 0.
    """
    try:
        with open(path, encoding="utf-8") as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    if not check:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new_text)
        print("%s: wrote %s" % (who, subject))
        return 0
    if old == new_text:
        print("%s: %s is up to date" % (who, subject))
        return 0
    diff = difflib.unified_diff(old.split("\n"), new_text.split("\n"), shown + " (committed)",
                                "%s (%s)" % (shown, source), lineterm="", n=1)
    sys.stdout.write("\n".join(list(diff)[:40]) + "\n")
    print("%s: %s is stale; run: python3 scripts/%s.py" % (who, subject, who))
    return 1
