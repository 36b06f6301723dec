"""Audit rules about words and characters: hidden Unicode, prompt injection, look-alike names.

Prompt injection is matched by principle rather than by quoted phrases: an override verb near an
"instructions/rules" noun in any of the listed languages, fake system/tool tags, concealment from
the user, instructions taken from a fetched page, and orders placed in the `description` (which the
model reads in every session). Fast paths: `hidden_unicode_hits` skips ASCII text; each injection
rule runs only where the words and needles its regex needs occur (`injection_hits(..., fast=False)`
is the reference the property tests compare against).
"""
from __future__ import annotations

import re
import unicodedata
from typing import Callable, Iterator

from .audit_base import Hit, RulePlan, block_words, fold_lower, gate_for, known_words, needle_cache, one_line
from .audit_words import WordGate, block_bits

# --- hidden Unicode ------------------------------------------------------------------------------

_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u2061\u2062\u2063\u2064\u180e\u3164\u115f\u1160\uffa0"
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_BIDI_NAMES = {"\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
               "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI", "\u200e": "LRM",
               "\u200f": "RLM", "\u061c": "ALM"}
_ZW_NAMES = {"\u200b": "ZWSP", "\u200c": "ZWNJ", "\u200d": "ZWJ", "\u2060": "WJ", "\ufeff": "ZWNBSP",
             "\u2061": "FUNCTION APPLICATION", "\u2062": "INVISIBLE TIMES", "\u2063": "INVISIBLE SEPARATOR",
             "\u2064": "INVISIBLE PLUS", "\u180e": "MVS", "\u3164": "HANGUL FILLER", "\u115f": "HANGUL CHOSEONG FILLER",
             "\u1160": "HANGUL JUNGSEONG FILLER", "\uffa0": "HALFWIDTH HANGUL FILLER"}
