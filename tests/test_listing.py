"""Layer-1 listing rules (prompt.ts for legacy, the 2.1.332 `q3n` for current) and their invariants."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings, strategies as st

from skillmanager.core.layers.listing import (BUNDLED, BUILTIN_COMMAND, CUT_BUDGET, CUT_NAME_ONLY_OVERRIDE,
                                       CUT_NAMES_ONLY_LEVEL, CUT_PER_ENTRY_CAP, HEADER, REMINDER, SYSTEM,
                                       DiscoveredDir, ListingEntry, budget_facts, build_listing, capped_description,
                                       render_delta)
from skillmanager.core.versions.profiles import get_profile
from skillmanager.core.js.textwidth import display_width, safe_for_output

LEGACY_P, CURRENT_P = get_profile("legacy"), get_profile("current")

GOLDEN = Path(__file__).resolve().parent / "golden"


def test_budget_table():
    """Spec §3: observed budgets per model."""
    def budget(profile, **kw):
        return budget_facts(get_profile(profile), **kw).budget
    assert budget("legacy") == 8000
    assert budget("legacy", model="claude-sonnet-4-6[1m]") == 40000
    assert budget("current") == 30000  # claude-opus-5-5: 1M × 3 × 1 %
    assert budget("current", model="claude-opus-4-7") == 30000
    assert budget("current", model="claude-sonnet-4-6") == 8000
    assert budget("current", model="claude-opus-4-6") == 8000
    assert budget("current", model="claude-sonnet-4-6[1m]") == 40000
    assert budget("current", context_window=100_000) == 3000  # default model's 3 bytes per token
    assert budget("legacy", context_window=100_000) == 4000
    assert budget("current", budget=1234) == 1234 and budget("legacy", budget=0) == 8000  # Number("0") is falsy
    assert budget("current", settings={"skillListingBudgetFraction": 0.02}) == 60000
    assert budget_facts(CURRENT_P).placement == SYSTEM
    assert budget_facts(CURRENT_P, model="claude-sonnet-4-6").placement == REMINDER
    assert budget_facts(LEGACY_P).placement == REMINDER


def test_per_entry_cap_in_utf16_units():
    text, cut = capped_description("a" * 248 + "😀" + "b", 250)  # the emoji straddles unit 249
    assert cut and text.endswith("\u2026") and text[-2] == "\ud83d"  # a lone high surrogate, as JS slice leaves
    assert safe_for_output(text).endswith("\ufffd\u2026")  # printable without crashing
    assert capped_description("x" * 250, 250) == ("x" * 250, False)
    entry = ListingEntry("e", "é" * 300)
    legacy = build_listing([entry], LEGACY_P)
    assert legacy.entries[0].why == CUT_PER_ENTRY_CAP and len(legacy.entries[0].full_text) == len("- e: ") + 250


def test_when_to_use_newlines_per_profile():
    entry = ListingEntry("w", "Desc.", when_to_use="line one\nline two\n")
    assert build_listing([entry], LEGACY_P).body == "- w: Desc. - line one\nline two\n"
    assert build_listing([entry], CURRENT_P).body == "- w: Desc. - line one line two "


def test_wrappers():
    entry = ListingEntry("a", "b")
    assert build_listing([entry], LEGACY_P).text == f"<system-reminder>\n{HEADER}\n\n- a: b\n</system-reminder>\n"
    assert build_listing([entry], CURRENT_P).text == f"{HEADER}\n\n- a: b"
    assert build_listing([entry], CURRENT_P, model="claude-sonnet-4-6").text == \
        f"<system-reminder>\n{HEADER}\n\n- a: b\n</system-reminder>"
    assert build_listing([], LEGACY_P).text == ""


def test_legacy_three_levels():
    bundled = ListingEntry("bun", kind=BUNDLED, bundled_width=50, bundled_length=50)
    rest = [ListingEntry(f"s{i}", "d" * 60) for i in range(3)]
    full = build_listing([bundled] + rest, LEGACY_P, budget=10_000)
    assert full.totals.level == "full" and not any(e.cut for e in full.entries)
    # (budget − (50+1) − Σ(name+4) − 2) / 3 = (200 − 51 − 18 − 2) / 3 = 43
    cut = build_listing([bundled] + rest, LEGACY_P, budget=200)
    assert cut.totals.level == "truncated" and cut.totals.max_desc_len == 43
    assert cut.entries[1].shown_text == "- s0: " + "d" * 42 + "\u2026" and cut.entries[1].why == CUT_BUDGET
    assert cut.entries[0].shown_text.startswith("- bun [bundled entry: width 50")
    names = build_listing([bundled] + rest, LEGACY_P, budget=100)
    assert names.totals.level == "names-only"
    assert [e.shown_text for e in names.entries[1:]] == ["- s0", "- s1", "- s2"]
    assert names.entries[1].why == CUT_NAMES_ONLY_LEVEL


def test_current_priority_mode():
    entries = [ListingEntry("big", "x" * 100), ListingEntry("small", "y" * 10), ListingEntry("init", "i",
               kind=BUILTIN_COMMAND, bundled_width=20, bundled_length=20),
               ListingEntry("bun", kind=BUNDLED, bundled_width=30, bundled_length=30)]
    result = build_listing(entries, CURRENT_P, budget=70)
    shown = [e.shown_text for e in result.entries]
    # fixed: the bundled entry; the rest start as `- name`; `big` does not fit, the later `small` does
    assert shown[0] == "- big" and shown[1] == "- small: " + "y" * 10 and shown[2] == "- init"
    assert result.totals.level == "priority" and result.entries[0].why == CUT_BUDGET
    scored = build_listing([ListingEntry("a", "x" * 20), ListingEntry("b", "y" * 20, score=5)], CURRENT_P, budget=40)
    assert [e.shown_text for e in scored.entries] == ["- a", "- b: " + "y" * 20]


def test_current_name_only_override_and_display_names():
    entries = [ListingEntry("pdf-tool", "Makes PDFs.", display_name="pdf"), ListingEntry("Bad_Name", "Odd.",
               display_name="Bad Name!"), ListingEntry("quiet", "Hidden desc.", display_name="q", force_name_only=True),
               ListingEntry("plug:deploy", "Deploys.", display_name="deploy")]
    current = build_listing(entries, CURRENT_P)
    assert current.body.split("\n") == ["- pdf-tool (pdf): Makes PDFs.", "- Bad_Name: Odd.", "- quiet",
                                        "- plug:deploy: Deploys."]
    assert current.entries[2].why == CUT_NAME_ONLY_OVERRIDE
    collapsed = build_listing(entries[:1] + [ListingEntry("z", "w" * 50)], CURRENT_P, budget=20)
    assert collapsed.entries[0].shown_text == "- pdf-tool (pdf)"
    assert build_listing(entries, LEGACY_P).body.startswith("- pdf-tool: Makes PDFs.")
    clash = [ListingEntry("a", "A.", display_name="b"), ListingEntry("b", "B.")]  # `b` resolves to the other skill
    assert build_listing(clash, CURRENT_P).body == "- a: A.\n- b: B."


def test_render_delta_matches_sim_goldens():
    data = json.loads((GOLDEN / "sim-two-levels" / "current.json").read_text(encoding="utf-8"))
    expected = data["calls"][0]["system"][0]
    api = DiscoveredDir("src/api", [ListingEntry("clash", "API clash."), ListingEntry("both", "API both."),
                                    ListingEntry("aa-api-only", "API only (aa)."), ListingEntry("zz-api-only", "API only.")],
                        scoped={"clash", "both"}, unscoped_clash={"clash"})
    src = DiscoveredDir("src", [ListingEntry("clash", "SRC clash."), ListingEntry("both", "SRC both."),
                                ListingEntry("aa-src-only", "SRC only (aa)."), ListingEntry("zz-src-only", "SRC only.")],
                        scoped={"clash", "both"}, unscoped_clash={"clash"})
    delta = render_delta(CURRENT_P, discovered=[api, src])
    assert delta.placement == SYSTEM and delta.system_text == expected

    sonnet = json.loads((GOLDEN / "sim-sonnet" / "current.json").read_text(encoding="utf-8"))
    tool_result = sonnet["calls"][0]["tool_result"]
    delta = render_delta(CURRENT_P, model="claude-sonnet-4-6",
                         discovered=[DiscoveredDir("packages/api/src", [ListingEntry("src-skill", "api/src skill.")]),
                                     DiscoveredDir("packages/api", [ListingEntry("clash", "API clash."),
                                                                    ListingEntry("api-skill", "api skill.")],
                                                   scoped={"clash"})],
                         activated=[ListingEntry("cond", "conditional.")])
    assert tool_result.startswith("1\ta\n2" + delta.tool_result_suffix + "\n\n<system-reminder>\n<total_tokens>")

    legacy = json.loads((GOLDEN / "sim-two-levels" / "legacy.json").read_text(encoding="utf-8"))
    new = [ListingEntry("aa-src-only", "SRC only (aa)."), ListingEntry("both", "API both."),
           ListingEntry("zz-src-only", "SRC only."), ListingEntry("aa-api-only", "API only (aa)."),
           ListingEntry("zz-api-only", "API only.")]
    assert legacy["calls"][0]["tool_result"].endswith(render_delta(LEGACY_P, new_entries=new).tool_result_suffix)


# --- properties ------------------------------------------------------------------------------------

_text = st.text(alphabet=st.sampled_from(list("abc xyz-.:") + ["é", "漢", "字", "\u0301", "😀", "\n"]), max_size=80)
_name = st.text(alphabet=st.sampled_from(list("abcdefgh-:")), min_size=1, max_size=12)


@st.composite
def _entries(draw):
    out = []
    for i in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 5)) == 0:
            width = draw(st.integers(5, 400))
            out.append(ListingEntry(f"bundled{i}", kind=BUNDLED, bundled_width=width, bundled_length=width))
        else:
            out.append(ListingEntry(draw(_name) + str(i), draw(_text), when_to_use=draw(st.none() | _text),
                                    force_name_only=draw(st.booleans()) and draw(st.booleans()),
                                    score=draw(st.sampled_from([0, 0, 1.5, 3]))))
    return out


def _check_adds_up(result, profile):
    assert result.body == "\n".join(e.shown_text for e in result.entries)
    if result.entries:
        inner = f"{HEADER}\n\n{result.body}"
        assert inner in result.text
    for e in result.entries:
        if not e.placeholder:
            assert e.shown_width == display_width(e.shown_text)
            assert e.width == display_width(e.full_text)
        assert e.cut == bool(e.reasons)
    assert result.totals.used == sum(e.shown_width for e in result.entries) + max(len(result.entries) - 1, 0)
    assert result.totals.full_total == sum(e.width for e in result.entries) + max(len(result.entries) - 1, 0)


@settings(max_examples=300, deadline=None)
@given(_entries(), st.integers(1, 3000))
def test_legacy_properties(entries, budget):
    result = build_listing(entries, LEGACY_P, budget=budget)
    totals = result.totals
    _check_adds_up(result, "legacy")
    if any(CUT_BUDGET in e.reasons or CUT_NAMES_ONLY_LEVEL in e.reasons for e in result.entries):
        assert totals.full_total > budget  # an entry is cut only when the full listing does not fit
    if totals.level == "full":
        assert totals.full_total <= budget or all(e.kind == BUNDLED for e in result.entries)
    if totals.level == "truncated":  # descriptions can still be cut: the listing fits
        assert totals.used <= budget
    if totals.level == "names-only":  # only what cannot be dropped remains
        assert totals.used == totals.undroppable_cost
        assert all(e.shown_text == f"- {e.name}" for e in result.entries if e.kind != BUNDLED)
        assert totals.used <= budget or totals.undroppable


@settings(max_examples=300, deadline=None)
@given(_entries(), st.integers(1, 3000))
def test_current_properties(entries, budget):
    result = build_listing(entries, CURRENT_P, budget=budget)
    totals = result.totals
    _check_adds_up(result, "current")
    if any(CUT_BUDGET in e.reasons for e in result.entries):
        assert totals.full_total > budget
    if totals.level == "priority":
        if totals.undroppable_cost <= budget:  # names can still give way to descriptions: it fits
            assert totals.used <= budget
        else:
            assert totals.used == totals.undroppable_cost and totals.undroppable
    for e in result.entries:
        if e.kind == BUNDLED or CUT_NAME_ONLY_OVERRIDE in e.reasons:
            assert e.shown_text == e.full_text


def test_profile_bundled_data_loaded():
    legacy = LEGACY_P.bundled
    assert [b.name for b in legacy] == ["update-config", "simplify", "loop", "claude-api"]
    current = CURRENT_P.bundled
    assert current[-1].name == "security-review" and current[-1].kind == "builtin-command"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \t\n\x1b[31m") + ["é", "漢", "\u0301", "😀", "\u200d", "\ufe0f",
                                                                  "🇫", "⚠", "\u00ad", "ｶ", "\ud83d"]), max_size=40))
def test_entry_width_is_display_width(text):
    from skillmanager.core.layers.listing import entry_width
    assert entry_width(text) == display_width(text)
