"""The word gates (audit_words): a rule is skipped only when its regex cannot match. Checked on text made
to contain a match of every gated regex (hypothesis `from_regex`), alone and inside real skill files, and
end to end: the command rules give with their word gates what they give without them and what their slow
path gives (no hand-written word list is left to miss a spelling such as `uudecode0|sh`), and the injection,
secret, hidden-character and description rules what their slow paths give."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from skillmanager.core.checks import audit_base
from skillmanager.core.checks.audit_base import block_tokens, fold_lower
from skillmanager.core.checks.audit_commands import PATTERNS, Facts, command_hits
from skillmanager.core.checks.audit_secrets import _SECRETS, _WORD_GATES as _SECRET_GATES, secret_hits
from skillmanager.core.checks.audit_text import (_DISCOVERY_GATE, _WORD_GATES as _INJECTION_GATES, description_hits,
                                                 hidden_unicode_hits, injection_hits)
from skillmanager.core.checks.audit_words import FOLDS_TO_ASCII, BlockWords, WordGate, block_chars, top_level_alternatives

GATES = ([(p.message, p.gate) for p in PATTERNS if p.gate is not None] +
         [(f"injection {key}", gate) for key, gate in _INJECTION_GATES.items()] +
         [("injection discovery", _DISCOVERY_GATE)] +
         [(f"secret {what}", gate) for (_, what), gate in zip(_SECRETS, _SECRET_GATES)])
SAMPLE = Path(__file__).parent / "data" / "corpus_sample"
REAL = sorted(p.read_text(encoding="utf-8", errors="replace") for p in SAMPLE.rglob("SKILL.md"))
CONTEXT = st.sampled_from(["", " ", "\n", "x", "é", "-", "_", "(", "'", "Please ", " now.\n", "\u3000", "\t#"])
FEW = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
# per alternative (247 of them, each example audited three ways, half inside a real file): fewer each, every one
# still exercised, and the rule-level tests above and below draw across all of them
PER_ALTERNATIVE = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))


def _words(text: str) -> BlockWords:
    data = text.encode("utf-8", "surrogatepass")
    return BlockWords(block_tokens(data), block_chars(text, data))


def _gate_applies(text: str) -> bool:
    """Where the audit consults word gates at all (block_words)."""
    return fold_lower(text) is not None and not any(char in text for char in FOLDS_TO_ASCII)


def test_most_rules_have_a_gate():
    """The derivation finds required words for most rules (a rule without one is never skipped by it)."""
    gated = [name for name, gate in GATES if gate.conditions]
    assert len(gated) >= 60, gated


@pytest.mark.parametrize("name,gate", GATES, ids=[name[:60] for name, _ in GATES])
@FEW
@given(data=st.data())
def test_gate_keeps_every_text_its_regex_matches(name, gate, data):
    match = data.draw(st.from_regex(gate.regex))
    text = data.draw(CONTEXT) + match + data.draw(CONTEXT)
    if data.draw(st.booleans()) and REAL:
        real = data.draw(st.sampled_from(REAL))
        at = data.draw(st.integers(0, len(real)))
        text = real[:at] + text + real[at:]
    assume(_gate_applies(text) and gate.regex.search(text))
    assert gate.possible(_words(text))


@pytest.mark.parametrize("source,flags,text,possible", [
    (r"\bcurl\b", re.I, "use CURL here", True),
    (r"\bcurl\b", re.I, "use curly braces", False),
    (r"\bcurl\b", 0, "curl", True),
    (r"curl", 0, "xcurly", True),  # not bounded: no word required
    (r"(?<![A-Za-z0-9])ssh(?![a-z0-9])", 0, "sshX", True),  # [a-z0-9] does not rule out X: no gate
    (r"(?<![A-Za-z0-9])ssh(?![a-z0-9])", re.I, "ssh_x", True),
    (r"(?<![A-Za-z0-9])ssh(?![a-z0-9])", re.I, "sshx", False),
    (r"\.ssh/id_\w+", 0, "cat ~/.ssh/id_rsa", True),
    (r"\.ssh/id_\w+", 0, "cat ~/.sshd/id_rsa", False),
    (r"\bdo\s+not\s+tell\b", re.I, "Do NOT tell", True),
    (r"\bdo\s+not\s+tell\b", re.I, "do nothing to tell", False),
    (r"не\s+говори", re.I, "НЕ ГОВОРИ", True),  # a required letter in any case
    (r"не\s+говори", re.I, "no cyrillic here", False),
    (r"python[23]?\s+-c\b", re.I, "python3 -c", True),
    (r"\bpython[23]?\s", re.I, "python4 x", False),
    (r"\b(?:a|b)x\b|\bzz\b", 0, "zz", True),
    (r"\b(?:a|b)x\b|\bzz\b", 0, "ax", True),
    (r"\b(?:a|b)x\b|\bzz\b", 0, "cx", False),
])
def test_derived_words(source, flags, text, possible):
    gate = WordGate(re.compile(source, flags))
    assert bool(re.search(source, text, flags)) == possible
    assert gate.possible(_words(text)) == possible


TEXT_PIECES = st.lists(st.one_of(st.sampled_from(REAL[:20] or [""]).map(lambda t: t[:1500]),
                                 st.sampled_from([p.regex for p in PATTERNS]).flatmap(st.from_regex),
                                 st.sampled_from([g.regex for g in _INJECTION_GATES.values()]).flatmap(st.from_regex),
                                 st.sampled_from([r for r, _ in _SECRETS]).flatmap(st.from_regex),
                                 st.sampled_from(["\n", " ", "not ", "the user ", "ſ", "K", "\u200b", "é"])),
                       max_size=6).map("".join)


def _facts(facts: Facts):
    return (sorted(facts.sends), sorted(facts.secrets), sorted(facts.staged), sorted(facts.destinations),
            sorted(facts.homes))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(TEXT_PIECES, st.booleans())
def test_rule_families_with_gates_match_slow_paths(text, short_too):
    """Real file text with generated matches of the rules: fast (gated) == slow, for every family."""
    saved = audit_base.GATE_MIN_CHARS
    audit_base.GATE_MIN_CHARS = 0 if short_too else saved
    audit_base._GATE_MEMO[:] = [None, None, None]
    audit_base._WORDS_MEMO[:] = [None, None]
    try:
        fast_facts, slow_facts, gateless_facts = Facts(), Facts(), Facts()
        fast = sorted(command_hits(text, facts=fast_facts), key=repr)
        assert fast == sorted(command_hits(text, facts=gateless_facts, word_gates=False), key=repr)
        assert fast == sorted(command_hits(text, facts=slow_facts, fast=False), key=repr)
        assert _facts(fast_facts) == _facts(slow_facts) == _facts(gateless_facts)
        assert injection_hits(text) == injection_hits(text, fast=False)
        assert secret_hits(text) == secret_hits(text, fast=False)
        assert hidden_unicode_hits(text) == hidden_unicode_hits(text, fast=False)
        assert description_hits(text[:600]) == description_hits(text[:600], fast=False)
    finally:
        audit_base.GATE_MIN_CHARS = saved
        audit_base._GATE_MEMO[:] = [None, None, None]
        audit_base._WORDS_MEMO[:] = [None, None]


@pytest.mark.skipif(not REAL, reason="tests/data/corpus_sample is missing")
def test_real_files_match_slow_paths():
    for text in REAL:
        fast_facts, slow_facts = Facts(), Facts()
        assert sorted(command_hits(text, facts=fast_facts), key=repr) == sorted(
            command_hits(text, fast=False, facts=slow_facts), key=repr)
        assert command_hits(text) == command_hits(text, word_gates=False)
        assert _facts(fast_facts) == _facts(slow_facts)
        assert injection_hits(text) == injection_hits(text, fast=False)
        assert secret_hits(text) == secret_hits(text, fast=False)
        assert hidden_unicode_hits(text) == hidden_unicode_hits(text, fast=False)


# Rules of several alternatives: the word gates (and needles) of each alternative choose which are searched; a
# match of each alternative is still found, alone and inside a real file.
ALTERNATIVES = ([(p.message, p.regex, i, part) for p in PATTERNS
                 for i, part in enumerate(top_level_alternatives(p.regex.pattern)) if "|" in p.regex.pattern] +
                [(f"injection {key}", gate.regex, i, part) for key, gate in _INJECTION_GATES.items()
                 for i, part in enumerate(top_level_alternatives(gate.regex.pattern))])


def test_every_alternative_compiles_alone():
    for _, regex, _, part in ALTERNATIVES:
        re.compile(part, regex.flags)
    for _, gate in GATES:
        assert "|".join(top_level_alternatives(gate.regex.pattern)) in (gate.regex.pattern, gate.regex.pattern[3:-1])


@pytest.mark.parametrize("name,regex,index,part", ALTERNATIVES, ids=[f"{a[0][:40]}-{a[2]}" for a in ALTERNATIVES])
@PER_ALTERNATIVE
@given(data=st.data())
def test_each_alternative_is_still_found(name, regex, index, part, data):
    text = data.draw(CONTEXT) + data.draw(st.from_regex(re.compile(part, regex.flags))) + data.draw(CONTEXT)
    if data.draw(st.booleans()) and REAL:
        real = data.draw(st.sampled_from(REAL))
        at = data.draw(st.integers(0, len(real)))
        text = real[:at] + text + real[at:]
    if name.startswith("injection"):
        assert injection_hits(text) == injection_hits(text, fast=False)
    else:
        assert command_hits(text) == command_hits(text, word_gates=False) == command_hits(text, fast=False)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab\n\r é"), max_size=60))
def test_newline_offsets_are_where_the_newlines_are(text):
    from skillmanager.core.checks.audit import newline_offsets

    assert newline_offsets(text) == [m.start() for m in re.finditer("\n", text)]
