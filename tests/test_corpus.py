"""Real-world SKILL.md files load with zero exceptions; every unparseable file gets a diagnostic."""
from pathlib import Path

import pytest

from skillmanager.core.model import Severity, SourceKind
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.load.skill_file import load_skill_file
from locations import CORPUS, missing  # noqa: E402

SAMPLE = Path(__file__).parent / "data" / "corpus_sample"
FULL = CORPUS


def _load_all(root: Path, profile_name: str):
    profile = get_profile(profile_name)
    loaded, with_errors = [], []
    for path in sorted(root.rglob("SKILL.md")):
        skill = load_skill_file(path, name=path.parent.name, kind="skill", source=SourceKind.PROJECT,
                                profile=profile, source_root=path.parent.parent, skill_dir=path.parent,
                                fallback_label="Skill")
        assert skill is not None
        loaded.append(skill)
        if any(d.severity is Severity.ERROR for d in skill.diagnostics):
            with_errors.append(skill)
    return loaded, with_errors


def test_sample_has_licences():
    for collection in SAMPLE.iterdir():
        assert (collection / "SOURCE_AND_LICENSE.md").exists()


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_sample_loads(profile):
    loaded, _ = _load_all(SAMPLE, profile)
    assert len(loaded) >= 50
    assert all(s.description for s in loaded)


@pytest.mark.parametrize("profile", ["legacy", "current"])
def test_full_corpus_when_present(profile):
    if not FULL.is_dir():
        missing("../shared/corpus is not present")
    loaded, with_errors = _load_all(FULL, profile)
    unparsed = [s for s in loaded if s.front_matter == {} and s.body.startswith("---")]
    print(f"\n{profile}: {len(loaded)} files, {len(with_errors)} with errors, "
          f"{sum(1 for s in loaded if s.diagnostics)} with diagnostics")
    for skill in with_errors:  # every file whose front matter could not be used says why
        assert skill.diagnostics
    for skill in unparsed:
        assert skill.diagnostics or profile == "legacy", skill.path