_HIDDEN_ANY = re.compile(f"[{_ZERO_WIDTH}{_BIDI}\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
_HIDDEN_CHARS = frozenset(_ZERO_WIDTH + _BIDI + "".join(map(chr, [*range(0xE0000, 0xE0080), *range(0xE0100, 0xE01F0)])))
_VS_RUN = re.compile("[\U000e0100-\U000e01ef]{4,}")
# strong right-to-left letters: an RLM/ALM among them is ordinary Arabic/Hebrew typesetting
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def decode_tags(run: str) -> str:
    """Tag characters mirror ASCII at U+E0000 + code: the hidden text a model may read."""
    return "".join(chr(ord(c) - 0xE0000) if 0x20 <= ord(c) - 0xE0000 < 0x7F else "" for c in run)


def reveal_hidden(text: str) -> str:
    """Make tag characters, zero-width characters and bidi controls visible (for the preview). A leading
    byte-order mark stays as it is."""
    if text.isascii():
        return text
    text = _TAGS.sub(lambda m: f"⟦hidden: {decode_tags(m.group(0))}⟧", text)
    if text.startswith("\ufeff"):
        return "\ufeff" + text[1:].translate(_REVEALED)
    return text.translate(_REVEALED)


# each zero-width, bidi or variation-selector character -> its name shown (str.translate: one C pass)
_REVEALED = {**{ord(c): f"⟦U+{ord(c):04X} {name}⟧" for c, name in _ZW_NAMES.items()},
             **{ord(c): f"⟦U+{ord(c):04X} {name}⟧" for c, name in _BIDI_NAMES.items()},
             **{code: f"⟦VS{code - 0xE0100 + 17}⟧" for code in range(0xE0100, 0xE01F0)}}


def _legit_joiner(text: str, index: int) -> bool:
    """ZWJ/ZWNJ between two non-ASCII characters is emoji or script shaping (Persian, Indic), not hiding."""
    if text[index] not in "\u200c\u200d":
        return False
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    return bool(before and after and ord(before) > 0x7F and ord(after) > 0x7F)


def _window(text: str, offset: int, radius: int = 60) -> str:
    return text[max(0, offset - radius):offset + radius]


def hidden_unicode_hits(text: str, *, at_file_start: bool = True, fast: bool = True) -> list[Hit]:
    """Tag-character text (critical), variation-selector runs and bidi controls (high), zero-width (medium).
    Fast path: ASCII text has none of them."""
    if fast and text.isascii():
        return []
    if fast and (words := known_words(text)) is not None and words.chars.isdisjoint(_HIDDEN_CHARS):
        return []  # the block's characters, already at hand, hold none of them
    hits: list[Hit] = []
    for match in _HIDDEN_ANY.finditer(text):
        index, char = match.start(), match.group(0)
        if "\U000e0000" <= char <= "\U000e007f":
            run = _TAGS.match(text, index)
            assert run is not None  # text[index] is a tag character
            if index and "\U000e0000" <= text[index - 1] <= "\U000e007f":
                continue
            hidden = decode_tags(run.group(0))
            hits.append(Hit("hidden-unicode", index, "critical", "critical",
                            f"{len(run.group(0))} invisible Unicode tag characters spell hidden text",
                            f"hidden: {hidden[:200]!r}"))
        elif "\U000e0100" <= char <= "\U000e01ef":
            if (index and "\U000e0100" <= text[index - 1] <= "\U000e01ef") or not _VS_RUN.match(text, index):
                continue
            hits.append(Hit("hidden-unicode", index, "high", "high",
                            "a run of invisible variation selectors can carry hidden data", ""))
        elif char in _BIDI:
            if char in "\u200e\u200f\u061c" and _RTL.search(_window(text, index, 8)):
                continue
            hits.append(Hit("hidden-unicode", index, "high", "high",
                            f"bidi control U+{ord(char):04X} ({_BIDI_NAMES[char]}) can reorder what a reviewer sees",
                            ""))
        else:
            if (index == 0 and at_file_start and char == "\ufeff") or _legit_joiner(text, index):
                continue
            # inside code that runs, an invisible character splits a word to slip past review: high
            hits.append(Hit("hidden-unicode", index, "high", "medium",
                            f"zero-width character U+{ord(char):04X} ({_ZW_NAMES[char]}) inside the text", ""))
    return hits


# --- prompt injection ----------------------------------------------------------------------------

# Override verbs and "instructions" nouns, English first, then other languages. A verb and a noun
# within a short distance on one line is an attempt to replace the model's instructions.
_VERBS = (r"ignore|ignoring|disregard|forget|override|overrule|bypass|discard|abandon|"
          r"ignora|ignorar|ignore[sz]?|ignorer|ignoriere|ignorieren|vergiss|vergessen|olvida|olvide|olvidar|"
          r"oublie[sz]?|oublier|negeer|vergeet|zignoruj|ignoruj|zapomnij|dimentica|esque[cç]a|esque[cç]e|"
          r"игнорируй|игнорировать|забудь|проигнорируй|не\s+обращай|忽略|忽视|无视|忘记|無視|忘れ|무시|잊어|"
          r"تجاهل|انس|अनदेखा|नज़रअंदाज़|bỏ\s+qua|abaikan|görmezden\s+gel|yok\s+say|unuttur|unut")
_NOUNS = (r"instructions?|prompts?|rules|guidelines|directives?|polic(?:y|ies)|constraints|guardrails|"
          r"safety\s+(?:rules|guidelines|policies)|system\s+(?:prompt|message)|"
          r"instrucciones|instrucoes|instruções|reglas|regras|consignes|règles|anweisungen|regeln|vorgaben|"
          r"instructies|regels|instrukcje|zasady|istruzioni|regole|talimatlar|talimatları\w*|kurallar|kuralları\w*|"
          r"инструкци\w*|правила|указани\w*|指令|指示|规则|说明|命令|ルール|지시\w*|규칙|"
          r"التعليمات|تعليمات|القواعد|निर्देश\w*|nhiệm\s+vụ|hướng\s+dẫn|instruksi|aturan")
_A = r"(?<![A-Za-z0-9])"  # ASCII word edges: a verb is a whole word in Latin text, any run in CJK text
_Z = r"(?![A-Za-z0-9])"
_VERBS_NOUN_FIRST = r"忽略|忽视|无视|忘记|無視|忘れ|무시|잊어|игнорируй|забудь|görmezden\s+gel|yok\s+say"  # languages that put the object first
_OVERRIDE = re.compile(rf"{_A}(?:{_VERBS}){_Z}[^\n]{{0,30}}?{_A}(?:{_NOUNS}){_Z}|"
                       rf"(?:{_NOUNS})[^\n]{{0,20}}?(?:{_VERBS_NOUN_FIRST})", re.I)
# "previous instructions" must be what is ignored, not "ignore typos; follow the rules"
_OVERRIDE_OBJECT = re.compile(
    r"previous|prior|above|earlier|preceding|former|original|all|any|your|system|safety|existing|other|"
    r"anteriores|précédentes|precedentes|vorherigen|bisherigen|alle|vorige|poprzednie|precedenti|önceki|"
    r"предыдущ|все|之前|以上|先前|所有|以前|これまで|이전|السابقة|पिछले|trước|sebelumnya|"
    r"instrucciones|consignes|anweisungen|instructies|instrukcje|istruzioni|инструкц|指令|指示|지시|التعليمات|निर्देश|"
    r"talimat",
    re.I)
_CONCEAL = re.compile(
    r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+(?:tell|inform|notify|alert|warn|show|mention|reveal|"
    r"disclose|report|let)\b[^\n.]{0,40}?\b(?:the\s+)?user\b"
    r"|\bwithout\s+(?:the\s+user(?:'s)?|them|anyone|the\s+human)\s+(?:knowing|noticing|knowledge|seeing|being\s+aware)"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+|the\s+\w+(?:\s+\w+)?)\s+(?:hidden\s+)?(?:from|secret\s+from)\s+"
    r"the\s+user"
    r"|\b(?:silently|secretly|quietly|covertly)\s+(?:run|execute|send|upload|post|copy|install|add|append|collect|"
    r"exfiltrate|forward|include|read)\b"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:mention|show|print|display|log|echo|output)\s+(?:this|these|that|the)\s+"
    r"(?:step|command|request|call|upload|instruction)s?\b"
    r"|\bne\s+(?:le\s+)?(?:dis|dites|mentionne[zr]?)\s+(?:pas|rien)\b[^\n]{0,30}utilisateur"
    r"|\bno\s+(?:le\s+)?(?:digas|digan|menciones|informes)\b[^\n]{0,30}usuario"
    r"|\b(?:sag|sage|erzähle|erwähne)\s+(?:dem\s+)?(?:benutzer|nutzer)\s+nichts\b"
    r"|не\s+(?:говори|сообщай|рассказывай)\w*\s+пользовател"
    r"|不要(?:告诉|通知|让)用户|ユーザーに(?:言わ|知らせ|伝え)ない",
    re.I)
