"""The registry item model: Qt's model tester, incremental updates keep persistent indexes, filter, sort."""
from __future__ import annotations

import shutil

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QPersistentModelIndex, Qt  # noqa: E402
from PySide6.QtTest import QAbstractItemModelTester  # noqa: E402

from skillmanager.core.demo import create_demo_workspace  # noqa: E402
from skillmanager.gui.engine import scan, skill_identity  # noqa: E402
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role  # noqa: E402
from skillmanager.gui.states import Visual  # noqa: E402


@pytest.fixture()
def demo(tmp_path):
    return create_demo_workspace(tmp_path / "demo")


def _rows(model, parent=None):
    from PySide6.QtCore import QModelIndex

    parent = parent or QModelIndex()
    return [model.index(r, 0, parent) for r in range(model.rowCount(parent))]


def test_model_tester_on_populate_and_incremental_updates(qapp, demo):
    model = RegistryModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.apply_snapshot(scan(demo))
    assert model.rowCount() > 5
    skills_dir = demo.cwd / ".claude" / "skills"
    (skills_dir / "aaa-new").mkdir()
    (skills_dir / "aaa-new" / "SKILL.md").write_text("---\ndescription: Added later.\n---\nBody\n", encoding="utf-8")
    shutil.rmtree(skills_dir / "scratchpad")
    model.apply_snapshot(scan(demo))
    names = {i.data(Role.Name) for g in _rows(model) for i in _rows(model, g)}
    assert "aaa-new" in names and "scratchpad" not in names
    del tester


def test_groups_in_precedence_order_with_counts_and_roles(qapp, demo):
    model = RegistryModel()
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    groups = _rows(model)
    labels = [g.data(Qt.ItemDataRole.DisplayRole) for g in groups]
    assert labels[0].startswith("Managed policy (1)")
    assert labels[1].startswith("User")
    assert labels[-1].startswith("Conditional")
    assert sum(model.rowCount(g) for g in groups) == len(snapshot.skills)
    states = {i.data(Role.Name): i.data(Role.State) for g in groups for i in _rows(model, g)}
    assert states["env-check"] is Visual.ACTIVE
    assert states["scaffold-component"] is Visual.HIDDEN
    assert states["db-reset"] is Visual.BLOCKED
    assert states["verbose-logger"] is Visual.NAME_ONLY
    assert states["sql-review"] is Visual.CONDITIONAL
    # front matter that does not parse: Claude Code still lists it (from the body), so the state says so
    # and the error goes to the Checks badge
    assert states["broken-yaml"] is Visual.ACTIVE
    broken = next(s for s in snapshot.skills if s.name == "broken-yaml")
    assert broken.has_errors and broken.state.listed.name == "FULL"
    shadowed = [i for g in groups for i in _rows(model, g) if i.data(Role.State) is Visual.SHADOWED]
    # (release-notes in the add-dir is no longer a shadowed copy since the registry scopes add-dir names)
    assert {i.data(Role.Name) for i in shadowed} >= {"commit-message", "team-style", "deploy"}
    env = next(i for g in groups for i in _rows(model, g) if i.data(Role.Name) == "env-check")
    assert env.data(Role.Tokens) > 0 and env.data(Role.Path).endswith("SKILL.md")
    assert isinstance(env.data(Role.Diagnostics), list)


def test_persistent_index_survives_an_insert_before_it(qapp, demo):
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    env = next(i for g in _rows(model) for i in _rows(model, g) if i.data(Role.Name) == "env-check")
    persistent = QPersistentModelIndex(env)
    row_before = env.row()
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    skills_dir = demo.cwd / ".claude" / "skills"
    (skills_dir / "aaa-first").mkdir()
    (skills_dir / "aaa-first" / "SKILL.md").write_text("---\ndescription: Sorts first.\n---\n", encoding="utf-8")
    model.apply_snapshot(scan(demo))
    assert not resets
    assert persistent.isValid()
    assert persistent.data(Role.Name) == "env-check"
    assert persistent.row() == row_before + 1


def test_changed_skill_emits_data_changed_not_reset(qapp, demo):
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    changed = []
    model.dataChanged.connect(lambda a, b, roles=None: changed.append(a.data(Role.Name)))
    path = demo.cwd / ".claude" / "skills" / "deploy" / "SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Deploy a platform", "Ship a platform"), encoding="utf-8")
    model.apply_snapshot(scan(demo))
    assert "deploy" in changed


