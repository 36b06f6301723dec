"""Text-level JSON edits: only the intended key changes, everything else is byte-identical.

What Claude Code accepts is taken from cli.js 2.1.88: a settings file whose trim() is ""
is {}, otherwise a leading BOM is stripped and the text goes to plain JSON.parse (no
comments, no trailing commas); Claude Code itself writes JSON.stringify(obj, null, 2)+"\\n".
The acceptance test below asks node's real JSON.parse for the verdicts.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillmanager.core.edit.json_text_edit import (
    JsonEditError,
    array_add,
    array_remove,
    delete_key,
    get,
    parse_document,
    set_key,
)

REAL_SETTINGS_2 = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "env": {
    "GREETING": "caf\\u00e9",
    "NAME": "Zoë 🚀"
  },
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Bash(curl:*)"
    ],
    "defaultMode": "acceptEdits"
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [{"type": "command", "command": "prettier --write \\"$FILE\\""}]
      }
    ]
  },
  "unknownFutureKey": [1, 2.50, -0, 1e3, true, null]
}
"""


def _parse(text: str):
    return json.loads(text.lstrip("\ufeff")) if text.strip() else {}


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _changed_region(old: str, new: str) -> tuple[int, int]:
    """[start, end) in `old` outside of which old and new are identical."""
    p = _common_prefix(old, new)
    s = _common_prefix(old[p:][::-1], new[p:][::-1])
    return p, len(old) - s


# --------------------------------------------------------------------------- round trips


def test_set_skill_override_in_real_settings_changes_nothing_else() -> None:
    new = set_key(REAL_SETTINGS_2, ["skillOverrides", "pdf"], "off")
    expected = _parse(REAL_SETTINGS_2)
    expected["skillOverrides"] = {"pdf": "off"}
    assert json.loads(new) == expected
    assert new.startswith(REAL_SETTINGS_2[: REAL_SETTINGS_2.rindex("]") + 1])
    assert new.endswith(
        ',\n  "skillOverrides": {\n    "pdf": "off"\n  }\n}\n'
    )
    assert "caf\\u00e9" in new and "Zoë 🚀" in new  # escapes and unicode as written


def test_existing_skill_override_value_is_replaced_in_place() -> None:
    text = '{\n    "skillOverrides": {\n        "pdf": "off",\n        "xlsx": "name-only"\n    }\n}'
    new = set_key(text, ["skillOverrides", "pdf"], "name-only")
    assert new == text.replace('"pdf": "off"', '"pdf": "name-only"')


def test_deny_rule_added_to_existing_array_keeps_layout() -> None:
    new = array_add(REAL_SETTINGS_2, ["permissions", "deny"], "Skill(pdf)")
    assert new == REAL_SETTINGS_2.replace(
        '"Bash(curl:*)"\n    ]', '"Bash(curl:*)",\n      "Skill(pdf)"\n    ]'
    )


def test_deny_rule_removed_cleanly() -> None:
    text = REAL_SETTINGS_2.replace('"Bash(curl:*)"', '"Bash(curl:*)",\n      "Skill(pdf)"')
    assert array_remove(text, ["permissions", "deny"], "Skill(pdf)") == REAL_SETTINGS_2
    first = array_remove(text, ["permissions", "deny"], "Bash(curl:*)")
    assert first == REAL_SETTINGS_2.replace('"Bash(curl:*)"', '"Skill(pdf)"')


def test_deny_array_absent_is_created_like_json_stringify() -> None:
    text = '{\n  "permissions": {\n    "allow": []\n  }\n}\n'
    assert array_add(text, ["permissions", "deny"], "Skill(pdf)") == (
        '{\n  "permissions": {\n    "allow": [],\n    "deny": [\n      "Skill(pdf)"\n    ]\n  }\n}\n'
    )


def test_permissions_absent_entirely() -> None:
    text = '{\n  "model": "opus"\n}'
    assert array_add(text, ["permissions", "deny"], "Skill(x)") == (
        '{\n  "model": "opus",\n  "permissions": {\n    "deny": [\n      "Skill(x)"\n    ]\n  }\n}'
    )


def test_empty_deny_array_is_filled_and_emptied() -> None:
    text = '{\n  "permissions": {\n    "deny": []\n  }\n}\n'
    added = array_add(text, ["permissions", "deny"], "Skill(x)")
    assert added == '{\n  "permissions": {\n    "deny": [\n      "Skill(x)"\n    ]\n  }\n}\n'
    assert array_remove(added, ["permissions", "deny"], "Skill(x)") == text


