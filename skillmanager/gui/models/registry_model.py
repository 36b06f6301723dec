"""The registry as a Qt tree: sources (in precedence order, with counts) → skills, then a
"Problems (N)" group with the workspace's own diagnostics (bad settings, skipped skill files…).

A custom QAbstractItemModel over the engine's own objects. `apply_snapshot()` updates the tree
in place — rows are inserted, removed and moved, changed rows emit dataChanged — so that
persistent indexes (the selection, the expanded groups) survive a rescan. The view does not walk it
directly: RegistryRows mirrors its rows in Qt's own item tree (structure in C++, data from here), and
RegistryFilterProxy sorts that.
"""
from __future__ import annotations

import enum
from typing import Any, Callable, Hashable, Sequence

from PySide6.QtCore import (QAbstractItemModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt,
                            Signal)
from PySide6.QtGui import QBrush, QColor, QFont, QStandardItem, QStandardItemModel

from skillmanager.core.model import Skill, SourceKind
from skillmanager.core.rules.buckets import REVIEW_BADGES, bucket_counts, skill_buckets
from skillmanager.gui import problems as problem_words
from skillmanager.gui import states
from skillmanager.gui.engine import SkillGroup, Snapshot, group_skills, overlay_session, skill_identity

_USER = Qt.ItemDataRole.UserRole.value


class Role(enum.IntEnum):
    """Typed data roles of the registry model."""

    Name = _USER + 1
    Source = _USER + 2
    State = _USER + 3  # states.Visual
    Tokens = _USER + 4  # int, tokens of the skill's listing entry (0 when not listed)
    Path = _USER + 5  # str
    Diagnostics = _USER + 6  # list[Diagnostic]
    Skill = _USER + 7  # the core Skill object
    Identity = _USER + 8  # a key that survives rescans
    IsGroup = _USER + 9
    SortKey = _USER + 10  # used by the proxy: name (lower-case) or tokens
    Checks = _USER + 11  # core.skill_checks.SkillChecks | None (audit + lint, filled off the UI thread)
    Simulated = _USER + 12  # str | None: how the simulator changed this row ("discovered", "activated")
    Problem = _USER + 13  # core Diagnostic of a row in the Problems group (None elsewhere)
    Switch = _USER + 14  # core.edit.switch.SwitchFacts of the row switch (None: no switch)
    Outcome = _USER + 15  # core ListingOutcome: what the start-up listing carries
    Usage = _USER + 16  # core SkillUsage: uses in the last days, from Claude Code's session logs
    Buckets = _USER + 17  # frozenset of core.rules.buckets.Bucket: the quick filters the row belongs to


class Column(enum.IntEnum):
    Name = 0
    State = 1
    Checks = 2  # audit / lint badge
    Tokens = 3
    Used = 4  # "14×" / "never" (the tooltip: "used 14× in 30 days …"); sorts by the count


_COLUMNS = len(Column)
_COLUMN_AT = tuple(Column)
_ROW_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
# skill and problem rows are leaves: saying so spares the tree view a hasChildren() call per row per layout
_LEAF_FLAGS = _ROW_FLAGS | Qt.ItemFlag.ItemNeverHasChildren
_STATE_COLUMN = int(Column.State)
_GROUP_ROW = (_ROW_FLAGS,) * _COLUMNS
_LEAF_ROW = (_LEAF_FLAGS,) * _COLUMNS
_SWITCH_ROW = tuple(_LEAF_FLAGS | Qt.ItemFlag.ItemIsUserCheckable if column == _STATE_COLUMN else _LEAF_FLAGS
                    for column in range(_COLUMNS))  # a row whose switch can be clicked
_NO_INDEX = QModelIndex()


HEADERS = {Column.Name: "Skill", Column.State: "State", Column.Checks: "Checks", Column.Tokens: "Tokens",
           Column.Used: "Used"}
HEADER_TIPS = {Column.Name: "Skills by source, in the order Claude Code resolves them",
               Column.State: "What Claude sees of the skill",
               Column.Checks: "Security audit and Claude Code lint findings (hover a badge for the list)",
               Column.Tokens: "Tokens of the skill's entry in the start-up listing",
               Column.Used: "How often Claude called it or you typed /name in the last 30 days (Claude Code's session logs)"}


PROBLEMS_TIP = "Settings and skill files Claude Code could not use as written"


class TreeItem:
    """A node: the invisible root, a source group, or a skill."""

    __slots__ = ("parent", "children", "key", "group", "skill", "visual", "tokens", "entry", "_row", "fingerprint",
                 "haystack", "simulated", "problem", "switch")

    def __init__(self, parent: "TreeItem | None", key: Hashable, group: SkillGroup | None = None,
                 skill: Skill | None = None):
        self.parent = parent
        self.children: list[TreeItem] = []
        self.key = key
        self.group = group
        self.skill = skill
        self.visual: states.Visual | None = None
        self.tokens = 0
        self.entry = None
        self._row = 0
        self.fingerprint = None
        self.haystack = ""
        self.simulated: str | None = None  # set by the simulator overlay: "discovered" | "activated"
        self.problem = None  # a core Diagnostic: a row of the Problems group
        self.switch = None  # the snapshot's SwitchFacts the row shows (its flags and check box follow it)

    def row(self) -> int:
        return self._row  # kept current by _renumber after every change to the parent's children


def _renumber(parent: TreeItem, start: int = 0) -> None:
    children = parent.children
    for row in range(start, len(children)):
        children[row]._row = row


def _fingerprint(skill: Skill) -> tuple:
    """What a row shows or a panel reads; equal fingerprints mean no dataChanged is needed."""
    state = skill.state
    return (skill.description, skill.when_to_use, skill.size_bytes, skill.content_key, len(skill.diagnostics),
            state.listed, state.invocable_by, state.active, state.shadowed_by is None, state.duplicate_of is None,
            len(state.decided_by), skill.disable_model_invocation, skill.user_invocable)


