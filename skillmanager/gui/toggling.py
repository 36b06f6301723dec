"""Applying and undoing toggles from the GUI (core.toggle does the deciding and the writing).

Every write is remembered in the context (path + content hash) so that the file watcher, which
sees our own write a moment later, does not treat it as an external change; the registry is
refreshed right away from the written paths instead.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from skillmanager.gui.context import AppContext

# How long the notice after a change stays (it also stays while the pointer is over it).
NOTICE_MS = 10_000

PLAIN_STATES = {
    "on": "On",
    "name-only": "Name only",
    "user-invocable-only": "Only as /command",
    "off": "Off",
    "hidden": "Hidden from Claude",
    "unhide": "Not hidden",
    "blocked": "Blocked",
    "unblock": "Not blocked",
}


def toggle_module():
    from skillmanager.core.edit import toggle

    return toggle


class ToggleController(QObject):
    applied = Signal(str)  # a plain sentence: what was written where
    failed = Signal(str)  # a plain reason (external change, unparseable file, …)
    undo_changed = Signal(bool)  # whether there is something to undo
    changed = Signal(object, str)  # (the AppliedChange, a plain sentence) after every write: the notice

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.history: list = []  # AppliedChange, most recent last (session undo)
        self.writing = False  # a write or undo is running on the task runner
        self._writes = 0

    def apply(self, plan, skill=None, on_done=None) -> bool:
        """Write `plan` (the one the user saw) on the task runner: the files are planned again there first and
        must still give the same bytes. Refusals and external changes go to `failed`; `on_done(change)` runs
        after the write. False when refused at once (or while another change is being written)."""
        if not plan.ok:
            self.failed.emit(plan.refusal or "The toggle was refused.")
            return False
        if not plan.edits:
            self.applied.emit(plan.message or "Nothing to change.")
            return True
        registry = self.context.registry

        def work():
            toggle = toggle_module()
            fresh = replan(registry, plan, skill) if skill is not None else None
            if fresh is not None and not fresh.ok:
                raise toggle.ToggleError(fresh.refusal or "The toggle was refused.")
            if fresh is not None and [e.new_data for e in fresh.edits] != [e.new_data for e in plan.edits]:
                raise toggle.ToggleError("The file changed on disk since the preview was shown; nothing was "
                                         "written. Check the new preview and apply again.")
            return toggle.apply_plan(plan)

        for edit in plan.edits:  # known before the write: the watcher may report it before the runner does
            for path in {str(edit.path), str(edit.target)}:
                self.context.remember_write(path, edit.new_data)

        def written(change) -> None:
            self._after_write(change)
            self.history.append(change)
            self.undo_changed.emit(True)
            sentence = change_sentence(plan)
            self.applied.emit(sentence + " Ctrl+Z undoes it.")
            self.changed.emit(change, sentence)
            if on_done is not None:
                on_done(change)

        return self._write(work, written)

    def _write(self, work, done) -> bool:
        """One write at a time, off the UI thread (core re-reads each file to check it is unchanged)."""
        if self.writing:
            self.failed.emit("A change is still being written; try again in a moment.")
            return False
        self.writing = True
        self._writes += 1

        def finished(result) -> None:
            self.writing = False
            done(result)

        def failed(error: BaseException) -> None:
            self.writing = False
            toggle = toggle_module()
            self.failed.emit(str(error) if isinstance(error, toggle.ToggleError)
                             else f"The change could not be written: {error}")

        self.context.tasks.run(("toggle-write", self._writes), work, finished, failed)
        return True

    # --- one click: the row switch, several rows, the budget remedy (planned off the UI thread) --------
    def switch(self, skills, turn_on: bool) -> None:
        """Turn `skills` on or off with the mechanism core picks for one click; one undoable change."""
        registry = self.context.registry
        skills = [s for s in skills if s is not None]
        if registry is None or not skills:
            return
        from skillmanager.core.edit.switch import plan_switch

        self.context.tasks.run("toggle-switch", lambda: plan_switch(registry, skills, turn_on), self.apply)

    def apply_remedy(self, remedy) -> None:
        """The budget banner's one click: every skill of core's remedy in one change."""
        registry = self.context.registry
        if registry is None or remedy is None:
            return
        from skillmanager.core.edit.batch import plan_batch

        by_key = {s.key: s for s in registry.skills}
        items = [(by_key[k], remedy.state) for k in remedy.keys if k in by_key]

        def work():
            return plan_batch(registry, items, label=f"{len(items)} skills (listing budget)")
        self.context.tasks.run("toggle-remedy", work, self.apply)

    def undo_change(self, change) -> bool:
        """Undo this very change (the notice's Undo names it); refused when it is not the latest."""
        if not self.history or self.history[-1] is not change:
            self.failed.emit(f"Only the latest change can be undone here; use Edit > History to restore "
                             f"“{change.plan.name}”.")
            return False
        return self.undo()

    def undo(self) -> bool:
        """Put back the latest change (on the task runner); False when there is none or a write is running."""
        if not self.history or self.writing:
            return False
        change = self.history[-1]

        def undone(reverse) -> None:
            if self.history and self.history[-1] is change:
                self.history.pop()
            self._after_write(reverse, removed_when_created=change)
            self.undo_changed.emit(bool(self.history))
            self.applied.emit(f"Undone: {change.plan.message}")
            self.changed.emit(None, f"Undone: {change_sentence(change.plan)}")

        for edit in change.edits:  # what undo writes back (None: a file the change created is removed)
            for path in {str(edit.path), str(edit.target)}:
                self.context.remember_write(path, edit.before if edit.existed else None)
        return self._write(lambda: toggle_module().undo(change), undone)

    def undo_label(self) -> str:
        """The Undo action names its target: "Undo: turn off review"."""
        if not self.history:
            return "&Undo"
        plan = self.history[-1].plan
        return f"&Undo: {PLAIN_STATES.get(plan.state, plan.state).lower()} for {plan.name}"

    def _after_write(self, change, removed_when_created=None) -> None:
        paths = []
        for edit in change.edits:
            gone = removed_when_created is not None and any(
                e.target == edit.target and not e.existed for e in removed_when_created.edits)
            data = None if gone else edit.after
            for path in {str(edit.path), str(edit.target)}:
                self.context.remember_write(path, data)
            paths.append(str(edit.path))  # as Claude Code reads it (the target may be outside every source)
        self.context.refresh(paths)  # the tree, the listing and the meter update now, not via the watcher


def replan(registry, plan, skill):
    """The same toggle planned again from the files as they are now (None: no workspace or no skill)."""
    if registry is None or skill is None:
        return None
    toggle = toggle_module()
    scope = plan.scope if plan.scope in toggle.WRITABLE_SCOPES else None  # e.g. "front-matter" is no choice
    return toggle.plan_toggle(registry, skill, plan.state, scope)


def change_sentence(plan) -> str:
    """What changed and where, in one sentence: "Off for review: skillOverrides… in ~/.claude/settings.json"."""
    files = sorted({str(e.path) for e in plan.edits})
    state = PLAIN_STATES.get(plan.state, plan.state)
    return f"{state} for {plan.name} — written to {', '.join(files)}."