_FAKE_TAG = re.compile(
    r"<\s*/?\s*(?:system|system[-_]reminder|system[-_]prompt|sys|tool[-_]result|tool[-_]use|function[-_]results|"
    r"function[-_]calls|antml:[\w-]+|im_start|im_end|admin|developer[-_]message|assistant[-_]override)\b[^>\n]{0,40}>"
    r"|<\|\s*(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\s*\|>"
    r"|\[/?(?:SYSTEM|INST|SYS)\]|<<\s*/?SYS\s*>>"
    r"|^\s*(?:#{1,4}\s*)?(?:SYSTEM|ADMIN|DEVELOPER)\s+(?:OVERRIDE|PROMPT|MESSAGE|NOTICE|INSTRUCTIONS?)\s*:?"
    r"|\b(?:BEGIN|END)\s+(?:SYSTEM|ADMIN)\s+(?:PROMPT|INSTRUCTIONS?|OVERRIDE)\b",
    re.M)
_ROLE = re.compile(
    r"\byou\s+are\s+(?:now\s+)?(?:in\s+)?(?:developer|DAN|jailbreak|god|unrestricted|admin|root)\s+mode\b"
    r"|\b(?:from now on|henceforth),?\s+you\s+(?:are|will|must)\b"
    r"|\bnew\s+(?:system\s+)?instructions?\s*:"
    r"|\b(?:act|pretend) as\s+(?:if\s+you\s+(?:have|had)\s+no|an?\s+(?:unrestricted|unfiltered))",
    re.I)