def test_array_add_is_idempotent_and_remove_of_absent_is_noop() -> None:
    text = '{"permissions": {"deny": ["Skill(x)"]}}'
    assert array_add(text, ["permissions", "deny"], "Skill(x)") is text
    assert array_remove(text, ["permissions", "deny"], "Skill(y)") is text
    assert array_remove(text, ["permissions", "allow"], "Skill(y)") is text
    assert array_remove('{}', ["permissions", "deny"], "Skill(y)") == "{}"


def test_single_line_array_gets_the_documents_comma_spacing() -> None:
    text = '{\n  "permissions": {"deny": ["Bash(rm:*)"], "allow": ["A", "B"]}\n}'
    assert array_add(text, ["permissions", "deny"], "Skill(x)") == text.replace(
        '["Bash(rm:*)"]', '["Bash(rm:*)", "Skill(x)"]'
    )


@pytest.mark.parametrize(
    "indent,unit",
    [(2, "  "), (4, "    "), ("\t", "\t")],
)
def test_new_nested_object_uses_the_documents_indent(indent, unit) -> None:
    doc = {"model": "opus", "env": {"A": "1"}}
    text = json.dumps(doc, indent=indent) + "\n"
    new = set_key(text, ["skillOverrides", "pdf"], "off")
    assert new == json.dumps({**doc, "skillOverrides": {"pdf": "off"}}, indent=indent) + "\n"
    assert f'\n{unit}"skillOverrides": {{\n{unit}{unit}"pdf": "off"\n{unit}}}\n' in new


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_compact_one_line_document_stays_compact(separators) -> None:
    doc = {"a": 1, "permissions": {"allow": ["x"]}}
    text = json.dumps(doc, separators=separators)
    new = set_key(text, ["skillOverrides", "pdf"], "off")
    assert new == json.dumps({**doc, "skillOverrides": {"pdf": "off"}}, separators=separators)
    new = array_add(text, ["permissions", "deny"], "Skill(x)")
    doc2 = copy.deepcopy(doc)
    doc2["permissions"]["deny"] = ["Skill(x)"]
    assert new == json.dumps(doc2, separators=separators)


def test_crlf_and_no_trailing_newline_are_kept() -> None:
    text = '{\r\n  "a": 1\r\n}'
    new = set_key(text, ["skillOverrides", "x"], "off")
    assert new == '{\r\n  "a": 1,\r\n  "skillOverrides": {\r\n    "x": "off"\r\n  }\r\n}'
    assert delete_key(new, ["skillOverrides"]) == text


def test_bom_is_kept() -> None:
    text = '\ufeff{\n  "a": 1\n}\n'
    assert set_key(text, ["b"], 2) == '\ufeff{\n  "a": 1,\n  "b": 2\n}\n'


def test_empty_object_documents() -> None:
    assert set_key("{}", ["skillOverrides", "x"], "off") == '{\n  "skillOverrides": {\n    "x": "off"\n  }\n}'
    assert set_key("{}\n", ["a"], True) == '{\n  "a": true\n}\n'
    assert delete_key("{}\n", ["a"]) == "{}\n"
    assert get("{}", ["a"], "dflt") == "dflt"


@pytest.mark.parametrize("blank", ["", "\n", "  \r\n\t", "\ufeff", "\u00a0\n"])
def test_blank_file_is_treated_as_empty_object_like_claude_code(blank) -> None:
    # cli.js: if(_.trim()==="")return{settings:{},errors:[]}
    assert get(blank, ["a"]) is None
    assert delete_key(blank, ["a"]) == blank
    assert array_remove(blank, ["p", "deny"], "x") == blank
    new = set_key(blank, ["skillOverrides", "x"], "off")
    assert json.loads(new.lstrip("\ufeff")) == {"skillOverrides": {"x": "off"}}
    assert new.endswith("}\r\n" if "\r\n" in blank else "}\n")


def test_unicode_escape_style_is_followed_for_new_values() -> None:
    escaped = '{"name": "caf\\u00e9"}'
    assert set_key(escaped, ["b"], "é") == '{"name": "caf\\u00e9", "b": "\\u00e9"}'
    literal = '{"name": "café"}'
    assert set_key(literal, ["b"], "é") == '{"name": "café", "b": "é"}'
    assert set_key('{"a": 1}', ["b"], "é") == '{"a": 1, "b": "é"}'  # like JSON.stringify


