"""Layer 1: the skill listing Claude Code sends to the model, byte for byte, with a structured account.

Legacy (2.1.88) is a port of src/tools/SkillTool/prompt.ts (`formatCommandsWithinBudget`,
`getCharBudget`, `getCommandDescription`) and the `skill_listing` attachment in utils/messages.ts.
Current (2.1.332) is read from the binary (`q3n` listing, `Cdn` budget, `W3n` cap, `rBn` display
name, `Hw` bytes per token) and checked against oracle captures.

The core works on plain `ListingEntry` values so it can be tested without a registry;
`entries_from_registry` adapts a Registry. Bundled skills are placeholders: their text is Anthropic's,
so only the measured width/length (resources/data/bundled_skills.json) take part in the budget and
the line printed is `- {name} [bundled entry: width W, length L]`.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, Union

from ..load.session_env import EnvValue, session_env_value
from ..load.settings import EffectiveSettings
from ..js.lazy_pattern import LazyPattern, lazy_re

from ..collector import collector_paused
from ..model import Listed, Skill, SourceKind
from ..versions.features import Feature
from ..versions.profiles import Profile
from ..rules.registry import model_command_list
from ..js.bun_width import current_width
from ..js.numbers import js_number, js_number_grouped
from .current_text import clean_listing_text
from ..js.textwidth import ELLIPSIS, cut_to_width, display_width, safe_for_output, utf16_len, utf16_slice

if TYPE_CHECKING:
    from ..rules.registry import Registry

# the settings a listing reads: the effective settings, a plain mapping of them, or none
SettingsLike = Union[EffectiveSettings, Mapping[str, Any], None]

HEADER = "The following skills are available for use with the Skill tool:"
REMINDER = "system-reminder"  # placement: a <system-reminder> text block (first user message / tool result)
SYSTEM = "system-message"  # placement: a section of a role=system message, no wrapper

class EntryKind(StrEnum):
    """What a listing entry is (JSON `kind`)."""

    SKILL = "skill"
    COMMAND = "command"
    BUNDLED = "bundled"
    BUILTIN_COMMAND = "builtin-command"
    PLUGIN = "plugin"
    MCP = "mcp"


class CutReason(StrEnum):
    """Why an entry's shown text is shorter than its description (JSON `why` / `reasons`)."""

    PER_ENTRY_CAP = "per-entry-cap"
    BUDGET = "budget"
    NAME_ONLY_OVERRIDE = "name-only-override"
    NAMES_ONLY_LEVEL = "names-only-level"


class ListingLevel(StrEnum):
    """How far the budget pushed the whole listing: legacy full | truncated | names-only; current full | priority."""

    FULL = "full"
    TRUNCATED = "truncated"
    NAMES_ONLY = "names-only"
    PRIORITY = "priority"


SKILL, COMMAND, BUNDLED = EntryKind.SKILL, EntryKind.COMMAND, EntryKind.BUNDLED
BUILTIN_COMMAND, PLUGIN, MCP = EntryKind.BUILTIN_COMMAND, EntryKind.PLUGIN, EntryKind.MCP
CUT_PER_ENTRY_CAP, CUT_BUDGET = CutReason.PER_ENTRY_CAP, CutReason.BUDGET
CUT_NAME_ONLY_OVERRIDE, CUT_NAMES_ONLY_LEVEL = CutReason.NAME_ONLY_OVERRIDE, CutReason.NAMES_ONLY_LEVEL

LEGACY_MIN_DESC_LENGTH = 20  # prompt.ts MIN_DESC_LENGTH
DEFAULT_FRACTION = 0.01  # SKILL_BUDGET_CONTEXT_PERCENT
DEFAULT_WINDOW = 200_000  # MODEL_CONTEXT_WINDOW_DEFAULT / current `Ubs`
ONE_MILLION = 1_000_000
# current `xB`: model families still counted at 4 bytes per token; newer ones get 3 (`Hw`).
FOUR_BYTES_PER_TOKEN_MODELS = frozenset({
    "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku",
    "claude-3-7-sonnet", "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6",
    "claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5",
})
REMINDER_PLACEMENT_MODELS = frozenset({"claude-opus-4-7"})
# current `DSt`: a display name shown in brackets must look like a name.
_DISPLAY_NAME_OK = LazyPattern(r"^[\p{L}\p{M}\p{N}_:.-]+$")
# the same test for ASCII text (the ASCII letters and digits are its only \p{L}/\p{M}/\p{N}), without `regex`
_ASCII_DISPLAY_NAME_OK = re.compile(r"^[A-Za-z0-9_:.-]+$")


def _clean_display_name(display: str) -> bool:
    if display.isascii():
        return _ASCII_DISPLAY_NAME_OK.match(display) is not None
    return _DISPLAY_NAME_OK.match(display) is not None


@dataclass(slots=True)
class ListingEntry:
    """One listable command, as the listing sees it."""

    name: str
    description: str = ""
    when_to_use: str | None = None
    display_name: str | None = None  # current: shown as `name (display)` when it qualifies
    kind: EntryKind = SKILL
    bundled_width: int | None = None  # measured width/length of Claude Code's own entry text
    bundled_length: int | None = None
    force_name_only: bool = False  # current skillOverrides "name-only"
    score: float = 0.0  # current priority mode: usage score (no history = 0 = listing order)
    key: str | None = None  # Skill.key of the registry skill it came from

    @property
    def is_placeholder(self) -> bool:
        return self.kind in (BUNDLED, BUILTIN_COMMAND) and self.bundled_width is not None