_FETCHED = re.compile(
    r"\b(?:follow|obey|execute|run|carry\s+out|do)\s+(?:whatever|the|any|all|each)?\s*(?:instructions?|commands?|"
    r"directives?|steps|it\s+says|they\s+say)\b[^\n]{0,40}?\b(?:from|in|at|returned\s+by|served\s+by)\s+"
    r"(?:the\s+)?(?:url|response|remote|server|page|endpoint|gist|pastebin|https?://)"
    r"|\b(?:fetch|download|retrieve|curl|wget|load|read)\b[^\n]{0,120}?\band\s+(?:then\s+)?(?:follow|obey|execute|"
    r"do\s+what|carry\s+out)\s+(?:the\s+|its\s+|any\s+|whatever\s+)?(?:instructions?|commands?|it\s+says|steps)",
    re.I)
_AUTONOMY = re.compile(
    r"\b(?:without|never|do\s+not|don'?t)\s+(?:ask|asking|request|requesting|wait\w*\s+for)\s+(?:the\s+user\s+)?"
    r"(?:for\s+)?(?:permission|confirmation|approval|consent)"
    r"|\b(?:auto-?approve|skip)\s+(?:all\s+)?(?:permission|confirmation|approval)\s*(?:prompts?|checks?|dialogs?)?",
    re.I)
_DISCOVERY = re.compile(
    r"\b(?:always|must)\s+(?:use|invoke|call|load|run|trigger)\s+(?:this|me)\b"
    r"|\b(?:for|on)\s+(?:every|all|any)\s+(?:task|request|prompt|message|conversation|question)s?\b"
    r"|\b(?:before|instead\s+of)\s+(?:any|every|all)\s+other\s+(?:skills?|tools?)"
    r"|\bhighest\s+priority\b",
    re.I)

# Each rule sees one line at a time (the fast path searches lines), so `\s` never crosses a newline.
_OVERRIDE, _CONCEAL, _FAKE_TAG, _ROLE, _FETCHED, _AUTONOMY = map(one_line, (_OVERRIDE, _CONCEAL, _FAKE_TAG, _ROLE,
                                                                       _FETCHED, _AUTONOMY))

_RULES = {key: RulePlan(regex) for key, regex in (("override", _OVERRIDE), ("fake_tag", _FAKE_TAG), ("conceal", _CONCEAL),
                                                  ("fetched", _FETCHED), ("role", _ROLE), ("autonomy", _AUTONOMY))}
_WORD_GATES = {key: rule.gate for key, rule in _RULES.items()}
_DISCOVERY_GATE = WordGate(_DISCOVERY)


def _finder(text: str, fast: bool, tokens: frozenset[bytes] | None = None
            ) -> Callable[[re.Pattern[str], str], Iterator[re.Match[str]]]:
    """Fast path: each rule's regex runs only where the words and needles of its alternatives (derived from
    the regex, see audit_base.RulePlan) occur; `injection_hits(..., fast=False)` runs them on the whole text
    and is the reference for the property tests."""
    low = fold_lower(text) if fast else None  # None: lower() changed lengths (İ → i̇), scan whole
    cache = needle_cache(text, low) if low is not None else None
    gate = gate_for(text, tokens, low) if low is not None else None
    words = block_words(text, tokens, low)

    bits = block_bits(words) if words is not None else -1  # -1: every bit, nothing ruled out

    def finditer(regex: re.Pattern[str], key: str) -> Iterator[re.Match[str]]:
        rule = _RULES[key]
        if not bits & rule.quick and rule.quick != -1:
            return iter(())  # every alternative needs a word or character the block lacks
        chosen = rule.choose(bits)
        if not chosen:
            return iter(())  # every alternative needs a word or character the block lacks
        return rule.finditer(text, low, words, cache, gate, chosen)
    return finditer