def test_filter_is_recursive_and_sort_by_tokens(qapp, demo):
    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    proxy = RegistryFilterProxy()
    proxy.setSourceModel(model)
    tester = QAbstractItemModelTester(proxy, QAbstractItemModelTester.FailureReportingMode.Fatal)
    proxy.set_text("release-notes")
    names = {i.data(Role.Name) for g in _rows(proxy) for i in _rows(proxy, g)}
    # the add-dir copy is named `extra:release-notes` by the registry (scoped add-dir names)
    assert names and all(n.endswith("release-notes") for n in names)
    assert proxy.rowCount() == 2  # the project group and the add-dir group
    proxy.set_text("")
    proxy.sort(Column.Tokens, Qt.SortOrder.DescendingOrder)
    for group in _rows(proxy):
        tokens = [i.data(Role.Tokens) for i in _rows(proxy, group)]
        assert tokens == sorted(tokens, reverse=True)
    del tester


def test_proxy_flags_are_the_models_flags_and_only_groups_can_have_children(qapp, demo):
    """The view walks RegistryRows (Qt's item tree, flags kept in its items): they must stay the model's."""
    from PySide6.QtCore import QModelIndex

    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    proxy = RegistryFilterProxy()
    proxy.setSourceModel(model)
    never = Qt.ItemFlag.ItemNeverHasChildren
    for setup in (lambda: None, lambda: proxy.sort(Column.Name, Qt.SortOrder.DescendingOrder),
                  lambda: proxy.set_text("release"), lambda: proxy.set_text(""), lambda: proxy.sort(-1)):
        setup()
        checked = 0
        for group in _rows(proxy):
            assert not proxy.flags(group) & never and proxy.hasChildren(group)
            for row in range(proxy.rowCount(group)):
                for column in range(proxy.columnCount(group)):
                    index = proxy.index(row, column, group)
                    assert proxy.flags(index) == model.flags(proxy.to_registry(index))
                    checked += 1
                assert proxy.flags(proxy.index(row, 0, group)) & never
        assert checked > 0
    assert proxy.flags(QModelIndex()) == model.flags(QModelIndex())


def test_identity_lookup(qapp, demo):
    model = RegistryModel()
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    skill = next(s for s in snapshot.skills if s.name == "deploy" and s.kind == "command")
    assert model.index_for_identity(skill_identity(skill)).data(Role.Skill) is skill


def _row(model, name):
    return next(i for g in _rows(model) for i in _rows(model, g) if i.data(Role.Name) == name)


def test_checks_column_shows_audit_and_lint_badges(qapp, demo):
    from skillmanager.core.checks.skill_checks import ChecksCache

    model = RegistryModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    cache = ChecksCache()
    checks = {skill_identity(s): cache.get(s.path, kind=s.kind, name=s.name, profile=snapshot.registry.profile,
                                           known=s.diagnostics) for s in snapshot.skills if s.path is not None}
    changed = []
    model.dataChanged.connect(lambda a, b, roles=None: changed.append(a.column()))
    model.set_checks(checks)
    assert changed and set(changed) == {int(Column.Checks)}
    setup = _row(model, "quick-setup").siblingAtColumn(Column.Checks)  # curl | sh, Bash pre-approved
    assert setup.data(Role.Checks).badge == "danger"
    assert setup.data(Qt.ItemDataRole.DecorationRole) is not None
    tip = setup.data(Qt.ItemDataRole.ToolTipRole)
    assert "critical" in tip and "SKILL.md:" in tip
    broken = _row(model, "broken-yaml").siblingAtColumn(Column.Checks)
    assert broken.data(Role.Checks).badge == "error"  # front matter that does not parse is an error
    assert "cannot be parsed" in broken.data(Qt.ItemDataRole.ToolTipRole)
    clean = _row(model, "standup-notes").siblingAtColumn(Column.Checks)
    assert clean.data(Qt.ItemDataRole.DisplayRole) is None
    assert clean.data(Qt.ItemDataRole.ToolTipRole) == "No audit or lint findings"
    # a second pass over unchanged files is served from the cache
    misses = cache.misses
    for s in snapshot.skills:
        if s.path is not None:
            cache.get(s.path, kind=s.kind, name=s.name, profile=snapshot.registry.profile, known=s.diagnostics)
    assert cache.misses == misses
    del tester


