"""The engine's prediction next to what the real CLI sent, line by line, each difference naming the
profile features (core/versions/profiles.py fields) and modules it points to.

Rules of the comparison (the same ones the oracle tests use):
- The listing's wrapper (placement, header, closing tag) is compared exactly.
- Entries are compared in order and byte for byte, except Claude Code's own (bundled) entries, which the
  engine holds as `- name [bundled entry: width W, length L]`: those by name, position and width (the width
  only with the model the widths were measured with, the version's default model).
- Groups whose order 2.1.88 does not keep stable are compared as sets: its `.claude/commands` files (ripgrep
  order) and each run of plugin entries (concurrent reads).
- A Read's skill blocks ("New skills discovered in …" blocks exactly, listing entries in order). Both CLIs
  load nested skills without waiting, so a listing can reach the model one tool call late: when a step's
  entries are missing and the next step carries them, that is reported as a late delivery, not a difference.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ..layers.listing import REMINDER, EntryResult, ListingResult, entry_width
from ..model import SourceKind
from ..versions.features import Feature
from ..versions.profiles import Profile
from .capture import DISCOVERY, HEADER, REMINDER_BLOCK, SKILL_BLOCK, Capture, CapturedStep

if TYPE_CHECKING:
    from ..rules.registry import Registry
    from ..simulator.session import StepResult

PLACEHOLDER = re.compile(r"^- (\S+) \[bundled entry: width (\d+), length (\d+)\]$")
_NAME = re.compile(r"- (.+?)(?:: | \(| \[|:?$)")

LISTING_MODULE = "core/layers/listing.py"
SOURCES_MODULE = "core/load/sources.py"
REGISTRY_MODULE = "core/rules/registry.py"
SESSION_MODULE = "core/simulator/session.py"
# Features and values of the release (and modules) that decide an entry, by where the skill came from.
FEATURES_BY_SOURCE: dict[SourceKind, tuple[str, ...]] = {
    SourceKind.BUNDLED: ("bundled", "source_order", "DISABLE_BUNDLED_SKILLS", "bundled_kept_when_disabled"),
    SourceKind.BUILTIN_COMMAND: ("bundled", "source_order"),
    SourceKind.COMMAND: ("COMMANDS_SORTED_BY_NAME", "ADD_DIR_COMMANDS"),
    SourceKind.PLUGIN_COMMAND: ("PLUGIN_SKILL_COLON_TO_DASH", "PLUGIN_DISPLAY_NAME_PREFIXED"),
    SourceKind.PLUGIN_SKILL: ("PLUGIN_SKILL_COLON_TO_DASH", "PLUGIN_DISPLAY_NAME_PREFIXED",
                              "PLUGIN_DEFAULT_SKILLS_DIR_KEPT"),
    SourceKind.ADD_DIR: ("ADD_DIR_CLASH_SCOPED", "ADD_DIR_COMMANDS"),
    SourceKind.USER: ("SKILL_DIRS_CASE_INSENSITIVE_ORDER", "SKILL_DIRS_IN_READ_ORDER", "LISTING_KEEPS_EVERY_COPY",
                      "DMI_YIELDS_NAME"),
    SourceKind.PROJECT: ("SKILL_DIRS_CASE_INSENSITIVE_ORDER", "SKILL_DIRS_IN_READ_ORDER", "LISTING_KEEPS_EVERY_COPY",
                         "DMI_YIELDS_NAME"),
    SourceKind.MANAGED: ("SKILL_DIRS_CASE_INSENSITIVE_ORDER", "SKILL_DIRS_IN_READ_ORDER", "LISTING_KEEPS_EVERY_COPY",
                         "DMI_YIELDS_NAME"),
    SourceKind.MCP: (),
}
TEXT_FEATURES = ("per_entry_cap", "WHEN_TO_USE_NEWLINES_TO_SPACES", "LENIENT_BOOLEANS", "YAML_LAST_KEY_WINS",
                 "STRIPS_BOM")
ORDER_FEATURES = ("source_order", "COMMANDS_SORTED_BY_NAME", "SKILL_DIRS_CASE_INSENSITIVE_ORDER",
                  "SKILL_DIRS_IN_READ_ORDER",
                  "LISTING_KEEPS_EVERY_COPY", "UNSTABLE_COMMAND_AND_PLUGIN_ORDER")
PLACEMENT_FEATURES = ("default_model",)
DELTA_FEATURES = ("LISTING_KEEPS_EVERY_COPY", "ADD_DIR_CLASH_SCOPED")  # current scopes clashing nested names


@dataclass
class Difference:
    where: str  # "start-up listing" | "Read <path>"
    what: str
    name: str | None = None
    engine: str | None = None
    claude: str | None = None
    features: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def lines(self) -> list[str]:
        out = [f"- {self.where}: {self.what}" + (f" `{self.name}`" if self.name else "")]
        if self.engine is not None:
            out.append(f"    engine: {self.engine!r}")
        if self.claude is not None:
            out.append(f"    claude: {self.claude!r}")
        if self.features:
            out.append(f"    points to: {', '.join(self.features)}")
        return out


@dataclass
class Section:
    """One compared part: the start-up listing or one Read."""

    title: str
    status: str  # matches | differs | late (the CLI delivered it one call later; not a difference)
    detail: str = ""
    differences: list[Difference] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "status": self.status, "detail": self.detail,
                "differences": [d.to_json() for d in self.differences]}


def feature_names(profile: Profile, names: Sequence[str]) -> list[str]:
    """`field=value` for profile fields, bundled as the data file, other names as given."""
    out = []
    for name in dict.fromkeys(names):
        if name == "bundled":
            out.append("bundled entries (resources/data/bundled_skills.json)")
        elif name in Feature.__members__:
            out.append(f"{name}={profile.supports(Feature[name])!r}")
        elif hasattr(profile, name):
            value = getattr(profile, name)
            if isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = [getattr(v, "value", v) for v in value]
            out.append(f"{name}={value!r}")
        else:
            out.append(name)
    return out


def entry_name(entry: str) -> str:
    match = _NAME.match(entry.split("\n", 1)[0])
    return match.group(1) if match else ""


def split_listing(text: str) -> tuple[str, list[str], str]:
    """(text up to header + blank line, entries, closing text); an entry starts at a line beginning `- `."""
    if HEADER not in text:
        return text, [], ""
    start = text.index(HEADER) + len(HEADER) + 2
    head, body, tail = text[:start], text[start:], ""
    for closing in ("\n</system-reminder>\n", "\n</system-reminder>"):
        if body.endswith(closing):
            body, tail = body[:-len(closing)], closing
            break
    entries: list[str] = []
    for line in body.split("\n") if body else []:
        if line.startswith("- ") or not entries:
            entries.append(line)
        else:
            entries[-1] += "\n" + line
    return head, entries, tail


def _sorted_runs(entries: list[str], names: set[str]) -> list[str]:
    """Each run of consecutive entries whose names are in `names`, sorted; the rest in place."""
    out: list[str] = []
    run: list[str] = []
    for entry in [*entries, None]:
        if entry is not None and entry_name(entry) in names:
            run.append(entry)
            continue
        out += sorted(run)
        run = []
        if entry is not None:
            out.append(entry)
    return out


class ListingComparer:
    """Compares listing entries with the registry at hand to name sources and features."""

    def __init__(self, registry: Registry, profile: Profile, measured_widths: bool) -> None:
        self.registry = registry
        self.profile = profile
        self.measured_widths = measured_widths
        self.entry_results: dict[str, EntryResult] = {}  # name -> its entry in the start-up listing
        self.budget_note = ""
        self.source_by_name: dict[str, SourceKind] = {}
        for skill in registry.skills:
            self.source_by_name.setdefault(skill.name, skill.source)

    def features_for(self, name: str | None, extra: Sequence[str] = (), *, by_source: bool = True) -> list[str]:
        if not by_source:  # a text rule: the listing module decides it, wherever the skill came from
            return feature_names(self.profile, extra) + [LISTING_MODULE]
        source = self.source_by_name.get(name or "")
        names = list(extra) + list(FEATURES_BY_SOURCE.get(source, ())) if source else list(extra)
        if not names:
            names = list(ORDER_FEATURES)
        modules = [REGISTRY_MODULE, LISTING_MODULE] if source else [SOURCES_MODULE, REGISTRY_MODULE]
        return feature_names(self.profile, names) + modules

    def unstable_groups(self) -> tuple[set[str], set[str]]:
        """(names compared as one set, names whose runs are sorted): 2.1.88's commands and plugin entries."""
        if not self.profile.supports(Feature.UNSTABLE_COMMAND_AND_PLUGIN_ORDER):
            return set(), set()
        commands = {s.name for s in self.registry.skills if s.source is SourceKind.COMMAND}
        plugins = {s.name for s in self.registry.skills
                   if s.source in (SourceKind.PLUGIN_COMMAND, SourceKind.PLUGIN_SKILL)}
        return commands, plugins

    def compare_entries(self, where: str, ours: list[str], theirs: list[str]) -> list[Difference]:
        as_set, runs = self.unstable_groups()
        problems: list[Difference] = []
        only_ours, only_theirs = self._unmatched([e for e in ours if entry_name(e) in as_set],
                                                 [e for e in theirs if entry_name(e) in as_set])
        for e in only_ours:
            problems.append(Difference(where, "command entry the CLI did not send (compared as a set)",
                                       entry_name(e), e, None, self.features_for(entry_name(e))))
        for e in only_theirs:
            problems.append(Difference(where, "command entry the engine did not predict (compared as a set)",
                                       entry_name(e), None, e, self.features_for(entry_name(e))))
        mine = _sorted_runs([e for e in ours if entry_name(e) not in as_set], runs)
        real = _sorted_runs([e for e in theirs if entry_name(e) not in as_set], runs)
        names_mine, names_real = [entry_name(e) for e in mine], [entry_name(e) for e in real]
        matcher = difflib.SequenceMatcher(a=names_mine, b=names_real, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                for a, b in zip(mine[i1:i2], real[j1:j2]):
                    problems += self._same_name(where, a, b, names_mine.index(entry_name(a)))
                continue
            for a in mine[i1:i2]:
                moved = entry_name(a) in names_real
                problems.append(Difference(where, "entry at another position in the CLI's listing" if moved else
                                           "entry the CLI did not send", entry_name(a), a,
                                           None, self.features_for(entry_name(a), ORDER_FEATURES if moved else ())))
            for b in real[j1:j2]:
                if entry_name(b) in names_mine:
                    continue  # reported once, from the engine's side
                problems.append(Difference(where, "entry the engine did not predict", entry_name(b), None, b,
                                           self.features_for(entry_name(b))))
        return problems

    def _unmatched(self, ours: list[str], theirs: list[str]) -> tuple[list[str], list[str]]:
        """Match as multisets: equal texts first, then a bundled placeholder with a same-named entry (of its
        measured width, when widths are compared)."""
        left, right = list(ours), list(theirs)
        for entry in list(left):
            if entry in right:
                left.remove(entry)
                right.remove(entry)
        for entry in list(left):
            placeholder = PLACEHOLDER.match(entry)
            if not placeholder:
                continue
            for other in right:
                if entry_name(other) == placeholder.group(1) and (
                        not self.measured_widths or entry_width(other, self.profile) == int(placeholder.group(2))):
                    left.remove(entry)
                    right.remove(other)
                    break
        return sorted(left), sorted(right)

    def _same_name(self, where: str, ours: str, theirs: str, index: int) -> list[Difference]:
        placeholder = PLACEHOLDER.match(ours)
        name = entry_name(ours)
        if placeholder:
            if not self.measured_widths:
                return []
            width = entry_width(theirs, self.profile)
            if width != int(placeholder.group(2)):
                return [Difference(where, f"bundled entry width {width}, the engine's measure is "
                                          f"{placeholder.group(2)}", name, ours, f"- {name} [width {width}]",
                                   self.features_for(name, ["bundled"]))]
            return []
        if ours == theirs:
            return []
        return [Difference(where, f"entry {index + 1} text", name, ours, theirs,
                           self.features_for(name, self.text_features(name, ours, theirs), by_source=False))]

    def text_features(self, name: str, ours: str, theirs: str) -> list[str]:
        """What a same-named entry's text difference points to: a cut (the per-entry cap or the budget) when
        one text is the other cut short, else the description rules."""
        budget = f"listing budget {self.budget_note}" if self.budget_note else "listing budget (budget_facts)"
        engine_cut = ours.endswith("\u2026") and theirs.startswith(ours[:-1])
        cli_cut = theirs.endswith("\u2026") and ours.startswith(theirs[:-1])
        result = self.entry_results.get(name)
        if engine_cut or cli_cut or (len(theirs) < len(ours) and ours.startswith(theirs)) or \
                (len(ours) < len(theirs) and theirs.startswith(ours)):
            reasons = list(result.reasons) if result is not None else []
            if engine_cut and reasons:
                return ["per_entry_cap" if r == "per-entry-cap" else budget for r in reasons]
            return ["per_entry_cap", budget]
        return list(TEXT_FEATURES)


def compare_listing(predicted: ListingResult, captured: Capture, comparer: ListingComparer) -> Section:
    where = "start-up listing"
    if captured.listing is None:
        if not predicted.text:
            return Section(where, "matches", "no skills listed")
        return Section(where, "differs", "", [Difference(where, "the CLI sent no listing", None,
                                                         predicted.text[:200], None,
                                                         feature_names(comparer.profile, PLACEMENT_FEATURES))])
    if not predicted.text:
        return Section(where, "differs", "", [Difference(where, "the engine predicts no listing, the CLI sent one",
                                                         None, None, captured.listing.text[:200])])
    problems: list[Difference] = []
    engine_placement = "system-reminder" if predicted.placement == REMINDER else "system"
    if engine_placement != captured.listing.placement:
        problems.append(Difference(where, "placement", None, engine_placement, captured.listing.placement,
                                   feature_names(comparer.profile, PLACEMENT_FEATURES) +
                                   ["listing placement (budget_facts)", LISTING_MODULE]))
    comparer.entry_results = {e.name: e for e in predicted.entries}
    totals = predicted.totals
    comparer.budget_note = (f"{totals.budget} ({totals.budget_source or 'context window'}, level {totals.level}, "
                            f"default_model={comparer.profile.default_model!r})")
    head_a, ours, tail_a = split_listing(predicted.text)
    head_b, theirs, tail_b = split_listing(captured.listing.text)
    if (head_a, tail_a) != (head_b, tail_b) and not problems:
        problems.append(Difference(where, "wrapper", None, head_a + "…" + tail_a, head_b + "…" + tail_b,
                                   ["wrap_listing", LISTING_MODULE]))
    problems += comparer.compare_entries(where, ours, theirs)
    comparer.entry_results, comparer.budget_note = {}, ""
    detail = f"{len(theirs)} entries"
    return Section(where, "differs" if problems else "matches", detail, problems)


# --- Reads ---------------------------------------------------------------------------------------------

@dataclass
class _Delta:
    placement: str | None
    discovery: list[str]
    entries: list[str]

    @property
    def empty(self) -> bool:
        return not self.discovery and not self.entries


def _delta(blocks: list[str], placement: str | None) -> _Delta:
    discovery, entries = [], []
    for block in blocks:
        if block.startswith(DISCOVERY):
            discovery.append(block)
        elif block.startswith(HEADER):
            entries += split_listing(block)[1]
    return _Delta(placement if blocks else None, discovery, entries)


def predicted_delta(step_result: StepResult) -> _Delta:
    if not step_result.model_text:
        return _Delta(None, [], [])
    if step_result.placement == "tool_result":
        blocks = [b for b in REMINDER_BLOCK.findall(step_result.model_text) if SKILL_BLOCK.match(b)]
    else:
        blocks = list(step_result.messages)
    return _delta(blocks, step_result.placement)


def captured_delta(step: CapturedStep) -> _Delta:
    return _delta(step.blocks, step.placement)


def compare_reads(titles: list[str], predicted: list[Any], captured: list[CapturedStep],
                  comparer: ListingComparer) -> list[Section]:
    ours = [predicted_delta(r) for r in predicted]
    theirs = [captured_delta(s) for s in captured]
    sections: list[Section] = []
    carried: list[str] = []  # entries that arrived late from the previous step
    for i, title in enumerate(titles):
        if i >= len(theirs):
            sections.append(Section(title, "differs", "", [Difference(
                title, "the CLI never made this Read (the session ended early)")]))
            continue
        mine, real = ours[i], theirs[i]
        arrived_late, carried = carried, []
        expected_entries = arrived_late + mine.entries
        late = bool(i + 1 < len(theirs) and mine.entries and not real.entries and real.discovery == mine.discovery
                    and set(mine.entries) <= set(theirs[i + 1].entries))
        if late:
            carried, expected_entries = mine.entries, []
        problems: list[Difference] = []
        if not mine.empty and not real.empty and mine.placement != real.placement:
            problems.append(Difference(title, "placement", None, mine.placement, real.placement,
                                       feature_names(comparer.profile, PLACEMENT_FEATURES) + [SESSION_MODULE]))
        for a, b in _pairs(mine.discovery, real.discovery):
            problems.append(Difference(title, "discovered-skills block", None, a, b,
                                       feature_names(comparer.profile, DELTA_FEATURES) +
                                       ["nested discovery (core/simulator/discovery.py)", SESSION_MODULE]))
        # entries that came late from the previous Read share this listing: their order is the CLI's merge, so
        # with them the entries are compared as a set
        want, got = (sorted(expected_entries), sorted(real.entries)) if arrived_late else (expected_entries, real.entries)
        if want != got:
            entry_problems = comparer.compare_entries(title, want, got) or [
                Difference(title, "listing entries", None, "\n".join(want), "\n".join(got), [SESSION_MODULE])]
            for d in entry_problems:
                if SESSION_MODULE not in d.features:
                    d.features.append(f"`paths:` activation / discovery order ({SESSION_MODULE})")
            problems += entry_problems
        status = "differs" if problems else ("late" if late else "matches")
        sections.append(Section(title, status, _describe(mine if late else real, late), problems))
    return sections


def _pairs(a: list[str], b: list[str]) -> list[tuple[str | None, str | None]]:
    n = max(len(a), len(b))
    return [(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(n) if
            (a[i] if i < len(a) else None) != (b[i] if i < len(b) else None)]


def _describe(delta: _Delta, late: bool) -> str:
    if delta.empty:
        return "nothing new"
    parts = []
    if delta.discovery:
        parts.append(f"{len(delta.discovery)} discovered-skills block(s)")
    if delta.entries:
        parts.append(f"{len(delta.entries)} listing entr{'y' if len(delta.entries) == 1 else 'ies'}")
    text = ", ".join(parts)
    return text + (" (the CLI delivered the entries with the next call; both CLIs load nested skills "
                   "without waiting)" if late else "")
