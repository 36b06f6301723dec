"""Conflicts in words a person can act on: which folder wins, which loses and why, and how the copies
differ (what turning a losing copy off writes is edit/copy_switch.py).

Folders are named relative to the project (the cwd), or with `~` under the home folder. A realpath
duplicate (one SKILL.md reached through two paths) explains itself as the same file reached twice:
there is nothing to compare and nothing to turn off separately.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import Skill

if TYPE_CHECKING:
    from .registry import Registry

SAME_FILE = "the same file reached twice"
def folder_words(path: Path | None, cwd: Path | str, home: Path | str | None = None) -> str:
    """A skill's folder relative to the project, `~/…` under home, else absolute."""
    if path is None:
        return "(built in)"
    folder = os.path.dirname(str(path))
    cwd = os.path.normpath(str(cwd))
    rel = os.path.relpath(folder, cwd)
    if not rel.startswith(os.pardir):
        return "./" if rel == os.curdir else rel.replace(os.sep, "/")
    if home is not None:
        home_text = os.path.normpath(str(home))
        if folder == home_text or folder.startswith(home_text + os.sep):
            return "~/" + os.path.relpath(folder, home_text).replace(os.sep, "/")
    up = rel.replace(os.sep, "/")
    return up if up.count("../") <= 3 else folder


@dataclass(frozen=True)
class LoserWords:
    skill: Skill
    folder: str
    same_file: bool
    renamed: bool
    sentence: str  # wraps; names both folders
    reason: str  # the registry's own reason, verbatim (for the detail row)


@dataclass(frozen=True)
class ConflictWords:
    name: str
    winner: Skill
    winner_folder: str
    losers: list[LoserWords] = field(default_factory=list)

    @property
    def headline(self) -> str:
        copies = 1 + len(self.losers)
        return f"{self.name}: {copies} copies — {self.winner_folder} wins"


def conflict_words(registry: Registry) -> list[ConflictWords]:
    workspace = registry.workspace
    cwd, home = workspace.cwd, getattr(workspace, "home", None)
    out = []
    for conflict in registry.conflicts():
        winner = conflict.winner
        win_folder = folder_words(winner.path, cwd, home)
        items = []
        for loser, reason in conflict.losers:
            folder = folder_words(loser.path, cwd, home)
            same = loser.state.duplicate_of is not None
            renamed = bool(loser.scoped_from)
            if same:
                sentence = (f"{SAME_FILE[0].upper()}{SAME_FILE[1:]}: {folder} and {win_folder} lead to one "
                            f"SKILL.md ({loser.realpath or loser.path}); Claude Code loads it once, from "
                            f"{win_folder}.")
            elif renamed:
                sentence = (f"{folder} is listed as {loser.name} because {win_folder} already has the name "
                            f"{conflict.name}: {reason}")
            else:
                sentence = (f"{folder} ({loser.source.label.lower()}) loses to {win_folder} "
                            f"({winner.source.label.lower()}): {reason}")
            items.append(LoserWords(loser, folder, same, renamed, sentence, str(reason)))
        out.append(ConflictWords(conflict.name, winner, win_folder, items))
    return out


@dataclass(frozen=True)
class FrontMatterRow:
    key: str
    winner: str
    loser: str

    @property
    def same(self) -> bool:
        return self.winner == self.loser


@dataclass(frozen=True)
class Comparison:
    winner_folder: str
    loser_folder: str
    front_matter: list[FrontMatterRow]
    body_diff: list[str]  # unified diff lines of the bodies ("" list: identical bodies)
    summary: str

    @property
    def identical(self) -> bool:
        return not self.body_diff and all(r.same for r in self.front_matter)


def _value(front_matter: dict[str, Any], key: str) -> str:
    if key not in front_matter:
        return "—"
    value = front_matter[key]
    return str(value) if not isinstance(value, (list, dict)) else repr(value)


def compare_copies(winner: Skill, loser: Skill, cwd: Path | str, home: Path | str | None = None) -> Comparison:
    """Front matter key by key and a unified diff of the bodies (winner first)."""
    win_folder, lose_folder = folder_words(winner.path, cwd, home), folder_words(loser.path, cwd, home)
    if loser.state.duplicate_of is not None:
        return Comparison(win_folder, lose_folder, [], [],
                          f"{SAME_FILE[0].upper()}{SAME_FILE[1:]}: there is one file, nothing to compare.")
    fm_w, fm_l = winner.front_matter or {}, loser.front_matter or {}
    keys = list(dict.fromkeys([*fm_w, *fm_l]))
    rows = [FrontMatterRow(k, _value(fm_w, k), _value(fm_l, k)) for k in keys]
    diff = list(difflib.unified_diff((winner.body or "").splitlines(), (loser.body or "").splitlines(),
                                     fromfile=f"{win_folder} (wins)", tofile=f"{lose_folder} (loses)",
                                     lineterm="", n=2))
    differ = [r.key for r in rows if not r.same]
    parts = []
    parts.append(f"front matter differs in {', '.join(differ)}" if differ else "same front matter")
    parts.append("bodies differ" if diff else "same body")
    return Comparison(win_folder, lose_folder, rows, diff, "; ".join(parts).capitalize() + ".")