def injection_hits(text: str, *, tokens: frozenset[bytes] | None = None, fast: bool = True) -> list[Hit]:
    """Prompt-injection hits in text the model reads. `tokens`: block_tokens of the text's bytes (computed
    when None)."""
    find = _finder(text, fast, tokens)
    hits: list[Hit] = []
    for match in find(_OVERRIDE, "override"):
        if _OVERRIDE_OBJECT.search(text, match.start(), min(len(text), match.end() + 25)):
            hits.append(Hit("prompt-injection", match.start(), "high", "high",
                            f"tries to override the model's instructions: “{match.group(0)[:80]}”", ""))
    for match in find(_FAKE_TAG, "fake_tag"):
        hits.append(Hit("prompt-injection", match.start(), "high", "high",
                        f"fake system/tool marker {match.group(0).strip()[:40]!r} impersonates the harness", ""))
    for match in find(_CONCEAL, "conceal"):
        hits.append(Hit("prompt-injection", match.start(), "high", "high",
                        f"hides actions from the user: “{match.group(0)[:80]}”", ""))
    for match in find(_FETCHED, "fetched"):
        hits.append(Hit("prompt-injection", match.start(), "high", "high",
                        "tells the model to obey instructions fetched from elsewhere", ""))
    for match in find(_ROLE, "role"):
        hits.append(Hit("prompt-injection", match.start(), "medium", "medium",
                        f"tries to change the model's role: “{match.group(0)[:60]}”", ""))
    for match in find(_AUTONOMY, "autonomy"):
        hits.append(Hit("prompt-injection", match.start(), "medium", "medium",
                        f"removes the user's confirmation: “{match.group(0)[:60]}”", ""))
    return sorted(set(hits), key=lambda h: (h.offset, h.message))


def description_hits(description: str, *, fast: bool = True) -> list[Hit]:
    """The description is in the model's context in every session: orders there act before any invocation."""
    hits = [Hit(h.rule, h.offset, h.executed, "critical" if h.instructed == "high" else "high",
                h.message + " (in the description, read in every session)", h.evidence)
            for h in injection_hits(description, fast=fast)]
    words = block_words(description, None, fold_lower(description)) if fast else None
    for match in (_DISCOVERY.finditer(description) if _DISCOVERY_GATE.possible(words) else ()):
        hits.append(Hit("prompt-injection", match.start(), "medium", "medium",
                        f"the description claims every task: “{match.group(0)}”", ""))
    return hits


# --- look-alike names -----------------------------------------------------------------------------

# Names people trust: Anthropic's published skills and widely shared ones. A name that renders like
# one of these but is spelled differently is impersonation.
WELL_KNOWN_SKILLS = frozenset((
    "pdf docx xlsx pptx skill-creator mcp-builder canvas-design frontend-design webapp-testing brand-guidelines "
    "algorithmic-art slack-gif-creator theme-factory internal-comms web-artifacts-builder doc-coauthoring "
    "artifacts-builder template-skill brainstorming systematic-debugging test-driven-development writing-plans "
    "executing-plans requesting-code-review receiving-code-review using-git-worktrees subagent-driven-development "
    "verification-before-completion finishing-a-development-branch dispatching-parallel-agents writing-skills "
    "using-superpowers code-review security-review commit review init simplify").split())
# Latin look-alikes from other scripts and ASCII swaps (digit for letter)
_CONFUSABLE = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "һ": "h", "к": "k", "м": "m", "т": "t", "в": "b", "н": "h", "ӏ": "l", "ɡ": "g",
    "α": "a", "ο": "o", "ρ": "p", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c",
    "ı": "i", "ǀ": "l", "ℓ": "l", "０": "0", "‐": "-", "‑": "-", "–": "-", "—": "-", "−": "-", "＿": "_",
    "0": "o", "1": "l", "3": "e", "5": "s", "|": "l",
})