def test_simulated_session_shows_in_the_tree_and_step_back_reverts(qapp, demo):
    from skillmanager.core.simulator.session import Session
    from skillmanager.core.simulator.session_view import session_additions
    from skillmanager.gui.engine import SESSION_ACTIVATED_KEY, SESSION_DISCOVERED_KEY, WAITING_KEY

    model = RegistryModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    before = model.group_keys()
    session = Session(snapshot.registry)
    session.add_step("Read", str(demo.cwd / "packages" / "web" / "src" / "App.tsx"))
    model.set_session(session_additions(session))
    keys = model.group_keys()
    assert SESSION_DISCOVERED_KEY in keys and SESSION_ACTIVATED_KEY in keys
    assert keys.index(SESSION_ACTIVATED_KEY) < keys.index(WAITING_KEY)
    ts = _row(model, "typescript-style")
    assert ts.parent().data(Role.Identity) == SESSION_ACTIVATED_KEY
    assert ts.data(Role.State) is Visual.ACTIVE and ts.data(Role.Simulated) == "activated"
    assert ts.siblingAtColumn(Column.State).data(Qt.ItemDataRole.DisplayRole) == "Listed (simulated)"
    assert "Simulated: activated by step 1" in ts.data(Qt.ItemDataRole.ToolTipRole)
    discovered = model.index(keys.index(SESSION_DISCOVERED_KEY), 0)
    assert "simulated" in discovered.data(Qt.ItemDataRole.DisplayRole)
    assert {i.data(Role.Name) for i in _rows(model, discovered)} == {"component-style", "api-conventions"}
    # sql-review did not match: still waiting
    assert _row(model, "sql-review").parent().data(Role.Identity) == WAITING_KEY
    # a second step re-scopes api-conventions: the tree shows the name the model now uses
    session.add_step("Read", str(demo.cwd / "packages" / "api" / "src" / "server.ts"))
    model.set_session(session_additions(session))
    names = {i.data(Qt.ItemDataRole.DisplayRole).split("\u2002")[0] for i in _rows(model, model.index(model.group_keys().index(
        SESSION_DISCOVERED_KEY), 0))}
    assert {"packages/web:api-conventions", "packages/api:api-conventions", "db-migrations"} <= names
    # step back twice: a fresh start again
    session.undo()
    session.undo()
    model.set_session(session_additions(session))
    assert model.group_keys() == before
    ts = _row(model, "typescript-style")
    assert ts.data(Role.State) is Visual.CONDITIONAL and ts.data(Role.Simulated) is None
    del tester


def _live_skill_objects() -> int:
    import gc

    from skillmanager.core.model import Skill

    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, Skill))


def test_filter_cache_keeps_only_the_current_snapshots_skills(qapp, demo):
    """A watched workspace rescans on every change: the filter's text cache (and the pool of rows the filter
    hides) must not keep the Skill objects of earlier scans alive."""
    before = _live_skill_objects()  # what earlier tests left behind
    model = RegistryModel()
    skills_dir = demo.cwd / ".claude" / "skills"
    for round_index in range(40):
        folder = skills_dir / f"churn-{round_index}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(f"---\ndescription: churn {round_index}.\n---\nBody\n", encoding="utf-8")
        if round_index:
            shutil.rmtree(skills_dir / f"churn-{round_index - 1}")
        snapshot = scan(demo)
        model.apply_snapshot(snapshot)
        model.set_filter("churn" if round_index % 2 else "a")  # fills the cache, hides rows into the pool
        changed = [s for s in snapshot.skills if s.name == f"churn-{round_index}"]
        model.apply_rows(snapshot, changed)
    current = len(snapshot.skills)
    del snapshot, changed
    assert _live_skill_objects() - before <= current + 10


def test_a_file_edit_refills_only_the_rows_the_engine_names(qapp, demo):
    """The watcher path: rows first (partial), then the listing; the second step changes only the edited
    row's cells (dataChanged), never the tree's shape, and the row shows the new listing entry."""
    from skillmanager.gui.engine import refresh_incremental

    model = RegistryModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    path = demo.cwd / ".claude" / "skills" / "db-reset" / "SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("description:", "description: Edited —", 1),
                    encoding="utf-8")
    partials = []
    final = refresh_incremental(snapshot, [str(path)], generation=1,
                                on_rows=lambda partial, delta: partials.append((partial, delta)))
    partial, delta = partials[0]
    assert not delta.structural and model.apply_rows(partial, delta.changed)
    shape, changed = [], []
    for signal in (model.rowsInserted, model.rowsRemoved, model.rowsMoved, model.modelReset, model.layoutChanged):
        signal.connect(lambda *args: shape.append(args))
    model.dataChanged.connect(lambda first, last, roles=(): changed.append(first.data(Role.Identity)))
    edited = next(s for s in final.skills if s.path == path)
    assert final.changed_rows is not None and skill_identity(edited) in final.changed_rows
    assert len(final.changed_rows) < len(final.skills) // 2
    model.apply_snapshot(final)
    assert not shape
    assert skill_identity(edited) in changed
    row = model.index_for_identity(skill_identity(edited))
    assert row.data(Role.Outcome) == final.outcomes[skill_identity(edited)]
    assert row.data(Role.Tokens) == final.tokens[skill_identity(edited)]


