"""Compare skillmanager.core.js.textwidth with the code Claude Code 2.1.88 ships, run in Node.

    .venv/bin/python tests/textwidth_compare.py                 # compare corpus + Unicode sample
    .venv/bin/python tests/textwidth_compare.py --write-golden  # also regenerate the golden file

The reference is tests/textwidth_compare.mjs (Claude Code's stringWidth/truncate rebuilt from cli.js.map).
The golden file tests/data/string_width_golden.json holds node's answers for a few hundred diverse cases, so
tests/test_textwidth.py checks them without node.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from skillmanager.core.js.textwidth import cut_to_width, display_width, js_json_stringify, safe_for_output  # noqa: E402
from locations import CORPUS as SHARED_CORPUS, LEGACY_CLI_MAP  # noqa: E402  (tests/ is on sys.path)

COMPARE_MJS = REPO / "tests" / "textwidth_compare.mjs"
GOLDEN = REPO / "tests" / "data" / "string_width_golden.json"
CLI_MAP = Path(os.environ.get("CC_LEGACY_CLI_MAP", LEGACY_CLI_MAP))
CORPUS = Path(os.environ.get("SKILL_CORPUS", SHARED_CORPUS))
# Absolute widths, plus negatives meaning width(s) - k: cuts right at the boundary, where wide chars matter.
CUT_WIDTHS = [0, 1, 2, 3, 5, 20, 34, -1, -2]


def node_available() -> bool:
    return shutil.which("node") is not None and CLI_MAP.is_file()


def _frontmatter(text: str) -> dict:
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    try:
        data = yaml.safe_load(text[3:end])
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def corpus_strings(corpus: Path = CORPUS) -> list[str]:
    """Every line and every listing description (description [- when_to_use]) of every SKILL.md."""
    seen: dict[str, None] = {}
    for path in sorted(corpus.rglob("SKILL.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            seen.setdefault(line)
        meta = _frontmatter(text)
        desc, when = meta.get("description"), meta.get("when_to_use")
        if isinstance(desc, str):
            seen.setdefault(desc.strip())
            if isinstance(when, str):
                seen.setdefault(f"{desc.strip()} - {when}")
    return list(seen)


def unicode_sample() -> list[str]:
    """Hand-picked hard cases: each family the width rules treat specially."""
    zwj = "\u200d"
    s = [
        "", "a", "hello world", "tab\there", "nul\x00x", "bell\x07", "del\x7fx", "c1\x85\x9fx",
        "日本語", "中文字符测试", "한국어", "ｆｕｌｌｗｉｄｔｈ", "ﾊﾝｶｸ", "〜ー・", "漢a字b",
        "⚠", "⚠\ufe0f", "⚠️ warning", "☀", "☀️", "♥", "♥\ufe0f", "✔", "✔️", "❤", "❤️", "★☆",
        "©", "©\ufe0f", "®", "™", "↔", "↔\ufe0f", "⌚", "⏰", "1\ufe0f", "1\ufe0f\u20e3", "#\ufe0f\u20e3", "*\u20e3",
        "😀", "😀😀", "👍🏽", "👍\U0001F3FB", "🏻", "👨" + zwj + "👩" + zwj + "👧" + zwj + "👦",
        "👩" + zwj + "💻", "🏳\ufe0f" + zwj + "🌈", "🏴" + zwj + "☠\ufe0f", "🧑🏿" + zwj + "🤝" + zwj + "🧑🏻",
        "🇯🇵", "🇺🇸🇬🇧", "🇯", "🇯🇵🇺", "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
        "🏴", "\U000E0041\U000E0042", "a\U000E0001b",
        "e\u0301", "a\u0308\u0304", "\u0301", "n\u0303o", "x\u20dd", "\ufe20a", "ǅ", "ß", "ﬁ",
        "\u200b", "a\u200bb", "a\u200cb", "a\u200db", "\u200e\u200f", "\u2060\u2064", "\ufeffbom", "soft\u00adhyphen",
        "a\ufe0fb", "a\ufe0e", "\U000E0100", "漢\U000E0100", "\u180e", "\u115f", "\u1160\u11a8", "\u3164",
        "क्ष", "नमस्ते", "हिन्दी", "ক্ষ", "தமிழ்", "ไทย", "ภาษาไทย", "ກີ", "العربية", "\u0600\u0601x", "مرحبا\u06dd",
        "עברית", "ελληνικά", "русский", "Ω≈ç√∫", "ü", "…", "–—", "\u00a0", "\u3000", "\u2028\u2029",
        "\x1b[31mred\x1b[0m", "\x1b[1;32mbold green\x1b[m", "\x1b]8;;https://example.com\x07link\x1b]8;;\x07",
        "\x1b]0;title\x1b\\after", "\x1b[38;5;196m日本\x1b[0m", "\x9b31mc1csi", "\x1b", "\x1bx", "\x1b[",
        "\x1b[31m😀\x1b[0m", "\x1b[2K\x1b[1A", "plain \x1b[4munder\x1b[24m line",
        "a\ud83d", "\ud83d", "\ude00", "\ude00\ud83d", "x\udbffy",
        "\U0001F9D1\u200d\U0001F9B0", "🫠", "🪿", "🫨", "🩷", "\U0001FAE9", "\U0001FAC8", "🫸🏼",
        "\U00020000", "\U0002A6D6", "\U00030000", "\U0001F200", "\U0001F004", "🀄", "🃏",
        "\u2e80", "\u31ef", "\u3250", "\ua960", "\uac00\ud7a3", "\uf900", "\ufe10", "\ufe30", "\uff01", "\uffe6",
        "\u1100\u1161\u11a8", "각", "\U00016FE4", "\U0001B000", "\U0001F300", "\U0001F5FA", "\U0001F6D8",
        "\u2614", "\u2615", "\u26aa", "\u26bd", "\u2705", "\u270a", "\u2728", "\u274c", "\u2795", "\u27b0", "\u27bf",
        "\u2639", "\u263a", "\u263a\ufe0f", "\u2702", "\u2708", "\u27a1", "\u27a1\ufe0f",
        "\U0001F1E6\U0001F1E6", "\U0001F1E6x", "a\U0001F1E6", "🇦🇩🇦", "\u00e9\u0301\u0302",
        "👁️‍🗨️", "🧔‍♂️", "🏃🏽‍♀️‍➡️", "🙂‍↔️", "🐦‍🔥", "❤️‍🔥", "🫱🏼‍🫲🏿", "👯‍♀️",
        "- pdf: Extract text from PDFs and fill forms", "- 日本語スキル: 説明文です", "- emoji-skill: 🚀 Launch things fast",
        "Use when…", "Wide at end: 漢字漢字漢字漢字漢字漢字", "narrow then wide: abcdefghij漢字",
        "\u0915\u094d\u200d\u0937", "\u0915\u094d\u200c\u0937", "\u0d15\u0d4d\u0d15", "\u0e01\u0e33", "\u0e01\u0e31",
        "a" * 300, "漢" * 130, "😀" * 60, ("ab漢" * 40), ("👨‍👩‍👧 " * 20),
    ]
    # Single characters from each interesting block, to pin the tables.
    for cp in (
        0x0300, 0x036F, 0x0483, 0x0591, 0x0610, 0x064B, 0x0670, 0x0900, 0x0903, 0x093A, 0x094D, 0x0951,
        0x0962, 0x0981, 0x0A01, 0x0B01, 0x0C00, 0x0D00, 0x0D4E, 0x0E31, 0x0E47, 0x0EB1, 0x0F71, 0x1AB0,
        0x1DC0, 0x2010, 0x2016, 0x2030, 0x203C, 0x2049, 0x20AC, 0x2103, 0x2122, 0x2139, 0x2190, 0x21A9,
        0x2229, 0x231A, 0x2329, 0x232A, 0x23E9, 0x23F3, 0x24C2, 0x25A0, 0x25AA, 0x25B6, 0x25FD, 0x2600,
        0x2648, 0x267F, 0x2693, 0x26A1, 0x26CE, 0x26D4, 0x26EA, 0x26F2, 0x26FD, 0x2753, 0x2757, 0x2B1B,
        0x2B50, 0x2B55, 0x2E3A, 0x3000, 0x3030, 0x303D, 0x3099, 0x3297, 0x3299, 0x4DC0, 0xA4D0, 0xD7B0,
        0xE000, 0xF8FF, 0xFE0F, 0xFFFD, 0x1F004, 0x1F0CF, 0x1F18E, 0x1F191, 0x1F201, 0x1F21A, 0x1F32D,
        0x1F336, 0x1F37D, 0x1F3F3, 0x1F3F4, 0x1F400, 0x1F43F, 0x1F441, 0x1F4FD, 0x1F549, 0x1F57A, 0x1F590,
        0x1F595, 0x1F5A4, 0x1F6CC, 0x1F6D0, 0x1F6EB, 0x1F6F4, 0x1F7E0, 0x1F90C, 0x1F93B, 0x1F946, 0x1F9FF,
        0x1FA70, 0x1FAF8, 0x1FB00, 0x1FBF0, 0x1F100, 0x1F10B, 0x1F12F,
    ):
        s.append(chr(cp))
        s.append("x" + chr(cp) + "\ufe0f")
    return list(dict.fromkeys(s))


def run_node(strings: list[str], cut_widths: list[int] = CUT_WIDTHS) -> dict:
    # ensure_ascii keeps lone surrogates as \udXXX escapes, which JSON.parse turns back into them.
    payload = json.dumps({"strings": strings, "cut_widths": cut_widths}, ensure_ascii=True)
    proc = subprocess.run(
        ["node", str(COMPARE_MJS), str(CLI_MAP)],
        input=payload.encode("ascii"),
        capture_output=True,
        check=True,
        timeout=600,
    )
    return json.loads(proc.stdout.decode("utf-8", "surrogatepass"))


def differences(strings: list[str], node: dict, cut_widths: list[int] = CUT_WIDTHS) -> list[dict]:
    diffs = []
    for s, ref in zip(strings, node["results"]):
        got_w = display_width(s)
        if got_w != ref["w"]:
            diffs.append({"s": s, "what": "width", "node": ref["w"], "python": got_w})
        for n, ref_cut in zip(cut_widths, ref["cuts"]):
            width = ref["w"] + n if n < 0 else n
            got = cut_to_width(s, width)
            if got != ref_cut:
                diffs.append({"s": s, "what": f"cut {width}", "node": ref_cut, "python": got})
        if js_json_stringify(s) != ref["json"]:
            diffs.append({"s": s, "what": "json", "node": ref["json"], "python": js_json_stringify(s)})
        if safe_for_output(s) != ref["utf8"]:
            diffs.append({"s": s, "what": "utf8", "node": ref["utf8"], "python": safe_for_output(s)})
    return diffs


def golden_selection(corpus: list[str]) -> list[str]:
    """The whole Unicode sample plus corpus lines picked for variety (non-ASCII first, then ASCII)."""
    picked = unicode_sample()
    non_ascii = [s for s in corpus if not s.isascii() and len(s) < 400]
    step = max(1, len(non_ascii) // 120)
    picked += non_ascii[::step][:120]
    ascii_lines = [s for s in corpus if s.isascii() and 0 < len(s) < 200]
    picked += ascii_lines[:: max(1, len(ascii_lines) // 30)][:30]
    return list(dict.fromkeys(picked))


def write_golden(strings: list[str], node: dict) -> None:
    cases = []
    for s, ref in zip(strings, node["results"]):
        cuts = {}
        for n, cut in zip(CUT_WIDTHS, ref["cuts"]):
            width = ref["w"] + n if n < 0 else n
            cuts[str(width)] = cut
        cases.append({"s": s, "width": ref["w"], "cuts": cuts, "json": ref["json"], "utf8": ref["utf8"]})
    doc = {
        "produced_by": (
            "tests/textwidth_compare.py --write-golden: node runs tests/textwidth_compare.mjs, which rebuilds "
            "Claude Code 2.1.88's own stringWidth (src/ink/stringWidth.ts, Node path = stringWidthJavaScript) "
            "and truncate (src/utils/truncate.ts) from the sourcesContent of the npm package's cli.js.map"
        ),
        "node": node["node"],
        "icu": node["icu"],
        "unicode": node["unicode"],
        "fields": {
            "width": "stringWidth(s)",
            "cuts": "{maxWidth: truncate(s, maxWidth)} - the cut used for maxDescLen in the skill listing",
            "json": "JSON.stringify(s)",
            "utf8": "Buffer.from(s, 'utf8').toString() - what Node writes for lone surrogates",
        },
        "cases": cases,
    }
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(doc, ensure_ascii=True, indent=1) + "\n", encoding="ascii")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write-golden", action="store_true")
    parser.add_argument("--show", type=int, default=20, help="differences to print")
    args = parser.parse_args()
    if not node_available():
        print(f"node or {CLI_MAP} missing", file=sys.stderr)
        return 2
    corpus = corpus_strings()
    sample = unicode_sample()
    strings = list(dict.fromkeys(corpus + sample))
    node = run_node(strings)
    diffs = differences(strings, node)
    sw7_diffs = sum(1 for s, r in zip(strings, node["results"]) if r["sw7"] != r["w"])
    print(f"node {node['node']} ICU {node['icu']} Unicode {node['unicode']}")
    print(f"corpus strings: {len(corpus)}, sample strings: {len(sample)}, compared: {len(strings)}")
    print(f"checks per string: width, {len(CUT_WIDTHS)} cuts, JSON.stringify, UTF-8 output")
    print(f"differences: {len(diffs)}")
    print(f"(for information) npm string-width 7 differs from Claude Code's stringWidth on {sw7_diffs} strings")
    for d in diffs[: args.show]:
        print(json.dumps(d, ensure_ascii=True))
    if args.write_golden:
        chosen = golden_selection(corpus)
        write_golden(chosen, run_node(chosen))
        print(f"wrote {len(chosen)} cases to {GOLDEN}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