@dataclass(slots=True)
class EntryResult:
    """One listing entry: what it would be at full level, what the model is sent, and why."""

    name: str
    shown_name: str  # current may add ` (display name)`
    kind: EntryKind
    full_text: str  # the entry at full level (after the per-entry cap); placeholder for bundled
    shown_text: str  # what the listing carries
    width: int  # display width of the full entry as Claude Code measures it
    shown_width: int
    length: int  # UTF-16 length of the full entry
    cut: bool
    why: CutReason | None  # main reason the shown text is shorter than the description
    reasons: list[CutReason] = field(default_factory=list)
    fixed: bool = False  # kept whatever the budget (bundled, name-only override)
    placeholder: bool = False
    key: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("name", "shown_name", "kind", "full_text", "shown_text", "width",
                                                  "shown_width", "length", "cut", "why", "reasons", "fixed",
                                                  "placeholder", "key")}


@dataclass
class ListingTotals:
    """The listing against its budget: the sizes, the level reached, whether it is over."""

    budget: int
    used: int  # Σ shown widths + newlines between entries (bundled counted at their measured width)
    full_total: int  # the same for the listing at full level
    level: ListingLevel
    entries: int
    max_desc_len: int | None = None  # legacy level 2 cut width
    over_budget: bool = False
    undroppable: list[str] = field(default_factory=list)  # names still present past the budget
    undroppable_cost: int = 0  # width of the smallest listing Claude Code can make
    context_window: int | None = None
    bytes_per_token: int | None = None
    fraction: float | None = None
    budget_source: str = ""  # plain words for where the budget comes from (BudgetFacts.source)
    budget_origin: str = ""  # "option", "window", "environment", "global-config" or a settings scope

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ListingResult:
    """The skill listing exactly as the model receives it, with every entry's result and the totals."""

    text: str  # exactly what the model receives (wrapper and header included)
    body: str  # the entries joined by newlines
    placement: str
    profile: str
    model: str | None
    entries: list[EntryResult]
    totals: ListingTotals
    # what `build_listing(registry, previous=this)` may reuse (only for a registry built with `reusable=True`)
    reusable: "ListingReuse | None" = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"profile": self.profile, "model": self.model, "placement": self.placement, "text": self.text,
                "entries": [e.to_json() for e in self.entries], "totals": self.totals.to_json()}


@dataclass(frozen=True)
class BudgetFacts:
    """The listing's character budget and where it comes from, in plain words."""

    budget: int
    context_window: int | None
    bytes_per_token: int
    fraction: float | None
    source: str  # plain words: where the budget comes from ("set by SLASH_COMMAND_TOOL_CHAR_BUDGET=… in …")
    placement: str
    origin: str = ""  # "option" (--budget), "window", or the session_env scope that set the variable


# --- widths ------------------------------------------------------------------------------------------
# textwidth.display_width sums per-character widths unless the string needs grapheme segmentation
# (emoji blocks, regional indicators, variation selectors, ZWJ), holds ESC or surrogates. In that
# additive case a per-character cache gives the same number much faster (5,000-skill listings).
_NEEDS_FULL_MEASURE = lazy_re("[\U0001F300-\U0001FAFF\u2600-\u27BF\U0001F1E6-\U0001F1FF\uFE00-\uFE0F\u200D"
                                 "\x1b\ud800-\udfff]")

_NOT_PRINTABLE_ASCII = lazy_re(r"[^\x20-\x7e]")


def _utf16_len(text: str) -> int:
    return len(text) if text.isascii() else utf16_len(text)


@lru_cache(maxsize=None)
def _char_width(ch: str) -> int:
    return display_width(ch)


def entry_width(text: str, profile: Profile | None = None) -> int:
    """The width Claude Code counts for `text` against the listing budget.

    Legacy (node): textwidth.display_width, computed per character where that is exactly equivalent.
    Current (Bun): Bun.stringWidth plus its extra columns for spacing marks and narrow emoji (bun_width).
    """
    if text.isascii():
        return len(text) if text.isprintable() else display_width(text)  # printable ASCII: 1 column each
    if profile is not None and profile.supports(Feature.BUN_STRING_WIDTH):
        return current_width(text)
    if _NEEDS_FULL_MEASURE.search(text):
        return display_width(text)
    others = _NOT_PRINTABLE_ASCII.findall(text)  # printable ASCII is one column each: look up only the rest
    return len(text) - len(others) + sum(map(_char_width, others))


# --- model facts and budget -------------------------------------------------------------------------

def _model_base(model: str) -> str:
    base = re.sub(r"\[1m\]$", "", model.strip(), flags=re.I).lower()
    base = re.sub(r"-\d{8}$", "", base)  # dated ids (claude-sonnet-4-5-20250929)
    return base.replace(".", "-").replace("_", "-")


def has_1m_suffix(model: str) -> bool:
    return bool(re.search(r"\[1m\]", model or "", re.I))  # context.ts has1mContext