class RegistryModel(QAbstractItemModel):
    switch_requested = Signal(object, bool)  # (skill, turn on): the row switch was clicked
    buckets_changed = Signal(object)  # {Bucket: count} over every skill (the filter chips' counts)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._root = TreeItem(None, "root")
        self._snapshot: Snapshot | None = None
        self._groups: list[SkillGroup] = []  # every group of the snapshot, before the filter
        self._needle = ""  # the filter, case-folded ("" = show all)
        self._haystacks: dict[int, tuple] = {}  # id(skill) -> (skill, text the filter searches, identity)
        self._filter_only = False  # set while a filter change re-syncs (rows hold current objects)
        self._pool: dict[Hashable, TreeItem] = {}  # skill rows hidden by the filter, reused when shown again
        self._items: dict[Hashable, TreeItem] | None = None  # identity -> skill row (built on demand)
        self._checks: dict[Hashable, Any] = {}  # identity -> SkillChecks (see set_checks)
        self._additions = None  # core.session_view.SessionAdditions of the simulator (see set_session)
        self._marks: dict[Hashable, Any] = {}  # identity -> engine.SimulatedMark
        self._buckets: dict[Hashable, frozenset] = {}  # identity -> core buckets (see _bucket_of)
        self._bucket = None  # the filter chip in use (core Bucket) or None

    # --- reading -------------------------------------------------------------------------------
    def _item(self, index: QModelIndex) -> TreeItem:
        return index.internalPointer() if index.isValid() else self._root

    def index(self, row: int, column: int, parent: QModelIndex = _NO_INDEX) -> QModelIndex:
        if parent.isValid():
            if parent.column():
                return QModelIndex()
            children = parent.internalPointer().children
        else:
            children = self._root.children
        if 0 <= row < len(children) and 0 <= column < _COLUMNS:
            return self.createIndex(row, column, children[row])
        return QModelIndex()

    def parent(self, index: QModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        item: TreeItem = index.internalPointer()
        parent = item.parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row(), 0, parent)

    def rowCount(self, parent: QModelIndex = _NO_INDEX) -> int:
        if parent.isValid():
            return 0 if parent.column() else len(parent.internalPointer().children)
        return len(self._root.children)

    def columnCount(self, parent: QModelIndex = _NO_INDEX) -> int:
        return _COLUMNS

    def hasChildren(self, parent: QModelIndex = _NO_INDEX) -> bool:
        return self.rowCount(parent) > 0

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return self.item_flags(index.internalPointer())[index.column()]

    def item_flags(self, item: TreeItem) -> tuple[Qt.ItemFlag, ...]:
        """flags() of every column of an item's row (one of three shared tuples)."""
        if item.parent is self._root:
            return _GROUP_ROW
        facts = self._switch(item)
        return _SWITCH_ROW if facts is not None and facts.enabled else _LEAF_ROW

    def children_of(self, parent: QModelIndex) -> list[TreeItem]:
        """The items of the rows under `parent`, in row order (not a copy: read, never change)."""
        return (parent.internalPointer() if parent.isValid() else self._root).children

    def index_of(self, item: TreeItem, column: int = 0) -> QModelIndex:
        return QModelIndex() if item is self._root else self.createIndex(item.row(), column, item)

    def _switch(self, item: TreeItem):
        if item.skill is None or self._snapshot is None or item.simulated is not None:
            return None
        return self._snapshot.switches.get(item.key)

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """The row switch: ask for the change (core plans and writes it; the refresh shows the result)."""
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid() or index.column() != Column.State:
            return False
        item: TreeItem = index.internalPointer()
        facts = self._switch(item)
        if facts is None or not facts.enabled:
            return False
        turn_on = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        self.switch_requested.emit(item.skill, bool(turn_on))
        return False  # the state changes when the files say so

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation is Qt.Orientation.Horizontal and 0 <= section < len(Column):
            if role == Qt.ItemDataRole.DisplayRole:
                return HEADERS[Column(section)]
            if role == Qt.ItemDataRole.ToolTipRole:
                return HEADER_TIPS[Column(section)]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return self.cell_data(index.internalPointer(), index.column(), role)

    def cell_data(self, item: TreeItem, column: int, role: int) -> Any:
        """data() of an item's cell."""
        column = _COLUMN_AT[column]  # not Column(column): a microsecond slower, for every painted cell and role
        if item.group is not None:
            return self._group_data(item, column, role)
        if item.problem is not None:
            return self._problem_data(item, column, role)
        return self._skill_data(item, column, role)

    def _group_data(self, item: TreeItem, column: Column, role: int):
        group = item.group
        if role == Qt.ItemDataRole.DisplayRole:
            if column is Column.Name:  # the view spans group rows over every column: the total goes here
                total = sum(child.tokens for child in item.children)
                return f"{group.label} ({len(item.children)})" + (f" · {total:,} tokens" if total else "")
            if column is Column.Tokens:
                return str(sum(child.tokens for child in item.children))
            return None
        if role == Qt.ItemDataRole.FontRole and column is Column.Name:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return group.tooltip or group.label
        if role == Qt.ItemDataRole.DecorationRole and column is Column.Name and item.key == problem_words.PROBLEMS_KEY:
            worst = min((c.problem for c in item.children), key=problem_words.sort_rank, default=None)
            return problem_words.severity_icon(worst) if worst is not None else None
        if role == Role.Name:
            return group.label
        if role == Role.IsGroup:
            return True
        if role == Role.Identity:
            return item.key
        if role == Role.Tokens:
            return sum(child.tokens for child in item.children)
        if role == Role.SortKey:
            return item.row() if column is not Column.Tokens else sum(c.tokens for c in item.children)
        if role == Qt.ItemDataRole.TextAlignmentRole and column is Column.Tokens:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _skill_data(self, item: TreeItem, column: Column, role: int):
        skill = item.skill
        if column is Column.Checks:
            return self._checks_data(item, role)
        if role == Qt.ItemDataRole.DisplayRole:
            if column is Column.Name:
                mark = self._marks.get(item.key)
                name = mark.name if mark is not None else skill.name
                first = skill.description.splitlines()[0][:200] if skill.description else ""
                if skill.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND):
                    first = "Claude Code's own"  # its text is Anthropic's: never width figures here
                return f"{name}\u2002{first}" if first else name  # the view shows the description dimmer
            if column is Column.State:
                simulated = getattr(item, "simulated", None)
                return f"{item.visual.label} (simulated)" if simulated else item.visual.label
            if column is Column.Used:
                return self._usage_words(item)
            return str(item.tokens) if item.tokens else "—"
        if role == Qt.ItemDataRole.BackgroundRole:
            return _review_brush(self._checks.get(item.key))
        if role == Qt.ItemDataRole.CheckStateRole and column is Column.State:
            facts = self._switch(item)
            if facts is not None:
                return Qt.CheckState.Checked if facts.is_on else Qt.CheckState.Unchecked
            return None
        if role == Qt.ItemDataRole.AccessibleTextRole:
            outcome = self._snapshot.outcomes.get(item.key) if self._snapshot else None
            return f"{skill.name}: {item.visual.label}" + (f". {outcome.reason}" if outcome else "")
        if role == Qt.ItemDataRole.DecorationRole and column is Column.State:
            return states.icon(item.visual)
        if role == Qt.ItemDataRole.ForegroundRole and column is Column.State:
            return QBrush(states.colour(item.visual))
        if role == Qt.ItemDataRole.FontRole and column is Column.Name and item.visual is states.Visual.SHADOWED:
            font = QFont()
            font.setStrikeOut(True)
            return font
        if role == Qt.ItemDataRole.FontRole and item.simulated is not None:
            font = QFont()
            font.setItalic(True)  # simulated rows read differently from what a fresh start has
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            if column is Column.State and self._switch(item) is not None:
                return self._switch(item).tooltip
            if column is Column.Used:
                return self._usage_detail(item)
            mark = self._marks.get(item.key)
            outcome = self._snapshot.outcomes.get(item.key) if self._snapshot else None
            return (_tooltip(skill, item.visual) + (f"\n{outcome.reason}" if outcome else "")
                    + (f"\nSimulated: {mark.detail}" if mark is not None else ""))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (Column.Tokens, Column.Used):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Role.Name:
            return skill.name
        if role == Role.Source:
            return skill.source.label
        if role == Role.State:
            return item.visual
        if role == Role.Tokens:
            return item.tokens
        if role == Role.Path:
            return str(skill.path) if skill.path else ""
        if role == Role.Diagnostics:
            return list(skill.diagnostics)
        if role == Role.Skill:
            return skill
        if role == Role.Identity:
            return item.key
        if role == Role.IsGroup:
            return False
        if role == Role.Checks:
            return self._checks.get(item.key)
        if role == Role.Simulated:
            return getattr(item, "simulated", None)
        if role == Role.Switch:
            return self._switch(item)
        if role == Role.Outcome:
            return self._snapshot.outcomes.get(item.key) if self._snapshot else None
        if role == Role.Buckets:
            return self._buckets.get(item.key, frozenset())
        if role == Role.Usage:
            return self._snapshot.usage.get(item.key) if self._snapshot else None
        if role == Role.SortKey:
            if column is Column.Used:
                usage = self._snapshot.usage.get(item.key) if self._snapshot else None
                return usage.total if usage is not None else -1  # not counted sorts below "never"
            return item.tokens if column is Column.Tokens else skill.name.casefold()
        return None

    def _usage_words(self, item: TreeItem) -> str:
        from skillmanager.core.load.usage_log import usage_short

        usage = self._snapshot.usage.get(item.key) if self._snapshot else None
        return usage_short(usage) if usage is not None else "—"  # the header's tooltip names the window

    def _usage_detail(self, item: TreeItem) -> str:
        from skillmanager.core.load.usage_log import usage_detail

        usage = self._snapshot.usage.get(item.key) if self._snapshot else None
        return usage_detail(usage, self._snapshot.usage_days) if usage is not None else ""

    def _problem_data(self, item: TreeItem, column: Column, role: int):
        d = item.problem
        if role == Qt.ItemDataRole.DisplayRole:
            if column is Column.Name:
                where = problem_words.location(d, *self._home_and_cwd())
                message = problem_words.plain_message(d)
                return f"{where} — {message}" if where else message
            if column is Column.State:
                return problem_words.severity_word(d)
            return None
        if role == Qt.ItemDataRole.DecorationRole and column is Column.Name:
            return problem_words.severity_icon(d)
        if role == Qt.ItemDataRole.ToolTipRole:
            where = problem_words.location(d, *self._home_and_cwd())
            return "\n".join(p for p in (f"{problem_words.severity_word(d)}: {problem_words.plain_message(d)}",
                                          where, f"({d.code})") if p)
        if role == Role.Problem:
            return d
        if role == Role.Name:
            return problem_words.location(d, *self._home_and_cwd()) or d.code
        if role == Role.Path:
            return str(d.path) if d.path else ""
        if role == Role.Diagnostics:
            return [d]
        if role == Role.Identity:
            return item.key
        if role == Role.IsGroup:
            return False
        if role == Role.Tokens:
            return 0
        if role == Role.SortKey:
            return item.row()  # problems keep the engine's order under every sort
        return None

    def _checks_data(self, item: TreeItem, role: int):
        checks = self._checks.get(item.key)
        if role == Qt.ItemDataRole.BackgroundRole:
            return _review_brush(checks)
        if checks is None or checks.badge is None:
            if role == Qt.ItemDataRole.ToolTipRole:
                return ("No audit or lint findings" if checks is not None
                        else "Not checked (no file of its own)" if item.skill.path is None else "Checking…")
            if role == Role.Checks:
                return checks
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return str(checks.count)
        if role == Qt.ItemDataRole.DecorationRole:
            return states.badge_icon(checks.badge)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(states.badge_text_colour(checks.badge))
        if role == Qt.ItemDataRole.ToolTipRole:
            return states.badge_tooltip(checks)
        if role == Role.Checks:
            return checks
        if role == Role.SortKey:
            return checks.count
        return None

    # --- the simulator's session (clearly marked as simulated; step back takes it away) ------------
    def set_session(self, additions) -> bool:
        """Show what a simulated session discovered or activated; None or empty = a fresh start.
        False = nothing was simulated before or now (the tree is as it was)."""
        if additions is not None and additions.empty:
            additions = None
        if additions is None and self._additions is None:
            return False
        self._additions = additions
        if self._snapshot is not None:
            self._groups, self._marks = overlay_session(group_skills(self._snapshot), additions)
            self._sync()
        return True

    def simulated_marks(self) -> dict:
        return dict(self._marks)

    # --- audit / lint badges (computed off the UI thread by AppContext) ---------------------------
    def set_checks(self, checks: dict) -> None:
        """New check results: repaint only the Checks cells whose result object changed (after an edit, the
        results of the few files checked again: the rest are the same objects)."""
        old, self._checks = self._checks, dict(checks)
        new = self._checks
        differ = [key for key, result in new.items() if old.get(key) is not result]
        differ += [key for key in old if key not in new]
        if not differ:
            return
        column = int(Column.Checks)
        if self._snapshot is not None:
            updates = {}
            for key in differ:
                skill = self._snapshot.find(key)
                if skill is not None and self._identity(skill) == key:
                    updates[key] = self._bucket_of(skill)
            if self._set_buckets(updates):
                self._sync()  # a skill came into (or left) the chip in use
        if self._items is None:
            self._items = {child.key: child for group in self._root.children for child in group.children}
        for key in differ:
            child = self._items.get(key)
            if child is not None:
                index = self.createIndex(child.row(), column, child)
                self.dataChanged.emit(index, index)

    _counted_buckets: dict | None = None  # {Bucket: count} of self._buckets, kept in step with it

    def _set_buckets(self, updates: dict) -> bool:
        """New buckets for some rows; the chips' counts follow by difference (no pass over 5,000 rows per
        edit). True when a row came into or left the chip in use."""
        counts = self._counted_buckets
        if counts is None:
            counts = self._counted_buckets = bucket_counts(self._buckets.values())
        counts = dict(counts)
        moved = False
        for key, after in updates.items():
            before = self._buckets.get(key, frozenset())
            self._buckets[key] = after
            if before == after:
                continue
            for bucket in before - after:
                counts[bucket] -= 1
            for bucket in after - before:
                counts[bucket] += 1
            moved = moved or (self._bucket is not None and (self._bucket in before) != (self._bucket in after))
        if counts != self._counted_buckets:
            self._counted_buckets = counts
            self.buckets_changed.emit(dict(counts))
        return moved

    # --- lookups -------------------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot | None:
        return self._snapshot

    def index_for_identity(self, identity: Hashable) -> QModelIndex:
        for group in self._root.children:
            if group.key == identity:
                return self.createIndex(group.row(), 0, group)
            for child in group.children:
                if child.key == identity:
                    return self.createIndex(child.row(), 0, child)
        return QModelIndex()

    def index_for_skill(self, skill: Skill) -> QModelIndex:
        return self.index_for_identity(skill_identity(skill))

    def group_keys(self) -> list[Hashable]:
        return [g.key for g in self._root.children]

    def shown_rows(self) -> int:
        """Rows under the groups (skills and problems) the filter lets through; the sort proxy hides none."""
        return sum(len(group.children) for group in self._root.children)

    # --- incremental update --------------------------------------------------------------------
    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Bring the tree in line with `snapshot` using row inserts/removes/moves and dataChanged."""
        if self._apply_listing_rows(snapshot):
            return
        used_before = self._snapshot.usage if self._snapshot is not None else {}
        self._snapshot = snapshot
        self._groups, self._marks = overlay_session(group_skills(snapshot), self._additions)
        self._drop_stale_caches()
        self._buckets = {self._identity(s): self._bucket_of(s) for s in snapshot.skills}
        self._counted_buckets = bucket_counts(self._buckets.values())
        self.buckets_changed.emit(dict(self._counted_buckets))
        self._sync()
        if used_before != snapshot.usage:
            self._usage_changed(used_before, snapshot.usage)

    def _apply_listing_rows(self, snapshot: Snapshot) -> bool:
        """The listing and token counts that follow the rows of an incremental refresh: the tree already
        shows this registry (the partial snapshot of the same generation), so only the rows the engine names
        are refilled. False = the whole snapshot must be applied."""
        current, changed = self._snapshot, snapshot.changed_rows
        if (changed is None or current is None or not current.partial or current.generation != snapshot.generation
                or current.registry is not snapshot.registry):
            return False
        self._snapshot = snapshot
        if self._items is None:
            self._items = {child.key: child for group in self._root.children for child in group.children}
        last = len(Column) - 1
        groups = set()
        for identity in changed:
            item = self._items.get(identity)
            if item is None:
                continue  # hidden by the filter: filled when shown
            self._fill(item, item.skill)
            row = item.row()  # the Used column reads the snapshot: repainted even when _fill saw no change
            self.dataChanged.emit(self.createIndex(row, 0, item), self.createIndex(row, last, item))
            groups.add(item.parent)
        for group in groups:  # the group row's token sum
            if group is not None and group is not self._root:
                row = group.row()
                self.dataChanged.emit(self.createIndex(row, 0, group), self.createIndex(row, last, group))
        self._sync_problems()
        return True

    def _usage_changed(self, before: dict, after: dict) -> None:
        """The Used column reads the snapshot: repaint the rows whose count changed (one pass over the rows)."""
        for group in self._root.children:
            for child in group.children:
                if child.skill is not None and before.get(child.key) != after.get(child.key):
                    index = self.createIndex(child.row(), Column.Used, child)
                    self.dataChanged.emit(index, index)

    def _drop_stale_caches(self) -> None:
        """Keep the filter-text cache and the pool of hidden rows to the skills of the current snapshot
        (and session additions): a watched workspace that churns files for hours creates new Skill objects
        on every rescan, and an entry for each old one would keep it alive."""
        live = {id(skill): skill for group in self._groups for skill in group.skills}
        for skill in getattr(self._snapshot, "skills", ()):
            live[id(skill)] = skill
        stale = [key for key, (skill, _text, _identity) in self._haystacks.items() if live.get(key) is not skill]
        for key in stale:
            del self._haystacks[key]
        identities = {self._identity(skill) for skill in live.values()}
        for key in [key for key in self._pool if key not in identities]:
            del self._pool[key]

    def _sync(self) -> None:
        snapshot = self._snapshot
        targets = []
        filtering = self.filtering
        # _matches inlined: this pass runs over every skill at every keystroke
        needle, bucket, haystacks, buckets, cached = self._needle, self._bucket, self._haystacks, self._buckets, self._cached
        for group in self._groups:
            if filtering:
                skills = []
                for skill in group.skills:
                    entry = haystacks.get(id(skill))
                    if entry is None or entry[0] is not skill:
                        entry = cached(skill)
                    if needle in entry[1] and (bucket is None or bucket in buckets.get(entry[2], ())):
                        skills.append(skill)
            else:
                skills = group.skills
            if skills or not filtering:
                targets.append((group.key, SkillGroup(group.key, group.label, skills, group.tooltip)))
        problems = self._shown_problems()
        if problems:
            targets.append((problem_words.PROBLEMS_KEY, (SkillGroup(
                problem_words.PROBLEMS_KEY, "Problems", [],
                PROBLEMS_TIP), problems)))
        self._items = None
        self._sync_children(QModelIndex(), self._root, targets,
                            make=lambda key, group: self._make_group(key, group),
                            update=lambda item, group: self._update_group(item, group, snapshot))

    # --- the Problems group: the workspace's own diagnostics --------------------------------------
    def _shown_problems(self) -> list[tuple]:
        """(key, diagnostic) pairs to show, filtered like the skills are."""
        found = problem_words.workspace_problems(self._snapshot)
        pairs = list(zip(problem_words.problem_keys(found), found))
        if self._bucket is not None:
            return []  # the chips sort skills; workspace problems show when no chip is chosen
        if self._needle:
            pairs = [(k, d) for k, d in pairs
                     if self._needle in f"{d.message}\n{d.path or ''}\n{d.code}\nproblems".casefold()]
        return pairs

    def _home_and_cwd(self) -> tuple:
        workspace = getattr(self._snapshot, "workspace", None)
        return getattr(workspace, "home", None), getattr(workspace, "cwd", None)

    def problem_count(self) -> int:
        return len(problem_words.workspace_problems(self._snapshot))

    def _problem_item(self, parent: TreeItem, key: Hashable, diagnostic) -> TreeItem:
        item = TreeItem(parent, key)
        item.problem = diagnostic
        return item

    def _sync_problems(self) -> None:
        """Only the diagnostics changed (an incremental refresh): add, drop or update the Problems group."""
        problems = self._shown_problems()
        children = self._root.children
        last = children[-1] if children else None
        present = last is not None and last.key == problem_words.PROBLEMS_KEY  # the group is always last
        if problems and present:
            self._update_problems(last, last.group, problems)
        elif problems:
            row = len(children)
            self.beginInsertRows(QModelIndex(), row, row)
            group = SkillGroup(problem_words.PROBLEMS_KEY, "Problems", [],
                               PROBLEMS_TIP)
            children.append(self._make_group(problem_words.PROBLEMS_KEY, (group, problems)))
            _renumber(self._root, row)
            self.endInsertRows()
        elif present:
            row = len(children) - 1
            self.beginRemoveRows(QModelIndex(), row, row)
            del children[row]
            self.endRemoveRows()

    # --- filtering (here rather than in a proxy: one Python pass instead of a C++↔Python call per row) ----
    def set_filter(self, text: str) -> bool:
        """Show only skills whose name, description or source contains `text` (case-insensitive)."""
        needle = text.strip().casefold()
        if needle == self._needle:
            return False
        self._needle = needle
        self._refilter()
        return True

    def _refilter(self) -> None:
        """Re-show rows for the current text and chip: rows only, the snapshot's values are unchanged."""
        if self._snapshot is not None:
            self._filter_only = True
            try:
                self._sync()
            finally:
                self._filter_only = False

    @property
    def filter_text(self) -> str:
        return self._needle

    @property
    def filtering(self) -> bool:
        """A text or a chip narrows the rows."""
        return bool(self._needle) or self._bucket is not None

    @property
    def bucket(self):
        return self._bucket

    def set_bucket(self, bucket) -> bool:
        """Show only the skills of one quick filter (a core Bucket), or all (None); the text filter still applies."""
        if bucket == self._bucket:
            return False
        self._bucket = bucket
        self._refilter()
        return True

    def bucket_counts(self) -> dict:
        if self._counted_buckets is None:
            self._counted_buckets = bucket_counts(self._buckets.values())
        return dict(self._counted_buckets)

    def _bucket_of(self, skill: Skill) -> frozenset:
        """Core decides the buckets from the row switch, the listing outcome and the checks badge."""
        snapshot = self._snapshot
        key = self._identity(skill)
        facts = snapshot.switches.get(key)
        checks = self._checks.get(key)
        return skill_buckets(skill, is_on=facts.is_on if facts is not None else None,
                             outcome=snapshot.outcomes.get(key), badge=checks.badge if checks is not None else None,
                             contested=getattr(snapshot, "contested", frozenset()))

    def _cached(self, skill: Skill) -> tuple[Skill, str, Hashable]:
        """(skill, filter text, identity), computed once per skill object (objects are never mutated)."""
        cached = self._haystacks.get(id(skill))
        if cached is not None and cached[0] is skill:
            return cached
        text = f"{skill.name}\n{skill.description}\n{skill.source.label}".casefold()
        cached = self._haystacks[id(skill)] = (skill, text, skill_identity(skill))
        return cached

    def _haystack(self, skill: Skill) -> str:
        return self._cached(skill)[1]

    def _identity(self, skill: Skill) -> Hashable:
        return self._cached(skill)[2]

    def _matches(self, skill: Skill) -> bool:
        if self._bucket is not None and self._bucket not in self._buckets.get(self._identity(skill), ()):
            return False
        return self._needle in self._haystack(skill)

    # --- a few rows changed (incremental refresh): no regrouping ---------------------------------
    def apply_rows(self, snapshot: Snapshot, skills: Sequence[Skill]) -> bool:
        """Update the rows of `skills` (same identities, new objects) in place. False = regroup needed
        (a skill moved between groups); the caller then applies the whole snapshot."""
        self._snapshot = snapshot
        if self._items is None:
            self._items = {child.key: child for group in self._root.children for child in group.children}
        by_identity = {skill_identity(s): s for s in skills}
        self._set_buckets({identity: self._bucket_of(skill) for identity, skill in by_identity.items()})
        places = self._places()
        for identity, new in by_identity.items():  # keep the unfiltered groups current for the next filter change
            for group, position in places.get(identity, ()):
                old = group.skills[position]
                if _waiting(old) != _waiting(new):
                    return False
                group.skills[position] = new
                if new is not old:
                    self._haystacks.pop(id(old), None)  # the old object is gone from every view
        if self.filtering and any((self._items.get(i) is not None) != self._matches(s) for i, s in by_identity.items()):
            self._sync()  # an edit made a skill match the filter, or stop matching it
            return True
        for identity, skill in by_identity.items():
            item = self._items.get(identity)
            if item is None:
                continue  # not shown
            if self._fill(item, skill):
                row = item.row()
                self.dataChanged.emit(self.createIndex(row, 0, item), self.createIndex(row, len(Column) - 1, item))
        self._sync_problems()  # the refreshed registry may carry other workspace diagnostics
        return True

    _placed: tuple = (None, {})  # (the groups it was made for, identity -> [(group, position)])

    def _places(self) -> dict:
        """Where each identity sits in the unfiltered groups, worked out once per grouping (an edit replaces
        a skill in place; a regroup makes new groups)."""
        if self._placed[0] is not self._groups:
            places: dict = {}
            for group in self._groups:
                for position, skill in enumerate(group.skills):
                    places.setdefault(self._identity(skill), []).append((group, position))
            self._placed = (self._groups, places)
        return self._placed[1]

    def _make_group(self, key, group) -> TreeItem:
        if key == problem_words.PROBLEMS_KEY:
            group, problems = group
            item = TreeItem(self._root, key, group=group)
            item.children = [self._problem_item(item, k, d) for k, d in problems]
            _renumber(item)
            return item
        item = TreeItem(self._root, key, group=group)
        for skill in group.skills:
            child = self._skill_item(item, self._identity(skill), skill)
            item.children.append(child)
        _renumber(item)
        return item

    def _skill_item(self, parent: TreeItem, key: Hashable, skill: Skill) -> TreeItem:
        child = self._pool.pop(key, None)
        if child is None:
            child = TreeItem(parent, key, skill=skill)
        child.parent = parent
        self._fill(child, skill)  # instant when the pooled row already shows this very object
        return child

    def _fill(self, item: TreeItem, skill: Skill) -> bool:
        snapshot = self._snapshot
        identity = item.key
        entry = snapshot.entries.get(identity) if snapshot else None
        tokens = snapshot.tokens.get(identity, 0) if snapshot else 0
        mark = self._marks.get(identity)
        simulated = mark.how if mark is not None else None
        switch = snapshot.switches.get(identity) if snapshot else None
        if (item.skill is skill and item.entry is entry and item.tokens == tokens and item.visual is not None
                and item.simulated == simulated and item.switch is switch):
            return False  # same objects: nothing can differ
        visual = states.visual_state(skill, entry, snapshot.outcomes.get(identity) if snapshot else None)
        if simulated is not None:
            visual = states.Visual.ACTIVE  # for the simulated session only (the State column says so)
        fingerprint = _fingerprint(skill) if item.skill is not skill else item.fingerprint
        changed = (item.fingerprint != fingerprint or item.visual is not visual or item.tokens != tokens
                   or item.simulated != simulated or item.switch != switch)
        item.simulated, item.switch = simulated, switch
        item.skill, item.entry, item.tokens, item.visual, item.fingerprint = skill, entry, tokens, visual, fingerprint
        return changed

    def _update_group(self, item: TreeItem, group, snapshot: Snapshot) -> None:
        if item.key == problem_words.PROBLEMS_KEY:
            self._update_problems(item, *group)
            return
        label_changed = item.group is None or item.group.label != group.label
        children = item.children
        if (self._filter_only and not label_changed and len(children) == len(group.skills)
                and all(child.skill is skill for child, skill in zip(children, group.skills))):
            item.group = group  # a filter change that leaves this group as it is: nothing to do
            return
        item.group = group
        parent_index = self.createIndex(item.row(), 0, item)
        before = len(item.children)
        tokens_before = sum(child.tokens for child in item.children)

        def make(key, skill):
            return self._skill_item(item, key, skill)

        filter_only = self._filter_only  # the snapshot is unchanged: a kept row holding its skill is current

        def update(child: TreeItem, skill: Skill):
            if filter_only and child.skill is skill:
                return
            if self._fill(child, skill):
                row = child.row()
                self.dataChanged.emit(self.createIndex(row, 0, child), self.createIndex(row, len(Column) - 1, child))

        self._sync_children(parent_index, item, [(self._identity(s), s) for s in group.skills], make, update)
        if label_changed or before != len(item.children) or tokens_before != sum(c.tokens for c in item.children):
            row = item.row()
            self.dataChanged.emit(self.createIndex(row, 0, item), self.createIndex(row, len(Column) - 1, item))

    def _update_problems(self, item: TreeItem, group: SkillGroup, problems: list[tuple]) -> None:
        item.group = group
        parent_index = self.createIndex(item.row(), 0, item)
        before = len(item.children)

        def update(child: TreeItem, diagnostic) -> None:
            if child.problem is not diagnostic:  # same key = same code, file, line and message
                child.problem = diagnostic

        self._sync_children(parent_index, item, problems, lambda k, d: self._problem_item(item, k, d), update)
        if before != len(item.children):
            row = item.row()
            self.dataChanged.emit(self.createIndex(row, 0, item), self.createIndex(row, len(Column) - 1, item))

    def _sync_children(self, parent_index: QModelIndex, parent: TreeItem, targets: Sequence[tuple[Hashable, Any]],
                       make: Callable[[Hashable, Any], TreeItem], update: Callable[[TreeItem, Any], None]) -> None:
        """Turn parent.children into `targets` (key, payload) with few row operations: removals and
        insertions in contiguous runs (a filter keystroke is a handful of runs, not thousands of rows)."""
        wanted = {key for key, _ in targets}
        children = parent.children
        # 1. removals, in contiguous runs from the bottom
        row = len(children) - 1
        while row >= 0:
            if children[row].key in wanted:
                row -= 1
                continue
            last = row
            while row - 1 >= 0 and children[row - 1].key not in wanted:
                row -= 1
            self.beginRemoveRows(parent_index, row, last)
            for gone in children[row:last + 1]:
                if gone.skill is not None:
                    self._pool[gone.key] = gone  # a filter hides it now; it comes back without a refill
            del children[row:last + 1]
            _renumber(parent, row)
            self.endRemoveRows()
            row -= 1
        # 2. inserts (runs of new keys) and moves, walking the target order
        present = {child.key for child in children}
        position = 0
        while position < len(targets):
            key, payload = targets[position]
            current = children[position] if position < len(children) else None
            if current is not None and current.key == key:
                update(current, payload)
                position += 1
                continue
            if key not in present:
                end = position
                while end < len(targets) and targets[end][0] not in present:
                    end += 1
                self.beginInsertRows(parent_index, position, end - 1)
                new_items = [make(k, p) for k, p in targets[position:end]]
                for child in new_items:
                    child.parent = parent
                children[position:position] = new_items
                _renumber(parent, position)
                self.endInsertRows()
                position = end
                continue
            existing = next(i for i in range(position + 1, len(children)) if children[i].key == key)
            self.beginMoveRows(parent_index, existing, existing, parent_index, position)
            child = children.pop(existing)
            children.insert(position, child)
            _renumber(parent, position)
            self.endMoveRows()
            update(child, payload)
            position += 1


