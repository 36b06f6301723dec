// Produces tests/data/ignore_npm_golden.json and paths_cli_golden.json.
// Usage: cd <dir with `npm install ignore@7.0.5`> && node <this> <cases.json> <cli.js|-> > out.json
// Input cases.json: {"ignore": [{"patterns": [...], "paths": [...]}], "paths_values": [any JSON]}
import { createRequire } from 'module';
import fs from 'fs';
const require = createRequire(process.cwd() + '/');
const ignore = require('ignore');
const version = require('ignore/package.json').version;
const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = { ignore_version: version, ignore: [], paths: null };
for (const c of input.ignore) {
  const ig = ignore().add(c.patterns);
  const sources = ig._rules._rules.map((r) => { try { return r.regex.source } catch (e) { return 'ERROR: ' + e.message } });
  const results = c.paths.map((p) => {
    try { const t = ig.test(p); return { ignores: ig.ignores(p), rule: t.ignored && t.rule ? t.rule.pattern : null }; }
    catch (e) { return { error: e.constructor.name }; }
  });
  out.ignore.push({ patterns: c.patterns, sources, paths: c.paths, results });
}
const cli = process.argv[3];
if (cli && cli !== '-' && input.paths_values) {
  // Lift cli.js's own parser (Doz -> fn6 -> t44) out of the bundle and run it.
  const src = fs.readFileSync(cli, 'utf8');
  const grab = (name) => { const i = src.indexOf('function ' + name + '('); let d = 0, j = src.indexOf('{', i);
    for (; j < src.length; j++) { if (src[j] === '{') d++; else if (src[j] === '}' && --d === 0) break; } return src.slice(i, j + 1); };
  const Doz = new Function(grab('t44') + ';' + grab('fn6') + ';' + grab('Doz') + ';return Doz;')();
  out.paths = input.paths_values.map((v) => ({ value: v, result: Doz({ paths: v }) ?? null }));
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
