"""The GUI renders, core decides: no module of skillmanager/gui matches the text of a reason or message,
compares an enum's value as text, or walks folders of its own (the watcher asks core's watch_targets)."""
from __future__ import annotations

import ast
from pathlib import Path

GUI = Path(__file__).resolve().parent.parent / "skillmanager" / "gui"
# Attributes and names that hold core's words for people (reasons, messages, summaries): shown, never parsed.
WORDS = {"reason", "reasons", "message", "summary", "refusal", "sentence", "detail", "note", "notes", "explanation",
         "shadow_reason", "listed_reason", "invocable_reason", "locked_reason", "editable_reason", "blocked_summary",
         "overrides_ignored", "banner"}
TEXT_SEARCHES = {"startswith", "endswith", "find", "rfind", "index", "count", "split", "partition"}
WALKS = {("os", "walk"), ("os", "scandir"), ("os", "listdir")}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _is_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_text(e) for e in node.elts)
    return isinstance(node, ast.JoinedStr)


def _findings(source: str, where: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            texts = any(_is_text(o) for o in operands)
            if texts and any(_name(o) in WORDS for o in operands):
                out.append(f"{line}: matches the text of a reason: {ast.unparse(node)}")
            if texts and any(_name(o) == "value" for o in operands):
                out.append(f"{line}: compares an enum's value as text: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in TEXT_SEARCHES and _name(node.func.value) in WORDS:
                out.append(f"{line}: searches the text of a reason: {ast.unparse(node)}")
            owner = _name(node.func.value)
            if (owner, node.func.attr) in WALKS or node.func.attr == "iterdir":
                out.append(f"{line}: walks folders itself: {ast.unparse(node)}")
    return out


def test_the_gui_never_parses_core_words_nor_walks_folders():
    found = []
    for path in sorted(GUI.rglob("*.py")):
        found += _findings(path.read_text(encoding="utf-8"), str(path.relative_to(GUI.parent.parent)))
    assert found == [], "\n".join(found)


def test_the_guard_sees_each_kind_of_violation():
    """The checks above can fail: each pattern they exist for is caught in a sample."""
    sample = '''
if "ignores skillOverrides" in control.reason: pass
if plan.refusal.startswith("Managed"): pass
if outcome.outcome.value in ("shortened", "name-only"): pass
if skill.source.value == "bundled": pass
for entry in os.scandir(folder): pass
children = list(folder.iterdir())
'''
    found = _findings(sample, "sample")
    assert [f.split(": ", 1)[1].split(":")[0] for f in found] == [
        "matches the text of a reason", "searches the text of a reason", "compares an enum's value as text",
        "compares an enum's value as text", "walks folders itself", "walks folders itself"]


def test_the_watcher_asks_core_which_folders_to_watch():
    source = (GUI / "watcher.py").read_text(encoding="utf-8")
    imported = {alias.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)
                and node.module == "skillmanager.core.load.watch_targets" for alias in node.names}
    assert {"watch_targets", "is_relevant_change"} <= imported