def _review_brush(checks) -> QBrush | None:
    """Critical / high audit findings and errors colour the whole row (core decides the badge level)."""
    if checks is not None and checks.badge in REVIEW_BADGES:
        return QBrush(QColor(*states.REVIEW_TINT))
    return None


def _waiting(skill: Skill) -> bool:
    return bool(skill.state.conditional and not skill.state.active)


def _tooltip(skill: Skill, visual: states.Visual) -> str:
    parts = [f"{skill.name} — {visual.label}", skill.source.label]
    if skill.path:
        parts.append(str(skill.path))
    if skill.diagnostics:
        parts.append(f"{len(skill.diagnostics)} diagnostic(s)")
    return "\n".join(parts)


class RegistryRows(QStandardItemModel):
    """RegistryModel's rows as Qt's own item tree: what the sort proxy and the tree view walk.

    A filter keystroke makes the tree view lay out every visible row again. Over a Python model each row
    costs about four calls into Python (the row's index, its flags twice, the span check): ~35 ms for 5,000
    rows, more than a keystroke may take. Qt's item tree answers index(), parent(), rowCount() and flags()
    in C++. The items hold only each cell's flags and, in the first column, RegistryModel's TreeItem of the
    row, whose data() and setData() answer for every cell. RegistryModel's row signals are followed one by
    one, so both trees have the same shape between changes."""

    _ITEM = _USER + 100  # the first cell's TreeItem
    _ORDER = _USER + 101  # a top-level row's new position while one is moved (see _moved)

    def __init__(self, registry: RegistryModel, parent=None):
        super().__init__(0, _COLUMNS, parent)
        self.registry = registry
        self._prototypes: dict[int, tuple] = {}  # id(row flags) -> (row flags, cells to clone)
        self.setSortRole(self._ORDER)
        self.invisibleRootItem().setFlags(Qt.ItemFlag.NoItemFlags)  # as RegistryModel's root
        registry.rowsInserted.connect(self._inserted)
        registry.rowsRemoved.connect(self._removed)
        registry.rowsMoved.connect(self._moved)
        registry.dataChanged.connect(self._changed)
        registry.modelReset.connect(self._rebuild)
        registry.layoutChanged.connect(self._rebuild)
        registry.headerDataChanged.connect(self.headerDataChanged)
        self._rebuild()

    # --- what the view reads: RegistryModel's ---------------------------------------------------
    def _tree_item(self, index: QModelIndex) -> TreeItem:
        return self.itemFromIndex(index.siblingAtColumn(0)).data(self._ITEM)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return self.registry.cell_data(self._tree_item(index), index.column(), role)

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        return self.registry.setData(self.to_registry(index), value, role)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        return self.registry.headerData(section, orientation, role)

    def to_registry(self, index: QModelIndex) -> QModelIndex:
        return self.registry.index_of(self._tree_item(index), index.column()) if index.isValid() else QModelIndex()

    def from_registry(self, index: QModelIndex) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        parent = index.parent()
        return self.index(index.row(), index.column(), self.index(parent.row(), 0) if parent.isValid() else QModelIndex())

    # --- following RegistryModel's changes ------------------------------------------------------
    def _cells(self, item: TreeItem) -> list[QStandardItem]:
        flags = self.registry.item_flags(item)
        prototypes = self._prototypes.get(id(flags))  # three shared tuples: by identity (hashing is slower)
        if prototypes is None:
            prototypes = self._prototypes[id(flags)] = (flags, [QStandardItem() for _ in flags])
            for prototype, cell_flags in zip(prototypes[1], flags):
                prototype.setFlags(cell_flags)
        cells = [prototype.clone() for prototype in prototypes[1]]
        cells[0].setData(item, self._ITEM)
        return cells

    def _row_cells(self, item: TreeItem) -> list[QStandardItem]:
        """A row's cells; a top-level row's with its children, built before it joins the tree (no signal
        per child)."""
        cells = self._cells(item)
        if item.parent is not None and item.parent.parent is None:  # a top-level row
            group = cells[0]
            group.setColumnCount(_COLUMNS)
            for child in item.children:
                group.appendRow(self._cells(child))
        return cells

    def _parent_cell(self, parent: QModelIndex) -> QStandardItem:
        return self.item(parent.row(), 0) if parent.isValid() else self.invisibleRootItem()

    def _rebuild(self) -> None:
        self.beginResetModel()
        self.blockSignals(True)  # one reset for the whole tree, not a signal per row
        try:
            self.setRowCount(0)
            root = self.invisibleRootItem()
            for item in self.registry.children_of(QModelIndex()):
                root.appendRow(self._row_cells(item))
        finally:
            self.blockSignals(False)
        self.endResetModel()

    def _inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        target, items = self._parent_cell(parent), self.registry.children_of(parent)
        row_cells = self._row_cells
        for row in range(first, last + 1):
            target.insertRow(row, row_cells(items[row]))

    def _removed(self, parent: QModelIndex, first: int, last: int) -> None:
        self._parent_cell(parent).removeRows(first, last - first + 1)

    def _moved(self, parent: QModelIndex, start: int, end: int, destination: QModelIndex, row: int) -> None:
        """A row moved within its parent (RegistryModel never moves a row to another parent)."""
        if parent.isValid():
            # rows of a group hold nothing but flags and their TreeItem: move the indexes (the selection
            # follows), then give the rows in between their TreeItems and flags
            mirror_parent = self.index(parent.row(), 0)
            self.beginMoveRows(mirror_parent, start, end, mirror_parent, row)
            self._refresh(parent, min(start, row), max(end, row - 1), range(_COLUMNS))
            self.endMoveRows()
            return
        # a top-level row carries its children: Qt's own sort moves whole rows and keeps every persistent
        # index (expanded groups, the selection), as a row move does
        root = self.invisibleRootItem()
        count = end - start + 1
        self.blockSignals(True)
        try:
            for old in range(root.rowCount()):
                if start <= old <= end:  # the moved rows
                    new = old - start + (row if row < start else row - count)
                elif row <= old < start:  # moved up: the rows they pass go down
                    new = old + count
                elif end < old < row:  # moved down: the rows they pass go up
                    new = old - count
                else:
                    new = old
                root.child(old, 0).setData(new, self._ORDER)
        finally:
            self.blockSignals(False)
        root.sortChildren(0, Qt.SortOrder.AscendingOrder)

    def _changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles=()) -> None:
        # one call per changed row or cell (every badge when the checks arrive): the parent comes from the
        # TreeItem, not from RegistryModel.parent()
        group = top_left.internalPointer().parent
        if group.parent is None:  # a top-level row
            mirror_parent = QModelIndex()
        else:
            mirror_parent = self.index(group.row(), 0)
            if top_left.column() <= _STATE_COLUMN <= bottom_right.column():
                self._refresh(self.registry.index_of(group), top_left.row(), bottom_right.row(), (_STATE_COLUMN,))
        first = self.index(top_left.row(), top_left.column(), mirror_parent)
        last = first if bottom_right == top_left else self.index(bottom_right.row(), bottom_right.column(),
                                                                 mirror_parent)
        self.dataChanged.emit(first, last, roles)

    def _refresh(self, parent: QModelIndex, first: int, last: int, columns) -> None:
        """Rows first..last of a group take the TreeItems and flags RegistryModel has there now."""
        group = self.item(parent.row(), 0)
        self.blockSignals(True)  # the caller's dataChanged (or the move) repaints the rows
        try:
            items = self.registry.children_of(parent)
            for row in range(first, last + 1):
                item = items[row]
                flags = self.registry.item_flags(item)
                group.child(row, 0).setData(item, self._ITEM)
                for column in columns:
                    cell = group.child(row, column)
                    if cell.flags() != flags[column]:
                        cell.setFlags(flags[column])
        finally:
            self.blockSignals(False)


