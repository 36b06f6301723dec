// Reference widths and cuts from the code Claude Code 2.1.88 actually ships.
//
// Usage: node tests/textwidth_compare.mjs [path/to/cli.js.map] < in.json > out.json
//   in.json : {"strings": [...], "cut_widths": [...]}   (cut widths may be negative: -k means width(s)-k)
//   out.json: [{"w": stringWidth(s), "sw7": npm string-width 7 width, "cuts": [truncate(s, n) ...],
//              "json": JSON.stringify(s), "utf8": Buffer.from(s).toString()}...]
//
// The npm package ships cli.js together with cli.js.map, whose sourcesContent holds the exact sources the
// bundle was built from. Under Node (how the npm cli.js runs: `#!/usr/bin/env node`) `Bun` is undefined,
// so Claude Code's `stringWidth` is `stringWidthJavaScript` from src/ink/stringWidth.ts, built on
// emoji-regex, get-east-asian-width and strip-ansi. We rebuild those modules from the map (stripping the
// few TypeScript annotations) so the reference is the shipped code, not a re-implementation.
// Also built, for comparison only: the npm string-width 7.x that the bundle carries (under wrap-ansi).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const DEFAULT_MAP = '/work/oracle-clis/legacy/node_modules/@anthropic-ai/claude-code/cli.js.map';
const mapPath = process.argv[2] || process.env.CC_LEGACY_CLI_MAP || DEFAULT_MAP;
const map = JSON.parse(fs.readFileSync(mapPath, 'utf8'));
const source = name => {
	const i = map.sources.indexOf(name);
	if (i < 0) throw new Error(`${name} not in ${mapPath}`);
	return map.sourcesContent[i];
};

// The few TypeScript constructs used in stringWidth.ts / truncate.ts.
const stripTypes = ts => ts
	.replace(/\): (?:string|number|boolean)(?:\[\])?(?=\s*\{)/g, ')')
	.replace(/const (\w+): string\[\] =/g, 'const $1 =')
	.replace(/(\w+): (?:string|number|boolean)(?=\s*[,)=])/g, '$1')
	.replace(/([)\]])!(?=[.\s;,)\]])/g, '$1')
	.replace(/ as const/g, '');

if (typeof Bun !== 'undefined') throw new Error('run with node: under Bun Claude Code uses Bun.stringWidth');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-stringwidth-'));
const write = (name, text) => fs.writeFileSync(path.join(dir, name), text);
write('ew_lookup.mjs', source('../node_modules/get-east-asian-width/lookup.js'));
write('ew.mjs', source('../node_modules/get-east-asian-width/index.js').replace(/(['"])\.\/lookup\.js\1/g, "'./ew_lookup.mjs'"));
write('ansi_regex.mjs', source('../node_modules/ansi-regex/index.js'));
write('strip_ansi.mjs', source('../node_modules/strip-ansi/index.js').replace("'ansi-regex'", "'./ansi_regex.mjs'"));
write('emoji_regex.cjs', source('../node_modules/emoji-regex/index.js'));
write('emoji_regex_sw7.cjs', source('../node_modules/wrap-ansi/node_modules/string-width/node_modules/emoji-regex/index.js'));
let sw = source('../src/ink/stringWidth.ts');
sw = sw.slice(0, sw.indexOf('const bunStringWidth'))
	+ 'export const stringWidth = stringWidthJavaScript\n';
sw = stripTypes(sw)
	.replace("from 'emoji-regex'", "from './emoji_regex.cjs'")
	.replace("from 'get-east-asian-width'", "from './ew.mjs'")
	.replace("from 'strip-ansi'", "from './strip_ansi.mjs'")
	.replace("from '../utils/intl.js'", "from './grapheme.mjs'");
write('string_width.mjs', sw);
// Only getGraphemeSegmenter is needed from intl.ts; copy it verbatim (minus its type annotation).
const intl = source('../src/utils/intl.ts');
const seg = intl.slice(intl.indexOf('let graphemeSegmenter'), intl.indexOf('/**\n * Extract the first grapheme'));
write('grapheme.mjs', seg.replace(': Intl.Segmenter | null', '').replace('(): Intl.Segmenter', '()')
	.replace(/let wordSegmenter.*\n/, ''));
write('truncate.mjs', stripTypes(source('../src/utils/truncate.ts'))
	.replace("from '../ink/stringWidth.js'", "from './string_width.mjs'")
	.replace("from './intl.js'", "from './grapheme.mjs'"));
write('sw7.mjs', source('../node_modules/wrap-ansi/node_modules/string-width/index.js')
	.replace("from 'strip-ansi'", "from './strip_ansi.mjs'")
	.replace("from 'get-east-asian-width'", "from './ew.mjs'")
	.replace("from 'emoji-regex'", "from './emoji_regex_sw7.cjs'"));

const {stringWidth} = await import(pathToFileURL(path.join(dir, 'string_width.mjs')));
const {truncate} = await import(pathToFileURL(path.join(dir, 'truncate.mjs')));
const {default: stringWidth7} = await import(pathToFileURL(path.join(dir, 'sw7.mjs')));
fs.rmSync(dir, {recursive: true});

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const cutWidths = input.cut_widths || [];
const out = input.strings.map(s => {
	const w = stringWidth(s);
	return {
		w,
		sw7: stringWidth7(s),
		cuts: cutWidths.map(n => truncate(s, n < 0 ? w + n : n)),
		json: JSON.stringify(s),
		utf8: Buffer.from(s, 'utf8').toString('utf8'),
	};
});
process.stdout.write(JSON.stringify({node: process.version, icu: process.versions.icu, unicode: process.versions.unicode, results: out}));