def budget_facts(profile: Profile, *, model: str | None = None, context_window: int | None = None,
                 budget: int | None = None, settings: SettingsLike = None,
                 variable: EnvValue | None = None) -> BudgetFacts:
    """The character budget and where the listing goes, for a profile and model.

    legacy (prompt.ts getCharBudget, context.ts getContextWindowForModel): 200k window unless the model
    has `[1m]`, 4 bytes per token, 1 %. current (`Cdn`/`Hw`): 4 bytes per token for the families in
    FOUR_BYTES_PER_TOKEN_MODELS, else 3; window 1M for `[1m]` and for families newer than those
    (observed: claude-opus-4-7, claude-opus-5-5), else 200k; fraction from `skillListingBudgetFraction`.
    Placement (observed): legacy and current with a 4-bytes-per-token family → `<system-reminder>`,
    otherwise a system message. These model tables are ours, from the oracle; unknown future ids
    are treated as the newest family.

    Before the window comes SLASH_COMMAND_TOOL_CHAR_BUDGET: `variable` is its value as the session's
    `process.env` holds it (load/session_env: the shell's, or an `env` block of the settings or ~/.claude.json),
    `budget` an explicit what-if (--budget, Workspace.budget) that takes its place. Both releases read it with
    `Number()` (so " 400 ", "500.7", "0x10" and "-5" are budgets, "abc", "" and "0" leave the window's);
    2.1.211+ also read digits grouped by `,` `_` or a space (BUDGET_ENV_GROUPED_DIGITS). A fractional budget
    cuts exactly as its floor, since every width it is compared with is whole. tests/golden/budget-env-*.
    """
    model = model or profile.default_model
    base = _model_base(model)
    fraction: float | None
    if not profile.supports(Feature.MODEL_AWARE_BUDGET):
        bytes_per_token = 4
        window = context_window or (ONE_MILLION if has_1m_suffix(model) else DEFAULT_WINDOW)
        placement = REMINDER
        fraction = DEFAULT_FRACTION
    else:
        old_family = base in FOUR_BYTES_PER_TOKEN_MODELS
        bytes_per_token = 4 if old_family else 3
        window = context_window or (ONE_MILLION if has_1m_suffix(model) or not old_family else DEFAULT_WINDOW)
        # fuzz-reg seeds 20, 21, 23 (current, --model claude-opus-4-7): a `<system-reminder>` block as well
        placement = REMINDER if old_family or base in REMINDER_PLACEMENT_MODELS else SYSTEM
        fraction = (_setting_number(setting_value(settings, "skillListingBudgetFraction"))
                    if profile.supports(Feature.BUDGET_FRACTION_SETTING) else None)
    share = fraction if fraction is not None else DEFAULT_FRACTION
    if budget is not None:
        number, origin, said = float(budget), BUDGET_OPTION, "set with --budget"
    elif variable is not None:
        number = (js_number_grouped(variable.text) if profile.supports(Feature.BUDGET_ENV_GROUPED_DIGITS)
                  else js_number(variable.text))
        origin, said = variable.scope, f"set by {_variable_words(variable)} in {variable.where}"
    else:
        number, origin, said = math.nan, WINDOW, ""
    if number != 0 and not math.isnan(number):  # `if (Number(process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET))`
        return BudgetFacts(_whole_budget(number), window, bytes_per_token, share, said, placement, origin)
    if not profile.supports(Feature.MODEL_AWARE_BUDGET):
        value = math.floor(window * bytes_per_token * DEFAULT_FRACTION) if window else 8000
    else:
        value = max(1, math.floor(window * bytes_per_token * share))
    from_setting = fraction is not None and profile.supports(Feature.BUDGET_FRACTION_SETTING)
    words = (f"{share * 100:g}% of {model}'s {window:,}-token context window at {bytes_per_token} characters per "
             f"token" + (" (skillListingBudgetFraction)" if from_setting else ""))
    if budget is not None:
        words += "; --budget 0 keeps the window's budget"
    elif variable is not None:
        words += (f"; {_variable_words(variable)} in {variable.where} is ignored: "
                  + ("0 means no budget of its own" if number == 0 else "not a number"))
    return BudgetFacts(value, window, bytes_per_token, share, words, placement, WINDOW)


BUDGET_VARIABLE = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
BUDGET_OPTION, WINDOW = "option", "window"  # BudgetFacts.origin besides a session_env scope
_LARGEST_BUDGET = 2 ** 53 - 1  # Number.MAX_SAFE_INTEGER: an `Infinity` budget fits every listing
_PLAIN_VALUE = re.compile(r"[0-9A-Za-z.+-]+")


def _whole_budget(number: float) -> int:
    """The budget as a whole number: its floor (the same cuts), ±Infinity as the largest whole budget."""
    if math.isinf(number):
        return _LARGEST_BUDGET if number > 0 else -_LARGEST_BUDGET
    return max(-_LARGEST_BUDGET, min(_LARGEST_BUDGET, math.floor(number)))


def _variable_words(variable: EnvValue) -> str:
    """`NAME=value`, the value quoted when it is not a plain word (" 400 ", "6,483", "")."""
    text = variable.text if len(variable.text) <= 40 else variable.text[:39] + ELLIPSIS
    shown = text if _PLAIN_VALUE.fullmatch(text) else json.dumps(text, ensure_ascii=False)
    return f"{variable.name}={shown}"


def budget_variable(registry: Registry) -> EnvValue | None:
    """SLASH_COMMAND_TOOL_CHAR_BUDGET as a session in the registry's workspace would hold it (load/session_env)."""
    workspace = registry.workspace
    return session_env_value(BUDGET_VARIABLE, workspace.env, registry.settings, workspace.global_config_file)


def setting_value(settings: SettingsLike, key: str) -> Any:
    """A setting from a plain dict or from settings.EffectiveSettings (its validated property)."""
    if settings is None:
        return None
    if not isinstance(settings, EffectiveSettings):
        return settings.get(key)
    if hasattr(settings, key):  # a validated property, named as the setting
        return getattr(settings, key)
    return settings.merged.get(key)


def _setting_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def per_entry_cap(profile: Profile, settings: SettingsLike = None) -> int:
    """legacy MAX_LISTING_DESC_CHARS = 250; current `nBn`: skillListingMaxDescChars ?? 1536."""
    if profile.supports(Feature.MAX_DESC_CHARS_SETTING):
        value = setting_value(settings, "skillListingMaxDescChars")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return profile.per_entry_cap


# --- entry text ------------------------------------------------------------------------------------

def entry_description(entry: ListingEntry, profile: Profile) -> str:
    """`description - when_to_use` (prompt.ts getCommandDescription / current `Rdn`), before the cap."""
    when, description = entry.when_to_use, entry.description
    # current cleans both parts (current_text): a run of newlines,
    if profile.supports(Feature.WHEN_TO_USE_NEWLINES_TO_SPACES):
        # controls or invisible characters is one space (parse-edges, fuzz-reg seeds 26–37, listing-clean, listing-text),
        # joiners of RGI emoji are kept, `<` `>` are escaped
        description = clean_listing_text(description)
        when = clean_listing_text(when) if when else when
    return f"{description} - {when}" if when else description


