#!/usr/bin/env node
// Checks that moving the architecture notes into docs/architecture/ lost nothing: every figure
// (a number, with its unit when it has one), every bold decision, every code span, every
// table row and every line of a fenced block of the old documents, read from git at a given commit, must appear somewhere in
// the current docs/ tree. Prints what is missing and exits 1 when anything is.
//   node scripts/check-docs-moved.mjs <commit-before-the-move>
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ref = process.argv[2];
if (!ref) {
  console.error('usage: node scripts/check-docs-moved.mjs <commit>');
  process.exit(2);
}
const OLD = ['docs/ARCHITECTURE.md', 'docs/security/auth.md', 'docs/security/engine.md', 'docs/security/kommo.md', 'docs/security/tenancy.md'];

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.md') ? [p] : [];
  });
}
// Line breaks and indentation differ after a move: compare with runs of whitespace as one space.
// Lines rewritten on purpose: the layout tree no longer cites outside the repository, and
// points to the document the process context moved to.
const DELIBERATE = new Set([
  'src/config.ts environment, parsed once (DECISIONS.md §4)',
  'src/context.ts AppContext: what a process is made of (see "The process context" below)',
]);
const norm = (s) => s.replace(/\s+/g, ' ').trim();
const now = norm(walk('docs').map((p) => readFileSync(p, 'utf8')).join('\n'));

const figure = /(?<![\w.])[-−+]?\d[\d,.]*(?:\s?(?:ms|s|h|min|MB|MiB|KB|kB|GB|px|%|msg\/s|contacts\/s|rows\/s|[kKM]\b))?/g;
const missing = { figures: new Set(), bold: new Set(), code: new Set(), rows: new Set() };
let counts = { figures: 0, bold: 0, code: 0, rows: 0 };
for (const path of OLD) {
  const text = execFileSync('git', ['show', `${ref}:${path}`], { encoding: 'utf8' });
  // Fenced blocks (the layout tree) are compared line by line; the rest as running text.
  const fenced = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n'));
  const flat = norm(text.replace(/```[\s\S]*?```/g, ' '));
  // References to tracker issues were removed on purpose; their numbers are not figures.
  const withoutIssues = flat.replace(/\b[Ii]ssues? ?#?\d+/g, '').replace(/§\d+/g, '');
  for (const m of withoutIssues.matchAll(figure)) {
    counts.figures++;
    const f = m[0].trim();
    if (!now.includes(f)) missing.figures.add(f);
  }
  for (const m of flat.matchAll(/\*\*([^*]+)\*\*/g)) {
    counts.bold++;
    if (!now.includes(norm(m[1]))) missing.bold.add(m[1]);
  }
  for (const m of flat.matchAll(/`([^`]+)`/g)) {
    counts.code++;
    const c = norm(m[1]);
    if (/^DECISIONS\.md|^docs\/security\//.test(c)) continue; // citations that moved or went away
    if (/^docs\/[A-Z]+\.md$/.test(c) && now.includes(`](${c.replace('docs/', '../')}`)) continue; // now a link
    if (!now.includes(c)) missing.code.add(c);
  }
  for (const line of fenced) {
    if (!line.trim() || DELIBERATE.has(norm(line))) continue;
    counts.rows++;
    if (!now.includes(norm(line))) missing.rows.add(norm(line));
  }
  for (const line of text.split('\n')) {
    if (!/^\s*\|/.test(line) || /^\s*\|[-| ]+\|\s*$/.test(line)) continue;
    counts.rows++;
    if (!now.includes(norm(line))) missing.rows.add(norm(line));
  }
}
let lost = 0;
for (const [kind, set] of Object.entries(missing)) {
  console.log(`${kind}: ${counts[kind]} checked, ${set.size} missing`);
  for (const item of set) console.log(`  - ${item}`);
  lost += set.size;
}
process.exit(lost ? 1 : 0);
