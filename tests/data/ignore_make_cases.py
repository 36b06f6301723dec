"""Builds the input table for ignore_npm_golden.mjs (deterministic: seed 20260509).

Regenerate the golden file (needs node + npm):
    python tests/data/ignore_make_cases.py > /tmp/cases.json
    mkdir -p /tmp/ig && cd /tmp/ig && npm init -y && npm install ignore@7.0.5
    node /work/main/tests/data/ignore_npm_golden.mjs /tmp/cases.json \
        /work/oracle-clis/legacy/node_modules/@anthropic-ai/claude-code/cli.js \
        > /work/main/tests/data/ignore_npm_golden.json
"""
import json
import random

CURATED = [
    (["*.py"], ["a.py", "src/a.py", "src/a.PY", "a.pyc", "py", "src"]),
    (["src/**/*.ts"], ["src/a.ts", "src/x/y/a.ts", "a.ts", "lib/src/a.ts", "src/a.tsx"]),
    (["src/"], ["src", "src/a", "src/x/y", "lib/src/a", "srcx/a"]),
    (["src"], ["src", "src/a", "lib/src", "lib/src/a", "srcx"]),
    (["/src"], ["src", "src/a", "lib/src"]),
    (["docs/*.md"], ["docs/a.md", "docs/x/a.md", "a/docs/a.md"]),
    (["**/test/**"], ["test/a", "x/test/a", "test", "x/test"]),
    (["**"], ["a", "a/b"]),
    (["*"], ["a", "a/b", ".hidden"]),
    (["!a", "*.js"], ["a.js", "a"]),
    (["*.js", "!a.js"], ["a.js", "b.js", "x/a.js"]),
    (["lib/", "!lib/keep.js"], ["lib/keep.js", "lib/x.js"]),
    (["a?c"], ["abc", "a/c", "ac"]),
    (["[abc].md", "[!x].txt", "[z-a].q", "[a-].r"], ["a.md", "d.md", "y.txt", "x.txt", "!.txt", "z.q", "-.r", "a.r"]),
    (["\\#x", "\\!y", "#comment", "a\\ ", "b  ", "c\\  "], ["#x", "!y", "#comment", "a ", "a", "b", "b  ", "c ", "c"]),
    (["a\\d"], ["a1", "ad", "a\\d"]),
    (["a\\", "\\\\", "x\\\\"], ["a", "a\\", "\\", "x\\"]),
    (["foo/**"], ["foo", "foo/a", "foo/a/b"]),
    (["foo/**/bar"], ["foo/bar", "foo/x/bar", "foo/x/y/bar", "foobar"]),
    (["**/foo"], ["foo", "a/foo", "a/b/foo/c"]),
    (["a/*"], ["a/b", "a/b/c", "a"]),
    (["*.{ts,tsx}"], ["a.{ts,tsx}", "a.ts"]),
    (["README"], ["readme", "README", "docs/ReadMe"]),
    (["a b", "x\ty"], ["a b", "x\ty", "x y"]),
    (["\ufeffbom", "é", "ß"], ["bom", "\ufeffbom", "É", "é", "SS", "ß"]),
    (["a.b", "c+d", "(e)", "f|g", "h$", "^i", "{j}"], ["a.b", "axb", "c+d", "(e)", "f|g", "h$", "^i", "{j}", "f", "g"]),
    (["dir/sub/"], ["dir/sub", "dir/sub/x", "a/dir/sub/x"]),
    (["x/./y", "p//q"], ["x/y", "x/./y", "p/q", "p//q"]),
    (["a", "!a", "a"], ["a", "a/b"]),
    (["*.md", "!docs/**"], ["docs/a.md", "a.md", "docs/x/a.md"]),
    (["?"], ["a", "ab", "a/b"]),
    (["**/*.md"], ["a.md", "x/a.md", "x/y/a.md"]),
    (["a/**/"], ["a/b", "a/b/c", "a"]),
    (["[a-c]x/"], ["bx/y", "dx/y"]),
    (["\\[a]"], ["[a]", "a"]),
    (["x[", "y[a"], ["x[", "x", "y[a", "ya"]),
    (["*.ts"], ["./a.ts", ".", "..", "..a.ts", "/abs.ts", "a.ts/"]),
]

SEGS = ["src", "lib", "a", "b", "*", "**", "?", "*.ts", "*.md", "[ab]", "[!a]", "x.*", "te?t", "Doc",
        "a b", "\\*", "{x,y}", "\\#c", "#c", "!n", "\\!n"]
NAMES = ["src", "lib", "a", "b", "x.ts", "y.md", "ab", "test", "Doc", "doc", "a b", "*", "#c", "!n", "x.y"]


def rand_pattern(r):
    p = "/".join(r.choice(SEGS) for _ in range(r.randint(1, 3)))
    if r.random() < 0.2:
        p = "/" + p
    if r.random() < 0.2:
        p += "/"
    if r.random() < 0.15:
        p = "!" + p
    if r.random() < 0.05:
        p += " "
    return p


def main():
    r = random.Random(20260509)
    cases = [{"patterns": p, "paths": paths} for p, paths in CURATED]
    for _ in range(300):
        pats = [rand_pattern(r) for _ in range(r.randint(1, 4))]
        paths = sorted({"/".join(r.choice(NAMES) for _ in range(r.randint(1, 4))) for _ in range(8)})
        cases.append({"patterns": pats, "paths": paths})
    values = [
        "src/**/*.ts", "a, b", "{a,b}/c", "x/{a,b}/{c,d}", "{a,{b,c}}", "a{,b}", "{}", "{,}", "a,{b,c},d",
        "}a,b{", "src/**", "**", "**/**", "**, src/**", "a/**/**", " , ,", "", "   ", "*.{ts, tsx }",
        ["a", "b,c", "{x,y}"], ["src/**"], ["**", "**/**"], [], [["a", ["b"]], "c"], [1, "a", True, None],
        [{"k": "v"}, "z"], 0, 1, True, False, None, {"a": 1}, "a\nb", "{a,b}\nc", "x{a\nb,c}y",
        "\ufeffa, b\u00a0", "a\u001cb", "{a,b}{c,d}", "a/**/", "a/**/**", "/**", "**/", "*,**",
    ]
    json.dump({"ignore": cases, "paths_values": values}, __import__("sys").stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