def capped_description(text: str, cap: int) -> tuple[str, bool]:
    """Cut to `cap` UTF-16 units: first cap-1 units + `…` (may leave a lone high surrogate, as JS does)."""
    if _utf16_len(text) > cap:
        return utf16_slice(text, cap - 1) + ELLIPSIS, True
    return text, False


def shown_name(entry: ListingEntry, profile: Profile, all_entries: Sequence[ListingEntry],
               index: "NameIndex | None" = None) -> str:
    """current `rBn`: `name (display)` when the display name is a clean name resolving to this entry.
    `index`: NameIndex(all_entries) built once by a caller that asks for many entries."""
    if not profile.supports(Feature.DISPLAY_NAME_IN_BRACKETS):
        return entry.name
    display = entry.display_name
    if not display or display == entry.name or entry.name.endswith(":" + display):
        return entry.name
    if len(display) > 256 or not _clean_display_name(display):
        return entry.name
    # all_entries (or the index) may hold other objects for the same skill: the key tells
    found: Named | None = index.resolve(display) if index is not None else _resolve(display, all_entries)
    if found is None or (found is not entry and (found.key is None or found.key != entry.key)):
        return entry.name
    return f"{entry.name} ({display})"


def _resolve(name: str, entries: Sequence[ListingEntry]) -> ListingEntry | None:
    """current `$s`: exact name first, then a display name."""
    for candidate in entries:
        if candidate.name == name:
            return candidate
    for candidate in entries:
        if (candidate.display_name or candidate.name) == name:
            return candidate
    return None


class Named(Protocol):
    """What name resolution reads: a ListingEntry, or the registry Skill it is adapted from (same values)."""

    @property
    def name(self) -> str: ...
    @property
    def display_name(self) -> str | None: ...
    @property
    def key(self) -> str | None: ...


class NameIndex:
    """`_resolve` over a fixed list in O(1): the first entry with each name, then with each display name."""

    def __init__(self, entries: Sequence[Named]) -> None:
        # built from the end, so the first candidate with a name is the one kept (as setdefault from the start)
        backwards = entries[::-1]
        self.by_name: dict[str, Named] = {candidate.name: candidate for candidate in backwards}
        self.by_display: dict[str, Named] = {candidate.display_name or candidate.name: candidate
                                             for candidate in backwards}

    def resolve(self, name: str) -> Named | None:
        found = self.by_name.get(name)
        return found if found is not None else self.by_display.get(name)


def placeholder_text(entry: ListingEntry) -> str:
    return f"- {entry.name} [bundled entry: width {entry.bundled_width}, length {entry.bundled_length}]"


@dataclass(slots=True)
class _Row:
    """One entry's texts and sizes for the budget pass."""

    entry: ListingEntry
    name: str
    full: str  # text printed at full level (placeholder for bundled)
    name_only: str
    desc: str  # capped description (empty for placeholders)
    width: int
    name_only_width: int
    length: int
    cap_cut: bool
    override: bool = False

    @property
    def placeholder(self) -> bool:
        return self.entry.is_placeholder


def _rows(entries: Sequence[ListingEntry], profile: Profile, cap: int,
          all_entries: Sequence[ListingEntry], index: NameIndex | None = None,
          earlier: Mapping[int, _Row] | None = None) -> list[_Row]:
    """`earlier`: id(entry) -> the row an earlier listing made of that same entry object, with the same
    profile and cap; it is reused unless the entry's shown name now resolves differently."""
    rows: list[_Row] = []
    append = rows.append
    overrides = profile.supports(Feature.SKILL_OVERRIDES)
    display_names = profile.supports(Feature.DISPLAY_NAME_IN_BRACKETS)
    profile_id = id(_ROW_PROFILES.setdefault(id(profile), profile))
    for entry in entries:
        if earlier is not None:
            row = earlier.get(id(entry))
            if row is not None:
                # a row reads only its entry, the profile, the cap and the shown name; the name is the one
                # input other entries decide (a display name resolves against every command)
                if row.override or not (entry.display_name and display_names):
                    append(row)
                    continue
                if index is None:
                    index = NameIndex(all_entries)
                if shown_name(entry, profile, all_entries, index) == row.name:
                    append(row)
                    continue
        if overrides and entry.force_name_only:  # `A$e(cmd) === "name-only"`
            text = f"- {entry.name}"
            width = entry_width(text, profile)
            append(_Row(entry, entry.name, text, text, "", width, width, utf16_len(text), False, True))
            continue
        if entry.display_name and display_names:
            if index is None:
                index = NameIndex(all_entries)
            name = shown_name(entry, profile, all_entries, index)
        else:
            name = entry.name  # what shown_name gives an entry without a display name
        if entry.bundled_width is not None and entry.is_placeholder:
            name_only = f"- {name}"
            append(_Row(entry, name, placeholder_text(entry), name_only, "", entry.bundled_width,
                        entry_width(name_only, profile), entry.bundled_length or 0, False))
            continue
        key = (profile_id, cap, name, entry.description, entry.when_to_use)
        known = _ROW_TEXT.get(key)
        if known is None:
            desc, cut = capped_description(entry_description(entry, profile), cap)
            full = f"- {name}: {desc}"
            name_only = f"- {name}"
            known = (full, name_only, desc, entry_width(full, profile), entry_width(name_only, profile),
                     _utf16_len(full), cut)
            if len(_ROW_TEXT) >= _ROW_TEXT_LIMIT:
                _ROW_TEXT.clear()
            _ROW_TEXT[key] = known
        append(_Row(entry, name, *known))
    return rows


