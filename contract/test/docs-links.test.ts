import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents link to each other by relative path and heading: a moved file or a renamed
 * heading must not leave a link pointing nowhere. Headings are turned into anchors the way
 * GitHub does (lower case, punctuation dropped, spaces to hyphens).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!.replace(/`/g, ''))));
}

function brokenLinks(path: string, source = readFileSync(path, 'utf8')): string[] {
  const text = source.replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue; // an address outside the repository
    const [file, anchor] = target!.split('#') as [string, string | undefined];
    const dest = file ? resolve(dirname(path), file) : path;
    if (!existsSync(dest)) broken.push(`${relative(ROOT, path)}: ${target} (no such file)`);
    else if (anchor && dest.endsWith('.md') && !anchorsOf(dest).has(anchor)) broken.push(`${relative(ROOT, path)}: ${target} (no such heading)`);
  }
  return broken;
}

describe('links between the documents', () => {
  it('turns a heading into the anchor GitHub gives it', () => {
    expect(anchorOf("Meta's messaging limit (per business portfolio)")).toBe('metas-messaging-limit-per-business-portfolio');
    expect(anchorOf('Sending hours ("Horario de envío")')).toBe('sending-hours-horario-de-envío');
    expect(anchorOf('The simulator: Meta’s 2025–26 rules')).toBe('the-simulator-metas-202526-rules');
  });

  it('finds a link to a missing file or heading, and lets good ones and outside addresses be', () => {
    const page = join(ROOT, 'docs/page.md');
    const source = [
      '[gone](architecture/gone.md)',
      '[no heading](architecture/kommo.md#no-such-heading)',
      '[good](architecture/kommo.md#kommo-rate-limit)',
      '[outside](https://example.com/x)',
    ].join('\n');
    expect(brokenLinks(page, source)).toEqual([
      'docs/page.md: architecture/gone.md (no such file)',
      'docs/page.md: architecture/kommo.md#no-such-heading (no such heading)',
    ]);
  });

  it('every relative link in docs/ and the READMEs reaches a file, and its heading when it names one', () => {
    const files = [...markdownFiles(join(ROOT, 'docs')), join(ROOT, 'README.md'), join(ROOT, 'simulators/README.md')];
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => brokenLinks(file))).toEqual([]);
  });
});
