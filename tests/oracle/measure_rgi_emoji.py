#!/usr/bin/env python3
"""List the strings Bun's `/\\p{RGI_Emoji}/v` matches: Claude Code 2.1.3xx keeps joiners and variation
selectors inside them when it cleans a skill description (see skillmanager/core/layers/current_text.py).

Candidates are every key of the PyPI `emoji` package's emoji.json (fully-, minimally- and unqualified
forms, components); Bun (the npm `@oven/bun-linux-x64` build, see measure_bun_width.py) keeps the ones its
own Unicode tables call RGI. Writes resources/data/rgi_emoji.json. Plain python3, no project imports:

    python3 tests/oracle/measure_rgi_emoji.py [--bun PATH]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_bun_width import REPO, bun_version, find_bun  # noqa: E402

EMOJI_PACKAGE = "emoji==2.16.0"


def candidates():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, EMOJI_PACKAGE], check=True)
        wheel = glob.glob(os.path.join(tmp, "emoji-*.whl"))[0]
        with zipfile.ZipFile(wheel) as z:
            data = json.loads(z.read("emoji/unicode_codes/emoji.json").decode("utf-8"))
        keys = set(data)
        keys |= {key + "\ufe0f" for key in data if len(key) == 1}  # text-default emoji in emoji presentation
        return sorted(keys)


def rgi_only(bun, strings):
    with tempfile.TemporaryDirectory() as tmp:
        src, out, script = (os.path.join(tmp, n) for n in ("in.json", "out.json", "rgi.js"))
        with open(src, "w", encoding="utf-8") as f:
            json.dump(strings, f)
        with open(script, "w", encoding="utf-8") as f:
            f.write("const fs=require('fs');const [src,out]=process.argv.slice(-2);const re=/^\\p{RGI_Emoji}$/v;"
                    "fs.writeFileSync(out,JSON.stringify(JSON.parse(fs.readFileSync(src,'utf8')).map(s=>re.test(s))));\n")
        subprocess.run([bun, script, src, out], check=True)
        with open(out, encoding="utf-8") as f:
            flags = json.load(f)
    return [s for s, keep in zip(strings, flags) if keep]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bun")
    args = parser.parse_args()
    bun = find_bun(args.bun)
    found = rgi_only(bun, candidates())
    data = {"produced_by": f"python3 tests/oracle/measure_rgi_emoji.py (Bun {bun_version(bun)}, {EMOJI_PACKAGE})",
            "note": "Strings matching /^\\p{RGI_Emoji}$/v in Bun.", "emoji": found}
    with open(os.path.join(REPO, "resources", "data", "rgi_emoji.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"{len(found)} RGI emoji", file=sys.stderr)


if __name__ == "__main__":
    main()