@dataclass(slots=True)
class ListingReuse:
    """What one listing of a registry hands to the next (an incremental refresh): each listed skill's entry,
    each entry's row and each row's result, keyed by object id. The dicts hold the objects themselves, so
    an id here is never another live object's; a skill object is never changed once listed (a refresh
    replaces it), except its `load_index`, which its entry's key records."""

    profile: Profile
    cap: int
    entries: dict[int, tuple[Skill, ListingEntry]]  # id(skill) -> (skill, its entry)
    rows: dict[int, _Row]  # id(entry) -> its row
    results: dict[int, tuple[str, "_Reasons", EntryResult]]  # id(row) -> (shown text, reasons, result)


# A row's texts and sizes depend only on these inputs: rebuilding a listing (preview, live refresh, the
# simulator's deltas) reuses them. Bounded: cleared when full.
_RowKey = tuple[int, int, str, str, str | None]  # (profile id, cap, shown name, description, when_to_use)
_RowText = tuple[str, str, str, int, int, int, bool]  # _Row's fields from `full` to `cap_cut`
_ROW_TEXT: dict[_RowKey, _RowText] = {}
_ROW_PROFILES: dict[int, Profile] = {}  # keeps each keyed profile alive, so its id is never reused
_ROW_TEXT_LIMIT = 200_000


# --- the listing -------------------------------------------------------------------------------------

def build_listing(skills_or_registry: Registry | list[ListingEntry] | tuple[ListingEntry, ...], profile: Profile | None = None, *, model: str | None = None,
                  context_window: int | None = None, budget: int | None = None,
                  settings: SettingsLike = None, all_entries: Sequence[ListingEntry] | None = None,
                  reusable: bool = False, previous: ListingResult | None = None) -> ListingResult:
    """The start-up listing. Accepts a list of ListingEntry or a Registry (see entries_from_registry).

    With a Registry, `reusable=True` keeps what a later build may reuse, and `previous` (a listing built
    that way, of an earlier registry of the same workspace) reuses the entries, rows and results of the
    skill objects both registries share: a one-file refresh measures only what changed, then runs the
    budget pass over every row's kept figures. The result is the same as without `previous`."""
    with collector_paused():  # ~20 % of a 20,000-skill listing otherwise (core/collector.py)
        return _build_listing(skills_or_registry, profile, model=model, context_window=context_window,
                              budget=budget, settings=settings, all_entries=all_entries,
                              reusable=reusable or previous is not None, previous=previous)


def _build_listing(skills_or_registry: Any, profile: Profile | None, *, model: str | None,
                   context_window: int | None, budget: int | None, settings: Any,
                   all_entries: Sequence[ListingEntry] | None, reusable: bool = False,
                   previous: ListingResult | None = None) -> ListingResult:
    name_index: NameIndex | None = None
    adapted: dict[int, ListingEntry] | None = None
    earlier: ListingReuse | None = None
    variable: EnvValue | None = None
    if isinstance(skills_or_registry, (list, tuple)):
        entries = list(skills_or_registry)
        if profile is None:
            raise ValueError("a profile is needed with a plain list of entries")
    else:
        registry = skills_or_registry
        profile = profile or registry.profile
        if settings is None:
            settings = registry.settings
        workspace = registry.workspace
        model = model or registry.model or None
        if context_window is None and budget is None:
            context_window = workspace.context_window
        if budget is None:
            budget = workspace.budget
        if budget is None:
            variable = budget_variable(registry)
        if previous is not None and previous.reusable is not None and previous.reusable.profile is profile \
                and previous.reusable.cap == per_entry_cap(profile, settings):
            earlier = previous.reusable
        if reusable:
            adapted = {}
        entries = entries_from_registry(registry, profile, adapted=adapted,
                                        earlier=earlier.entries if earlier is not None else None)
        if all_entries is None and profile.supports(Feature.DISPLAY_NAME_IN_BRACKETS) \
                and any(entry.display_name for entry in entries):
            # display names resolve against the registry's skills themselves (what entries_from_registry
            # with listed_only=False would adapt, with the same names, display names and keys)
            name_index = NameIndex(name_candidates(registry, profile))
    facts = budget_facts(profile, model=model, context_window=context_window, budget=budget, settings=settings,
                         variable=variable)
    result, rows, shown, reasons = _format(entries, profile, facts, settings=settings, all_entries=all_entries,
                                           model=model, name_index=name_index, earlier=earlier)
    if adapted is not None:
        result.reusable = ListingReuse(
            profile, per_entry_cap(profile, settings),
            {id(skill): (skill, adapted[id(skill)]) for skill in registry.skills if id(skill) in adapted},
            {id(row.entry): row for row in rows},
            {id(row): (text, why, entry_result)
             for row, text, why, entry_result in zip(rows, shown, reasons, result.entries)})
    return result


def format_listing(entries: Sequence[ListingEntry], profile: Profile, facts: BudgetFacts, *,
                   settings: SettingsLike = None, all_entries: Sequence[ListingEntry] | None = None,
                   model: str | None = None, placement: str | None = None,
                   name_index: NameIndex | None = None) -> ListingResult:
    """`name_index`: display names resolve through it instead of `all_entries` (or `entries`)."""
    return _format(entries, profile, facts, settings=settings, all_entries=all_entries, model=model,
                   placement=placement, name_index=name_index)[0]


def _format(entries: Sequence[ListingEntry], profile: Profile, facts: BudgetFacts, *, settings: SettingsLike,
            all_entries: Sequence[ListingEntry] | None, model: str | None, placement: str | None = None,
            name_index: NameIndex | None = None, earlier: ListingReuse | None = None
            ) -> tuple[ListingResult, list[_Row], list[str], list["_Reasons"]]:
    placement = placement or facts.placement
    cap = per_entry_cap(profile, settings)
    rows = _rows(entries, profile, cap, all_entries if all_entries is not None else entries, name_index,
                 earlier.rows if earlier is not None else None)
    if not profile.supports(Feature.LISTING_PRIORITY_MODE):
        shown, reasons, level, max_desc = _legacy_levels(rows, facts.budget)
    else:
        shown, reasons, level = _current_priority(rows, facts.budget)
        max_desc = None
    result = _result(rows, shown, reasons, level, max_desc, profile, facts, placement, model,
                     earlier.results if earlier is not None else None)
    return result, rows, shown, reasons