def test_duplicate_keys_edit_the_last_one_which_json_parse_honours() -> None:
    text = '{"skillOverrides": {"a": "on"}, "x": 1, "skillOverrides": {"b": "off"}}'
    new = set_key(text, ["skillOverrides", "c"], "off")
    assert new == '{"skillOverrides": {"a": "on"}, "x": 1, "skillOverrides": {"b": "off", "c": "off"}}'
    assert get(text, ["skillOverrides"]) == {"b": "off"}
    # Deleting must remove every copy, or the earlier one would come back to life.
    assert delete_key(text, ["skillOverrides"]) == '{"x": 1}'


def test_delete_key_first_middle_last_only() -> None:
    text = '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    assert delete_key(text, ["a"]) == '{\n  "b": 2,\n  "c": 3\n}\n'
    assert delete_key(text, ["b"]) == '{\n  "a": 1,\n  "c": 3\n}\n'
    assert delete_key(text, ["c"]) == '{\n  "a": 1,\n  "b": 2\n}\n'
    assert delete_key('{\n  "a": 1\n}\n', ["a"]) == "{}\n"
    assert delete_key(text, ["zz"]) is text
    assert delete_key(text, ["a", "deeper"]) is text


def test_delete_nested_key_keeps_parent() -> None:
    text = '{\n  "skillOverrides": {\n    "pdf": "off"\n  },\n  "model": "x"\n}'
    assert delete_key(text, ["skillOverrides", "pdf"]) == '{\n  "skillOverrides": {},\n  "model": "x"\n}'


def test_unchanged_value_returns_same_text() -> None:
    assert set_key(REAL_SETTINGS_2, ["model"], "opus") is REAL_SETTINGS_2


def test_replacing_with_a_container_uses_member_indentation() -> None:
    text = '{\n    "hooks": null\n}'
    assert set_key(text, ["hooks"], {"Stop": []}) == '{\n    "hooks": {\n        "Stop": []\n    }\n}'


def test_get_values() -> None:
    assert get(REAL_SETTINGS_2, ["env", "GREETING"]) == "café"
    assert get(REAL_SETTINGS_2, ["permissions", "deny"]) == ["Bash(curl:*)"]
    assert get(REAL_SETTINGS_2, ["model", "deeper"]) is None
    assert get(REAL_SETTINGS_2, ["nope"], default=0) == 0


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "bad,where,fragment",
    [
        ('{\n  "a": 1,\n}', (3, 1), "trailing comma"),
        ('{\n  // comment\n  "a": 1\n}', (2, 3), "comments are not allowed"),
        ('{"a": /* c */ 1}', (1, 7), "comments are not allowed"),
        ('{"a": NaN}', (1, 7), "NaN"),
        ("{'a': 1}", (1, 2), "double-quoted key"),
        ('{"a": 1', (1, 8), "expected ',' or '}'"),
        ('{"a": 1} x', (1, 10), "after the end"),
        ('{"a": "tab\there"}', (1, 11), "control character"),
        ('{"a": "\\x"}', (1, 8), "invalid escape"),
        ('{"a": 01}', (1, 8), "expected ',' or '}'"),
        ("[1, 2]", (1, 1), "not an object"),
    ],
)
def test_malformed_text_is_refused_with_position(bad, where, fragment) -> None:
    for edit in (
        lambda t: set_key(t, ["a"], 2),
        lambda t: delete_key(t, ["a"]),
        lambda t: array_add(t, ["p"], "x"),
        lambda t: get(t, ["a"]),
    ):
        with pytest.raises(JsonEditError) as info:
            edit(bad)
        assert (info.value.line, info.value.col) == where
        assert fragment in str(info.value)
        assert str(info.value).startswith(f"line {where[0]}:{where[1]}: ")


def test_refuses_to_overwrite_a_non_object_parent() -> None:
    text = '{"permissions": "weird"}'
    with pytest.raises(JsonEditError, match="not an object"):
        set_key(text, ["permissions", "deny"], [])
    with pytest.raises(JsonEditError, match="not an array"):
        array_add('{"permissions": {"deny": "x"}}', ["permissions", "deny"], "y")


def test_unserialisable_value_is_refused() -> None:
    with pytest.raises(JsonEditError):
        set_key("{}", ["a"], float("nan"))
    with pytest.raises(JsonEditError):
        set_key('{"x": 1}', ["a"], {1, 2})


def test_deep_nesting_does_not_crash() -> None:
    text = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
    try:
        assert get(text, ["b"]) is None
    except JsonEditError as exc:
        assert "nested too deeply" in str(exc)


NODE = shutil.which("node")

