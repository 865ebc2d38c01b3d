import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Code comments, test names and documents name the behaviour they describe, never a tracker
 * number: the word "issue" and a number mean nothing to a reader of the repository. This walks every workspace
 * and the docs (the contract suite is the lightest one `npm test` runs, so it lives here).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['server', 'web', 'contract', 'simulators', 'e2e', 'bench', 'docs'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'artifacts', 'coverage']);
// Landed migrations are never edited (their checksums are recorded), and some of them still
// carry such a reference in a comment; they are left out by name of their folder.
const SKIPPED_PATHS = new Set(['server/src/db/migrations']);
const TEXT = /\.(ts|tsx|js|mjs|cjs|json|md|sql|css|html|ya?ml|txt|csv)$/;
const TRACKER_REFERENCE = /\bissues? ?#?[0-9]+/i;
// The design notes the console was built from are not part of the repository either.
const OUTSIDE_NOTES = /\bDECISIONS(?:\.md\b| ?§)/;

function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path).split('\\').join('/');
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) || SKIPPED_PATHS.has(rel) ? [] : textFiles(path);
    return entry.isFile() && TEXT.test(entry.name) ? [path] : [];
  });
}

function linesMatching(text: string, pattern: RegExp): string[] {
  return text.split('\n').filter((line) => pattern.test(line));
}
const trackerReferences = (text: string) => linesMatching(text, TRACKER_REFERENCE);

function hitsInWorkspaces(pattern: RegExp): string[] {
  const files = SCANNED.flatMap((dir) => textFiles(join(ROOT, dir)));
  expect(files.length).toBeGreaterThan(100);
  return files.flatMap((path) => linesMatching(readFileSync(path, 'utf8'), pattern).map((line) => `${relative(ROOT, path)}: ${line.trim()}`));
}

describe('behaviour names instead of tracker numbers', () => {
  it('recognises a tracker reference in its usual spellings, and not a plain count', () => {
    // Built from pieces so this file does not hold the text it looks for.
    const word = 'iss' + 'ue';
    expect(trackerReferences(`// ${word} 14: replies`)).toHaveLength(1);
    expect(trackerReferences(`it('keeps the order (${word[0].toUpperCase()}${word.slice(1)} #3)')`)).toHaveLength(1);
    expect(trackerReferences(`see ${word}s 12 and 13`)).toHaveLength(1);
    expect(trackerReferences(`## Counts at a million contacts\n3 ${word}s found`)).toEqual([]);
  });

  it('no comment, test name or document in the workspaces says which tracker item it came from', () => {
    expect(hitsInWorkspaces(TRACKER_REFERENCE)).toEqual([]);
  });

  it('no comment or document cites design notes kept outside the repository', () => {
    const notes = 'DECI' + 'SIONS';
    expect(linesMatching(`// OWASP parameters (${notes}.md §1)\n/** ${notes} §4: a subdomain */\nthe decisions below`, OUTSIDE_NOTES)).toHaveLength(2);
    expect(hitsInWorkspaces(OUTSIDE_NOTES)).toEqual([]);
  });
});
