"""Install, create, rename, move, delete, update and restore from the GUI (core/manage decides and writes).

Every call hands the work to `context.tasks` (files are read and written off the UI thread); the result
comes back as `applied(text)` or `failed(reason)`, and the workspace is rescanned so the tree, the
listing and the meter show the change at once.
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from skillmanager.gui.context import AppContext

MANAGE_KEY = "manage"


class ManageController(QObject):
    applied = Signal(str)  # a plain sentence: what changed (and the History id)
    failed = Signal(str)  # a plain reason; nothing was changed

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.last_result = None  # core OperationResult of the last change (tests read it)

    @property
    def workspace(self):
        registry = self.context.registry
        return registry.workspace if registry is not None else self.context.workspace

    def _run(self, key: str, work: Callable[[], Any], done: Callable[[Any], None] | None = None) -> None:
        def finished(result) -> None:
            self.last_result = result
            if done is not None:
                done(result)
            summary = getattr(result, "summary", None) or str(result)
            history_id = getattr(result, "history_id", None) or getattr(result, "id", None)
            suffix = f" (History: {history_id})" if history_id else ""
            self.applied.emit(f"{summary}{suffix}")
            self.context.rescan()

        self.context.tasks.run((MANAGE_KEY, key), work, finished, lambda error: self.failed.emit(str(error)))

    # --- operations -----------------------------------------------------------------------------
    def install(self, preview, *, confirm_high: bool = False, force: bool = False, done=None) -> None:
        from skillmanager.core.manage import operations

        self._run("install", lambda: operations.install(preview, confirm_high=confirm_high, force=force), done)

    def create(self, skills_dir, name: str, description: str, when_to_use: str | None, paths, done=None) -> None:
        from skillmanager.core.manage import operations

        self._run("new", lambda: operations.create(skills_dir, name, description, when_to_use, paths), done)

    def refusal(self, skill) -> str | None:
        from skillmanager.core.manage.operations import manageable_reason

        return manageable_reason(skill) if skill is not None else "Select a skill first."

    def rename(self, skill, new_name: str, done=None) -> None:
        from skillmanager.core.manage import operations

        reason = self.refusal(skill)
        if reason:
            self.failed.emit(reason)
            return
        self._run("rename", lambda: operations.rename(skill.skill_dir, new_name), done)

    def move(self, skill, to: str, *, copy: bool = False, done=None) -> None:
        from skillmanager.core.manage import operations
        from skillmanager.core.manage.preview import TargetError, resolve_target

        reason = self.refusal(skill)
        if reason:
            self.failed.emit(reason)
            return
        try:
            target = resolve_target(self.workspace, to)
        except TargetError as error:
            self.failed.emit(str(error))
            return
        self._run("move", lambda: operations.move(skill.skill_dir, target.skills_dir, copy=copy), done)

    def remove(self, skill, done=None) -> None:
        from skillmanager.core.manage import operations

        reason = self.refusal(skill)
        if reason:
            self.failed.emit(reason)
            return
        self._run("remove", lambda: operations.remove(skill.skill_dir), done)

    def plan_update(self, skill, done: Callable[[Any], None]) -> None:
        """Fetch and diff in the background; `done(plan)` shows it (the caller cleans the plan up)."""
        from skillmanager.core.manage.update import plan_update

        reason = self.refusal(skill)
        if reason:
            self.failed.emit(reason)
            return
        workspace = self.workspace
        self.context.tasks.run((MANAGE_KEY, "plan-update"), lambda: plan_update(workspace, skill.skill_dir), done,
                               lambda error: self.failed.emit(str(error)))

    def apply_update(self, plan, *, confirm_high: bool = False, force: bool = False, done=None) -> None:
        from skillmanager.core.manage import operations

        def work():
            try:
                return operations.replace_folder(plan.preview, confirm_high=confirm_high, force=force,
                                                 commit=plan.new_commit)
            finally:
                plan.cleanup()

        self._run("update", work, done)

    def restore(self, entry_id: str, *, force: bool = False, done=None) -> None:
        from skillmanager.core.edit import history

        def work():
            return _Restored(history.restore(entry_id, force=force))

        self._run("restore", work, done)


class _Restored:
    def __init__(self, entry) -> None:
        self.entry = entry
        self.summary = entry.summary
        self.history_id = entry.id