ACCEPTANCE_CASES = [
    "{}",
    '{"a": 1}',
    "\ufeff{}",
    '{"a": 1,}',
    '{"a": [1,]}',
    "{// c\n}",
    '{"a": NaN}',
    '{"a": -Infinity}',
    '{"a": 01}',
    '{"a": 1.}',
    '{"a": .5}',
    '{"a": +1}',
    '{"a": 1e5}',
    '{"a": "\\u00e9\\ud83d\\ude80"}',
    '{"a": "\\ud800"}',
    '{"a": "\t"}',
    '{"a": "\\x41"}',
    "{'a': 1}",
    '{"a": 1}\n\n',
    '{"a": 1} {}',
    '\u00a0{"a": 1}',
    '{"a":\u000b1}',
    '{"a": true, "a": false}',
    "[]",
    '"str"',
]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_accepts_exactly_what_json_parse_accepts() -> None:
    # Ask the real JavaScript JSON.parse, after the BOM strip Claude Code does (kB()).
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(c => {"
        "  const s = c.startsWith('\\uFEFF') ? c.slice(1) : c;"
        "  try { JSON.parse(s); return true } catch { return false } })))"
    )
    out = subprocess.run(
        [NODE, "-e", script], input=json.dumps(ACCEPTANCE_CASES), capture_output=True, text=True, check=True
    ).stdout
    verdicts = json.loads(out)
    for case, node_ok in zip(ACCEPTANCE_CASES, verdicts):
        try:
            parse_document(case)
            ours = True
        except JsonEditError:
            ours = False
        assert ours == node_ok, case


# --------------------------------------------------------------------------- properties

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=6)


@st.composite
def documents(draw):
    obj = draw(json_objects)
    indent = draw(st.sampled_from([None, 0, 1, 2, 4, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": "), (",", ": ")]))
    ensure_ascii = draw(st.booleans())
    text = json.dumps(obj, indent=indent, separators=separators, ensure_ascii=ensure_ascii)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    text += draw(st.sampled_from(["", "\n", "\r\n", "  \n"]))
    return obj, text


@st.composite
def paths_into(draw, obj):
    path = []
    node = obj
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if isinstance(node, dict) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node)))
        else:
            key = draw(st.text(max_size=6))
        path.append(key)
        node = node.get(key) if isinstance(node, dict) else None
    return path


def _expected_set(obj, path, value):
    expected = copy.deepcopy(obj)
    target = expected
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value
    return expected


def _blocked(obj, path) -> bool:
    node = obj
    for key in path[:-1]:
        if key not in node:
            return False
        node = node[key]
        if not isinstance(node, dict):
            return True
    return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_set_key(data) -> None:
    obj, text = data.draw(documents())
    path = data.draw(paths_into(obj))
    value = data.draw(json_values)
    if _blocked(obj, path):
        with pytest.raises(JsonEditError):
            set_key(text, path, value)
        return
    new = set_key(text, path, value)
    assert json.loads(new) == _expected_set(obj, path, value)
    if new == text:
        return

    # Bytes outside the edited value (or, for a new key, outside the object that
    # receives it) are unchanged.
    root = parse_document(text)
    node = root
    for key in path:
        member = node.last_member(key) if node.kind == "object" else None
        if member is None:
            break
        node = member.value
    else:
        start, end = node.start, node.end
        lo, hi = _changed_region(text, new)
        assert start <= lo and hi <= end
        return
    lo, hi = _changed_region(text, new)
    assert node.start <= lo and hi <= node.end


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_delete_key(data) -> None:
    obj, text = data.draw(documents())
    path = data.draw(paths_into(obj))
    new = delete_key(text, path)
    expected = copy.deepcopy(obj)
    target = expected
    for key in path[:-1]:
        target = target.get(key) if isinstance(target, dict) else None
    if isinstance(target, dict) and path[-1] in target:
        del target[path[-1]]
    else:
        assert new is text
    assert json.loads(new) == expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_deny_list_round_trip(data) -> None:
    obj, text = data.draw(documents())
    obj.pop("permissions", None)
    text = delete_key(text, ["permissions"])
    deny = data.draw(st.lists(st.text(max_size=8), max_size=4, unique=True))
    if deny:
        text = set_key(text, ["permissions", "deny"], deny)
    rule = data.draw(st.text(max_size=8))
    added = array_add(text, ["permissions", "deny"], rule)
    assert get(added, ["permissions", "deny"]) == (deny if rule in deny else deny + [rule])
    removed = array_remove(added, ["permissions", "deny"], rule)
    assert get(removed, ["permissions", "deny"]) == [d for d in deny if d != rule]
    if deny and rule not in deny:
        assert removed == text  # add then remove is byte-identical
