"""Update a skill installed from git: fetch the recorded repository again, show the diff, re-audit.

The provenance comes from the manifest (manifest.py). The new commit is cloned into a temp dir with the
same safety rules as an install, the skill's folder is found at the recorded place, and the preview (audit,
validation, listing delta) is computed with the new folder standing where the old one is.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..load.workspace import Workspace
from . import manifest
from .operations import FileDiff, OperationError, tree_diff
from .preview import InstallPreview, preview_install, resolve_target
from .sources import SourceError, StagedSource, stage


@dataclass
class UpdatePlan:
    skill_dir: Path
    provenance: manifest.Provenance
    staged: StagedSource
    new_commit: str
    diff: list[FileDiff]
    preview: InstallPreview | None  # None when nothing changed
    notes: list[str] = field(default_factory=list)

    @property
    def up_to_date(self) -> bool:
        return not self.diff

    def cleanup(self) -> None:
        self.staged.cleanup()

    def to_json(self) -> dict[str, Any]:
        return {"skill_dir": str(self.skill_dir), "source": self.provenance.source,
                "old_commit": self.provenance.commit, "new_commit": self.new_commit, "up_to_date": self.up_to_date,
                "diff": [{"path": d.path, "status": d.status, "diff": d.diff} for d in self.diff],
                "preview": self.preview.to_json() if self.preview else None, "notes": self.notes}


def plan_update(workspace: Workspace, skill_dir: Path, *, data_dir: str | os.PathLike[str] | None = None,
                timeout: float | None = None) -> UpdatePlan:
    skill_dir = Path(skill_dir)
    provenance = manifest.lookup(skill_dir, data_dir)
    if provenance is None:
        raise OperationError(f"{skill_dir} was not installed from a git repository by skillmanager (no record in "
                             "its manifest), so there is nothing to update it from.")
    if os.path.islink(skill_dir) or not (skill_dir / "SKILL.md").is_file():
        raise OperationError(f"{skill_dir} is missing or a link; nothing to update.")
    kwargs = {"timeout": timeout} if timeout else {}
    try:
        staged = stage(provenance.source, git=True, **kwargs)
    except SourceError as error:
        raise OperationError(str(error)) from None
    try:
        folder = staged.root if provenance.subdir == "." else staged.root / provenance.subdir
        if not (folder / "SKILL.md").is_file():
            raise OperationError(f"The repository no longer has a skill at {provenance.subdir}; nothing was updated.")
        diff = tree_diff(skill_dir, folder)
        preview = None
        if diff:
            target = resolve_target(workspace, skill_dir.parent)
            src = {"kind": "git", "location": provenance.source, "commit": staged.commit}
            preview = preview_install(workspace, target, [(skill_dir.name, folder, provenance.subdir)],
                                      replacing=True, source=src)
        return UpdatePlan(skill_dir, provenance, staged, staged.commit or "", diff, preview)
    except BaseException:
        staged.cleanup()
        raise