def _assert_view_is_registry(proxy, model):
    """Unsorted, the proxy (over RegistryRows) shows the registry's rows in its order, with its flags and data."""
    from PySide6.QtCore import QModelIndex

    roles = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.ToolTipRole,
             Role.Identity, Role.Tokens)

    def same(view_parent, model_parent):
        assert proxy.rowCount(view_parent) == model.rowCount(model_parent)
        for row in range(model.rowCount(model_parent)):
            for column in range(len(Column)):
                view, source = proxy.index(row, column, view_parent), model.index(row, column, model_parent)
                assert proxy.to_registry(view) == source
                assert proxy.from_registry(source) == view
                assert proxy.flags(view) == model.flags(source)
                assert [view.data(r) for r in roles] == [source.data(r) for r in roles]
            if not model_parent.isValid():
                same(proxy.index(row, 0, view_parent), model.index(row, 0, model_parent))

    same(QModelIndex(), QModelIndex())


class _Reordered:
    """A registry whose groups come in another order (the last first) and whose skills are reversed in
    each group: applying it moves rows, top-level and inside groups, without adding or removing any."""

    def __init__(self, registry):
        self._registry = registry

    def __getattr__(self, name):
        return getattr(self._registry, name)

    def by_source(self):
        groups = [(key, label, list(reversed(skills))) for key, label, skills in self._registry.by_source()]
        return groups[-1:] + groups[:-1]


def test_view_rows_follow_the_registry_through_filters_edits_moves_and_checks(qapp, demo):
    """The view walks RegistryRows, Qt's own item tree that follows RegistryModel's row signals: after
    every kind of change it has the registry's rows, flags and data (Qt's model tester watches both)."""
    import dataclasses

    from skillmanager.core.rules.buckets import Bucket

    model = RegistryModel()
    model.apply_snapshot(scan(demo))
    proxy = RegistryFilterProxy()
    proxy.setSourceModel(model)
    testers = [QAbstractItemModelTester(m, QAbstractItemModelTester.FailureReportingMode.Fatal)
               for m in (proxy, proxy.sourceModel())]
    _assert_view_is_registry(proxy, model)
    for text in ("release", "RELEASE", "a", "au", "zz-no-such-skill", "", "deploy"):
        model.set_filter(text)
        _assert_view_is_registry(proxy, model)
    model.set_filter("")
    for bucket in (Bucket.OFF, None):
        model.set_bucket(bucket)
        _assert_view_is_registry(proxy, model)

    # a persistent index (the selection, an expanded group) stays on its row through moves
    snapshot = scan(demo)
    model.apply_snapshot(snapshot)
    group = proxy.index(1, 0)
    first_child = proxy.index(0, 0, group)
    keep_group, keep_child = QPersistentModelIndex(group), QPersistentModelIndex(first_child)
    group_key, child_key = group.data(Role.Identity), first_child.data(Role.Identity)
    assert proxy.rowCount(group) > 1  # reversing it moves rows
    model.apply_snapshot(dataclasses.replace(snapshot, registry=_Reordered(snapshot.registry)))
    _assert_view_is_registry(proxy, model)
    assert keep_group.isValid() and keep_group.data(Role.Identity) == group_key
    assert keep_child.isValid() and keep_child.data(Role.Identity) == child_key
    assert keep_child.row() == proxy.rowCount(keep_group) - 1  # reversed: the first is now the last
    model.apply_snapshot(snapshot)  # and back
    _assert_view_is_registry(proxy, model)
    assert keep_child.row() == 0 and keep_child.data(Role.Identity) == child_key

    # skills added and removed on disk; the filter on while the snapshot changes
    skills_dir = demo.cwd / ".claude" / "skills"
    (skills_dir / "aaa-new").mkdir()
    (skills_dir / "aaa-new" / "SKILL.md").write_text("---\ndescription: Added later.\n---\nBody\n", encoding="utf-8")
    shutil.rmtree(skills_dir / "scratchpad")
    model.set_filter("a")
    model.apply_snapshot(scan(demo))
    _assert_view_is_registry(proxy, model)
    model.set_filter("")
    _assert_view_is_registry(proxy, model)

    # the checks badges arrive (only the Checks cells change)
    model.set_checks({})
    _assert_view_is_registry(proxy, model)

    # only a row switch changes (a managed lock, say): its flags and check box follow
    current = model.snapshot
    identity, facts = next((k, f) for k, f in current.switches.items() if f.enabled)
    locked = dataclasses.replace(facts, enabled=False, tooltip="Managed policy decides this skill.")
    model.apply_snapshot(dataclasses.replace(current, switches={**current.switches, identity: locked}))
    assert not model.flags(model.index_for_identity(identity).siblingAtColumn(Column.State)) & \
        Qt.ItemFlag.ItemIsUserCheckable
    _assert_view_is_registry(proxy, model)
    model.apply_snapshot(current)
    _assert_view_is_registry(proxy, model)

    # RegistryModel never resets, but the mirror would follow one
    model.beginResetModel()
    model.endResetModel()
    _assert_view_is_registry(proxy, model)
    del testers