class RegistryFilterProxy(QSortFilterProxyModel):
    """Sort by name or tokens via Role.SortKey; `set_text` filters in the source model (see set_filter).
    Over a RegistryModel the proxy's source is that model's RegistryRows (see there); from_registry and
    to_registry convert indexes between the proxy and the RegistryModel."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.registry: RegistryModel | None = None
        self.setSortRole(Role.SortKey)

    def set_text(self, text: str) -> None:
        if self.registry is not None:
            self.registry.set_filter(text)

    def setSourceModel(self, model) -> None:  # noqa: N802 - Qt API
        if isinstance(model, RegistryModel):
            self.registry = model
            model = RegistryRows(model, self)
        super().setSourceModel(model)

    def from_registry(self, index: QModelIndex) -> QModelIndex:
        """The proxy's index of a RegistryModel index."""
        source = self.sourceModel()
        return self.mapFromSource(source.from_registry(index) if isinstance(source, RegistryRows) else index)

    def to_registry(self, index: QModelIndex) -> QModelIndex:
        """The RegistryModel index of one of the proxy's indexes."""
        source = self.sourceModel()
        index = self.mapToSource(index)
        return source.to_registry(index) if isinstance(source, RegistryRows) else index

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:
        model = self.sourceModel()
        if model.data(left, Role.IsGroup):  # groups always keep precedence order
            return left.row() < right.row() if self.sortOrder() is Qt.SortOrder.AscendingOrder else left.row() > right.row()
        a, b = model.data(left, Role.SortKey), model.data(right, Role.SortKey)
        if a == b:
            return left.row() < right.row()
        return a < b


__all__ = ["Role", "Column", "RegistryModel", "RegistryRows", "RegistryFilterProxy", "TreeItem", "QPersistentModelIndex"]