# the ASCII part of _CONFUSABLE on bytes, with ASCII capitals lowered: an ASCII name's skeleton in one C pass
_ASCII_CONFUSABLE = bytes((ord(_CONFUSABLE[code]) if code in _CONFUSABLE else code) if not 65 <= code <= 90
                          else ord(chr(code).lower()) for code in range(128)) + bytes(range(128, 256))


def skeleton(name: str) -> str:
    """What a name looks like: NFKC, confusables folded to Latin, 'rn' read as 'm', lowercase."""
    if name.isascii():  # NFKC leaves ASCII as it is, and lower() only lowers its capitals
        folded = name.encode().translate(_ASCII_CONFUSABLE).decode()
    else:
        folded = unicodedata.normalize("NFKC", name).lower().translate(_CONFUSABLE)
    return folded.replace("rn", "m").replace("vv", "w")


_KNOWN_SHAPES = tuple((known, skeleton(known)) for known in sorted(WELL_KNOWN_SKILLS))
# the same by the skeleton's length: only a shape of the same length can be one typo away or equal
_KNOWN_BY_LENGTH: dict[int, tuple[tuple[str, str], ...]] = {
    length: tuple(pair for pair in _KNOWN_SHAPES if len(pair[1]) == length) for length in {len(s) for _, s in _KNOWN_SHAPES}}


def _scripts(name: str) -> set[str]:
    found = set()
    for char in name:
        if char.isalpha():
            found.add(unicodedata.name(char, "UNKNOWN").split()[0])
    return found


def one_typo_from(shape: str, *, prefilter: bool = True) -> str | None:
    """The well-known name (6 letters or more) that `shape` misspells by one substituted letter or two swapped
    neighbours: the same length and outline, so it reads as the original at a glance (a typo-squat). Added
    or removed letters are left alone: they make other words (plurals, suffixes). `prefilter=False` leaves out
    the byte XOR that skips most names at once (the reference for its property test)."""
    if len(shape) < 6:
        return None
    as_int = int.from_bytes(shape.encode()) if prefilter and shape.isascii() else None
    for known, known_shape in _KNOWN_BY_LENGTH.get(len(shape), ()):
        if known_shape == shape or len(known_shape) < 6:
            continue
        if as_int is not None and known_shape.isascii():
            # the bytes that differ, as set bits of the XOR: more than two bytes apart, neither a typo nor a swap
            differ = as_int ^ int.from_bytes(known_shape.encode())
            if (differ.bit_length() - 1) // 8 - ((differ & -differ).bit_length() - 1) // 8 > 1:
                continue
        diff = [i for i, (a, b) in enumerate(zip(shape, known_shape)) if a != b]
        if len(diff) == 1 and shape[diff[0]].isalpha() and known_shape[diff[0]].isalpha():
            return known
        if len(diff) == 2 and diff[1] == diff[0] + 1 and shape[diff[0]] == known_shape[diff[1]] and \
                shape[diff[1]] == known_shape[diff[0]]:
            return known
    return None


def lookalike_hits(name: str) -> list[Hit]:
    """A name whose skeleton equals a well-known skill's but whose spelling differs (high), or a name mixing
    Latin with another script's letters (medium)."""
    if not name:
        return []
    shape = skeleton(name)
    for known, known_shape in _KNOWN_BY_LENGTH.get(len(shape), ()):
        if name != known and shape == known_shape and name.lower() != known:
            return [Hit("lookalike-name", 0, "high", "high",
                        f"the name {name!r} looks like the well-known skill {known!r} but is spelled with other "
                        "characters", name.encode("unicode_escape").decode("ascii"))]
    typo = one_typo_from(shape)
    if typo is not None:
        return [Hit("lookalike-name", 0, "medium", "medium",
                    f"the name {name!r} is one typo away from the well-known skill {typo!r}", name)]
    scripts = _scripts(name) if not name.isascii() else set()  # ASCII: one script
    if "LATIN" in scripts and len(scripts) > 1:
        return [Hit("lookalike-name", 0, "medium", "medium",
                    f"the name {name!r} mixes Latin letters with {', '.join(sorted(scripts - {'LATIN'}))} letters",
                    name.encode("unicode_escape").decode("ascii"))]
    return []