# Why an entry's shown text is shorter, as the level functions hand it to _result (which makes each a list).
_Reasons = tuple[CutReason, ...]
_NO_REASON: _Reasons = ()
_CAPPED: _Reasons = (CUT_PER_ENTRY_CAP,)
_OVERRIDDEN: _Reasons = (CUT_NAME_ONLY_OVERRIDE,)
_NAMES_ONLY: _Reasons = (CUT_NAMES_ONLY_LEVEL,)
_NAMES_ONLY_CAPPED: _Reasons = (CUT_NAMES_ONLY_LEVEL, CUT_PER_ENTRY_CAP)
_BUDGET: _Reasons = (CUT_BUDGET,)
_BUDGET_CAPPED: _Reasons = (CUT_BUDGET, CUT_PER_ENTRY_CAP)


def _legacy_levels(rows: list[_Row], budget: int) -> tuple[list[str], list[_Reasons], ListingLevel, int | None]:
    """prompt.ts formatCommandsWithinBudget: full → common maxDescLen → names only (bundled always full)."""
    if not rows:
        return [], [], ListingLevel.FULL, None
    cap_reasons = [_CAPPED if r.cap_cut else _NO_REASON for r in rows]
    full_total = sum(r.width for r in rows) + len(rows) - 1
    if full_total <= budget:
        return [r.full for r in rows], cap_reasons, ListingLevel.FULL, None
    bundled = [r.entry.kind == BUNDLED for r in rows]
    rest = [r for r, b in zip(rows, bundled) if not b]
    if not rest:
        return [r.full for r in rows], cap_reasons, ListingLevel.FULL, None
    bundled_chars = sum(r.width + 1 for r, b in zip(rows, bundled) if b)
    remaining = budget - bundled_chars
    overhead = sum(entry_width(r.entry.name) + 4 for r in rest) + len(rest) - 1
    max_desc = (remaining - overhead) // len(rest)  # Math.floor
    shown: list[str] = []
    reasons: list[_Reasons] = []
    if max_desc < LEGACY_MIN_DESC_LENGTH:
        for r, b, cap_r in zip(rows, bundled, cap_reasons):
            if b:
                shown.append(r.full)
                reasons.append(cap_r)
            else:
                # `- {name}`: the row already holds it when its shown name is the entry's name
                shown.append(r.name_only if r.name == r.entry.name else f"- {r.entry.name}")
                reasons.append(_NAMES_ONLY_CAPPED if cap_r else _NAMES_ONLY)
        return shown, reasons, ListingLevel.NAMES_ONLY, max_desc
    for r, b, cap_r in zip(rows, bundled, cap_reasons):
        if b:
            shown.append(r.full)
            reasons.append(cap_r)
            continue
        cut = cut_to_width(r.desc, max_desc)
        shown.append(f"- {r.entry.name}: {cut}")
        reasons.append((_BUDGET_CAPPED if cap_r else _BUDGET) if cut != r.desc else cap_r)
    return shown, reasons, ListingLevel.TRUNCATED, max_desc


def _current_priority(rows: list[_Row], budget: int) -> tuple[list[str], list[_Reasons], ListingLevel]:
    """current `q3n`: fixed entries full, the rest kept full by score while the spare budget allows."""
    reasons = [_OVERRIDDEN if r.override else (_CAPPED if r.cap_cut else _NO_REASON) for r in rows]
    if not rows:
        return [], [], ListingLevel.FULL
    full_total = sum(r.width for r in rows) + len(rows) - 1
    if full_total <= budget:
        return [r.full for r in rows], reasons, ListingLevel.FULL
    fixed = [r.override or r.entry.kind == BUNDLED for r in rows]
    others = [i for i, is_fixed in enumerate(fixed) if not is_fixed]
    if not others:
        return [r.full for r in rows], reasons, ListingLevel.FULL
    base = sum(r.width if is_fixed else r.name_only_width for r, is_fixed in zip(rows, fixed)) + len(rows) - 1
    spare = budget - base
    kept = fixed.copy()  # shown full: the fixed entries, then those the spare budget takes
    negated_scores = [-r.entry.score for r in rows]
    for i in sorted(others, key=negated_scores.__getitem__):  # stable, like Array.prototype.sort
        row = rows[i]
        extra = row.width - row.name_only_width
        if extra <= spare:
            kept[i] = True
            spare -= extra
    shown = []
    for i, (r, full) in enumerate(zip(rows, kept)):
        if full:
            shown.append(r.full)
        else:
            shown.append(r.name_only)
            reasons[i] = _BUDGET_CAPPED if r.cap_cut else _BUDGET  # not fixed, so not overridden
    return shown, reasons, ListingLevel.PRIORITY