def test_the_filter_through_the_panel_shows_matches_in_their_groups_and_clearing_restores_rows_and_expansion(
        qtbot, demo):
    """What the tree view shows for filter texts: the registry's matching skills under their groups, whatever
    the case; clearing shows every skill again, with the groups open except the one the user closed."""
    from PySide6.QtCore import QSettings

    from skillmanager.gui.context import AppContext
    from skillmanager.gui.widgets.registry_panel import RegistryPanel

    panel = RegistryPanel(AppContext(QSettings(str(demo.cwd / "settings.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(panel)
    panel.resize(700, 600)
    panel.show()
    snapshot = scan(demo)
    panel.apply_snapshot(snapshot)
    view, proxy = panel.view, panel.proxy

    def shown() -> dict:
        """group label -> skill names, as the tree view lays them out (rows it would paint)."""
        rows, index = {}, view.model().index(0, 0)
        while index.isValid():
            if index.parent().isValid():
                rows[index.parent().data(Role.Name)].append(index.data(Role.Name))
            else:
                rows[index.data(Role.Name)] = []
            index = view.indexBelow(index)
        return rows

    every = shown()
    assert sum(len(names) for names in every.values()) == len(snapshot.skills)
    assert all(view.isExpanded(proxy.index(g, 0)) for g in range(proxy.rowCount()))
    closed = proxy.index(2, 0)
    closed_label, closed_key = closed.data(Role.Name), closed.data(Role.Identity)
    view.collapse(closed)

    panel.filter_edit.setText("release-notes")
    matches = shown()
    assert matches and all(names and all(n.endswith("release-notes") for n in names) for names in matches.values())
    panel.filter_edit.setText("RELEASE-Notes")
    assert shown() == matches  # case-insensitive
    panel.filter_edit.setText("zz-no-such-skill")
    assert not any(shown().values()) and panel.no_results.isVisible()
    def model_rows() -> dict:
        model = panel.model
        return {model.index(g, 0).data(Role.Name): [model.index(r, 0, model.index(g, 0)).data(Role.Name)
                                                    for r in range(model.rowCount(model.index(g, 0)))]
                for g in range(model.rowCount())}

    before = None
    for text in ("d", "de", "dep", "depl", "deploy"):  # typed one key at a time
        panel.filter_edit.setText(text)
        rows, expected = shown(), model_rows()
        if closed_label in expected:
            expected[closed_label] = []  # a closed group's rows are not laid out
        assert rows == expected and any(rows.values())
        names = {n for names in rows.values() for n in names}
        assert before is None or names <= before  # each key narrows
        before = names
        assert all(view.isExpanded(proxy.index(g, 0)) for g in range(proxy.rowCount())
                   if proxy.index(g, 0).data(Role.Name) != closed_label)

    panel.filter_edit.clear()
    restored = shown()
    del every[closed_label], restored[closed_label]  # its rows are not laid out while it is closed
    assert restored == every
    assert not view.isExpanded(panel.proxy.from_registry(panel.model.index_for_identity(closed_key)))
    assert all(view.isExpanded(proxy.index(g, 0)) for g in range(proxy.rowCount())
               if proxy.index(g, 0).data(Role.Name) != closed_label)
