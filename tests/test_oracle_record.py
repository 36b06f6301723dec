"""tests/oracle/record.py masks Claude Code's own listing entries by position (README: Bundled entries).

Checked on every recorded listing: the entries the position rule calls Claude Code's own are exactly the
masked placeholders, except the user entries the older name rule masked (README: Limitation).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ORACLE = Path(__file__).resolve().parent / "oracle"
GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(ORACLE))
import record  # noqa: E402

# user skills that reuse a bundled name, masked by the name rule before record.py went by position
# (fuzz-reg seeds 22, 32, 39; the captures were not kept, so these goldens were not re-reduced)
NAME_RULE_MASKED_USER_ENTRIES = {
    ("fuzz-reg-22", "current"): ["simplify"], ("fuzz-reg-22", "legacy"): ["simplify"],
    ("fuzz-reg-32", "current"): ["review", "simplify"],
    ("fuzz-reg-39", "current"): ["review"], ("fuzz-reg-39", "legacy"): ["review"],
}
_PLACEHOLDER = re.compile(r"^- (\S+) \[bundled (?:entry|description)[^\n]*$")


def _listings():
    for path in sorted(GOLDEN.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        listing = data.get("listing") if isinstance(data, dict) else None
        if isinstance(listing, dict) and listing.get("text") and data.get("profile") in ("legacy", "current"):
            yield pytest.param(path, data, id=f"{path.parent.name}-{path.stem}")


def _entries(text: str) -> list[str]:
    rest = text.partition(record.HEADER + "\n\n")[2]
    for closing in ("\n</system-reminder>\n", "\n</system-reminder>"):
        if rest.endswith(closing):
            rest = rest[: -len(closing)]
            break
    return record.split_entries(rest)


@pytest.mark.parametrize("path,data", list(_listings()))
def test_position_rule_masks_claude_codes_own_entries(path, data):
    raw = _entries(data["listing"]["text"])
    # a placeholder stands for an entry with a description: give it one so entry_name reads the name
    entries = [_PLACEHOLDER.sub(r"- \1: x", e) for e in raw]
    own = record.own_entry_indexes(entries, data["profile"])
    masked = {i for i, e in enumerate(raw) if _PLACEHOLDER.match(e)}
    bare = {i for i, e in enumerate(raw) if e == "- " + record.entry_name(e)}
    assert own - bare <= masked  # every own entry with text was masked
    user = [record.entry_name(entries[i]) for i in sorted(masked - own)]
    assert user == NAME_RULE_MASKED_USER_ENTRIES.get((path.parent.name, data["profile"]), [])


def test_a_user_entry_with_a_bundled_name_is_not_claude_codes():
    # legacy seed 32: bundled block first, then user/project entries named review and simplify
    legacy = ["- update-config: a", "- simplify: b", "- loop: c", "- claude-api: d", "- alpha: x",
              "- review: fallback", "- simplify: Skill", "- deep:clash: Custom command"]
    assert record.own_entry_indexes(legacy, "legacy") == {0, 1, 2, 3}
    # current: user entries first, plugin skills, the bundled run, a renamed --add-dir entry, init, security-review
    current = ["- review: mine", "- simplify: mine too", "- run: user run", "- plug:x: y", "- dataviz: a",
               "- update-config: b", "- plugin-authoring: c", "- extra:review: z (scoped to extra/ — …)",
               "- init: d", "- security-review: e"]
    assert record.own_entry_indexes(current, "current") == {4, 5, 6, 8, 9}