def _result(rows: list[_Row], shown: list[str], reasons: list[_Reasons], level: ListingLevel, max_desc: int | None,
            profile: Profile, facts: BudgetFacts, placement: str, model: str | None,
            earlier: Mapping[int, tuple[str, _Reasons, EntryResult]] | None = None) -> ListingResult:
    """`earlier`: id(row) -> (shown text, reasons, result) of an earlier listing; a result reads only its row,
    its shown text and its reasons, so it is reused when all three are the same."""
    results: list[EntryResult] = []
    append = results.append
    used = full_total = minimal = 0
    for r, text, why in zip(rows, shown, reasons):
        entry = r.entry
        fixed = r.override or entry.kind == BUNDLED
        known = earlier.get(id(r)) if earlier is not None else None
        if known is not None and known[1] == why and known[0] == text:
            result = known[2]
            shown_width = result.shown_width
            append(result)
        else:
            shown_width = (r.width if text == r.full else
                           r.name_only_width if text == r.name_only else entry_width(text, profile))
            placeholder = entry.bundled_width is not None and entry.is_placeholder
            append(EntryResult(entry.name, r.name, entry.kind, r.full, text, r.width, shown_width, r.length,
                               bool(why), why[0] if why else None, list(why), fixed, placeholder, entry.key))
        used += shown_width
        full_total += r.width
        # The smallest listing Claude Code can send: bundled (and overridden) entries full, the rest `- name`.
        minimal += r.width if fixed else _plain_name_width(r, profile)
    n = len(rows)
    used += max(n - 1, 0)
    full_total += max(n - 1, 0)
    minimal += max(n - 1, 0)
    over = used > facts.budget
    totals = ListingTotals(
        budget=facts.budget, used=used, full_total=full_total, level=level, entries=n, max_desc_len=max_desc,
        over_budget=over, undroppable=[e.name for e in results] if over and minimal > facts.budget else [],
        undroppable_cost=minimal, context_window=facts.context_window, bytes_per_token=facts.bytes_per_token,
        fraction=facts.fraction, budget_source=facts.source, budget_origin=facts.origin)
    body = "\n".join(shown)
    text = wrap_listing(body, profile, placement)
    # Bun sends the request as UTF-8: a lone surrogate left by the per-entry cap
    if profile.supports(Feature.REQUEST_UTF8_REPLACES_LONE_SURROGATES):
        text = safe_for_output(text)  # arrives as U+FFFD (parse-edges/current.json emoji-cap); node keeps it
    return ListingResult(text, body, placement, profile.name, model, results, totals)


def _plain_name_width(row: _Row, profile: Profile) -> int:
    """Width of `- {name}` (legacy's names-only form; current's collapsed form is row.name_only)."""
    if row.name == row.entry.name:  # row.name_only is `- {row.name}`
        return row.name_only_width
    plain = f"- {row.entry.name}"
    return row.name_only_width if plain == row.name_only else entry_width(plain, profile)


def wrap_listing(body: str, profile: Profile, placement: str) -> str:
    """The message text. legacy: utils/messages.ts `skill_listing` wrapped by wrapMessagesInSystemReminder
    (a text block ending in a newline); current as observed (no trailing newline); system message section."""
    if not body:
        return ""
    inner = f"{HEADER}\n\n{body}"
    if placement == SYSTEM:
        return inner
    tail = "\n" if profile.supports(Feature.LISTING_TRAILING_NEWLINE) else ""
    return f"<system-reminder>\n{inner}\n</system-reminder>{tail}"


# --- later turns -------------------------------------------------------------------------------------

@dataclass
class DiscoveredDir:
    """One nested `.claude/skills` dir found mid-session (current's "New skills discovered" block)."""

    rel_dir: str  # relative to the cwd, no trailing slash: "packages/api"
    entries: list[ListingEntry]  # new skills from it, in the order Claude Code read them (directory order)
    scoped: set[str] = field(default_factory=set)  # bare names that clash → listed as `rel_dir:name`
    # of those, the ones whose bare name is also an unscoped skill: their suffix is "(scoped to …)";
    # a clash only between nested dirs keeps "(from …)" (sim-two-levels `both`). None = all of `scoped`.
    unscoped_clash: set[str] | None = None


@dataclass
class DeltaResult:
    """What a session sends when the listing changes mid-session (new skills discovered)."""

    blocks: list[str]  # each system message (SYSTEM) or `<system-reminder>` block (REMINDER)
    placement: str
    listing: ListingResult | None
    tool_result_suffix: str  # REMINDER: what is appended to the tool_result text ("" for SYSTEM)

    @property
    def system_text(self) -> str:
        """SYSTEM placement: the one role=system message Claude Code sends (blocks joined by a blank line)."""
        return "\n\n".join(self.blocks) if self.placement == SYSTEM else ""


def render_delta(profile: Profile, *, discovered: Sequence[DiscoveredDir] = (),
                 activated: Sequence[ListingEntry] = (), new_entries: Sequence[ListingEntry] | None = None,
                 model: str | None = None, context_window: int | None = None, budget: int | None = None,
                 settings: SettingsLike = None, variable: EnvValue | None = None) -> DeltaResult:
    """What a later turn adds when skills appear (tests/oracle/FINDINGS-simulator.md).

    legacy: one `<system-reminder>` listing of `new_entries` (the caller passes them in Claude Code's
    order: activated first, then discovered, names already known removed), appended to the tool result
    after a blank line. current: one "New skills discovered in {dir}/.claude/skills" block per dir
    (deepest first, names in the given order: the CLI's directory order), then one listing of every new entry (discovered + `activated`)
    sorted by bare name (ties: shallower dir first), nested ones with their `(from …)`/`(scoped to …)`
    suffix. The same budget rules apply to the new entries only (`variable`: see budget_facts).
    """
    facts = budget_facts(profile, model=model, context_window=context_window, budget=budget, settings=settings,
                         variable=variable)
    if not profile.supports(Feature.NEW_SKILLS_DISCOVERED_MESSAGE):
        items = list(new_entries) if new_entries is not None else (
            list(activated) + [e for d in discovered for e in d.entries])
        listing = format_listing(items, profile, facts, settings=settings, model=model, placement=REMINDER) if items else None
        blocks = [f"<system-reminder>\n{HEADER}\n\n{listing.body}\n</system-reminder>"] if listing else []
        return DeltaResult(blocks, REMINDER, listing, "".join("\n\n" + b for b in blocks))
    blocks_inner = []
    listed: list[tuple[str, int, ListingEntry]] = []  # (bare name, depth, entry)
    for d in discovered:
        names = [f"{d.rel_dir}:{e.name}" if e.name in d.scoped else e.name for e in d.entries]
        if names:
            blocks_inner.append(f"New skills discovered in {d.rel_dir}/.claude/skills, now available via the Skill tool:\n"
                                + "\n".join(f"- {n}" for n in names))
        depth = d.rel_dir.count("/") + 1
        for e in d.entries:
            clash = d.scoped if d.unscoped_clash is None else d.unscoped_clash
            listed.append((e.name, depth, nested_entry(e, d.rel_dir, e.name in d.scoped, e.name in clash)))
    for e in activated:
        listed.append((e.name, 0, e))
    items = [e for _, _, e in sorted(listed, key=lambda t: (t[0], t[1]))]
    listing = None
    if items:
        listing = format_listing(items, profile, facts, settings=settings, model=model, placement=SYSTEM)
        blocks_inner.append(listing.text)
    if facts.placement == SYSTEM:
        return DeltaResult(blocks_inner, SYSTEM, listing, "")
    blocks = [f"<system-reminder>\n{b}\n</system-reminder>" for b in blocks_inner]
    return DeltaResult(blocks, REMINDER, listing, "".join("\n\n" + b for b in blocks))


def nested_entry(entry: ListingEntry, rel_dir: str, scoped: bool, clashes_with_unscoped: bool | None = None) -> ListingEntry:
    """current `Xvo`/`YXs`: a scoped skill is renamed `{dir}:{name}`; the description gains
    `(scoped to …)` when an unscoped skill has the bare name, else `(from …)`."""
    if clashes_with_unscoped is None:
        clashes_with_unscoped = scoped
    if scoped and clashes_with_unscoped:
        suffix = (f"scoped to {rel_dir}/ \u2014 use this instead of the unscoped \"{entry.name}\" skill when the "
                  f"files being changed are under {rel_dir}/")
    else:
        suffix = f"from {rel_dir}/.claude/skills \u2014 applies when working on files under {rel_dir}/"
    display: str | None
    if scoped:
        name = display = f"{rel_dir}:{entry.name}"
    else:
        name, display = entry.name, entry.display_name
    return ListingEntry(name=name, description=f"{entry.description} ({suffix})", when_to_use=entry.when_to_use,
                        display_name=display, kind=entry.kind, force_name_only=entry.force_name_only,
                        score=entry.score, key=entry.key)


# --- registry adapter ------------------------------------------------------------------------------

_KIND_BY_SOURCE = {
    SourceKind.BUNDLED: BUNDLED,
    SourceKind.BUILTIN_COMMAND: BUILTIN_COMMAND,
    SourceKind.COMMAND: COMMAND,
    SourceKind.PLUGIN_COMMAND: PLUGIN,
    SourceKind.PLUGIN_SKILL: PLUGIN,
    SourceKind.MCP: MCP,
}


# keyed by the enum's value: an Enum member's __hash__ runs Python code, a str's does not
_KIND_BY_SOURCE_VALUE = {source._value_: kind for source, kind in _KIND_BY_SOURCE.items()}


def entry_from_skill(skill: Skill, *, score: float = 0.0) -> ListingEntry:
    return ListingEntry(skill.name, skill.description or "", skill.when_to_use, skill.display_name,
                        _KIND_BY_SOURCE_VALUE.get(skill.source._value_, SKILL), skill.bundled_width,
                        skill.bundled_length, skill.state.listed is Listed.NAME_ONLY, score, skill.key)


def name_candidates(registry: Registry, profile: Profile) -> list[Skill]:
    """The commands names are looked up in: loaded (active, not a duplicate), and in current one per name
    (registry.model_command_list); fuzz-reg seed 1017: an inactive `paths:` skill and a realpath duplicate
    with display name UPPER do not keep `pre:x (UPPER)` from being shown."""
    loaded = [s for s in registry.skills if s.state.active and s.state.duplicate_of is None]
    if profile.supports(Feature.SKILL_TOOL_ONE_COMMAND_PER_NAME):
        loaded = model_command_list(loaded)
    return loaded


def entries_from_registry(registry: Registry, profile: Profile | None = None, *,
                          listed_only: bool = True, adapted: dict[int, ListingEntry] | None = None,
                          earlier: Mapping[int, tuple[Skill, ListingEntry]] | None = None) -> list[ListingEntry]:
    """Listable skills of a Registry in load order (`listed_only=False`: every command names resolve against):
    `state.listed` FULL or NAME_ONLY, active (conditional
    skills wait for a matching file), not a realpath duplicate; shadowed copies only where the profile
    lists every copy (legacy). The registry has already applied disable-model-invocation, skillOverrides
    and the plugin/MCP description rule to `state.listed`. `earlier` (ListingReuse.entries): the entry an
    earlier listing adapted from the same skill object is reused while the skill's key is unchanged."""
    profile = profile or registry.profile
    if not listed_only:
        loaded = name_candidates(registry, profile)
        if adapted is not None:
            return [adapted.get(id(s)) or adapted.setdefault(id(s), entry_from_skill(s)) for s in loaded]
        return [entry_from_skill(s) for s in loaded]
    out = []
    for skill in registry.skills:
        state = skill.state
        if listed_only:
            if state.listed is Listed.NO or not state.active or state.duplicate_of is not None:
                continue
            if state.shadowed_by is not None and not profile.supports(Feature.LISTING_KEEPS_EVERY_COPY):
                continue
        known = earlier.get(id(skill)) if earlier is not None else None
        entry = known[1] if known is not None and known[1].key == skill.key else entry_from_skill(skill)
        if adapted is not None:
            adapted[id(skill)] = entry
        out.append(entry)
    return out


