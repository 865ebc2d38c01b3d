// {{1}} / {{first_name}} placeholders in template texts.

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** Distinct placeholder names in order of first appearance. */
export function placeholders(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const seen: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) if (!seen.includes(m[1])) seen.push(m[1]);
  return seen;
}

/** Two placeholders with nothing but spaces between them, e.g. {{1}}{{2}}: Meta rejects these. */
export function hasAdjacentPlaceholders(text: unknown): boolean {
  return typeof text === 'string' && /\}\}\s*\{\{/.test(text);
}

export function startsOrEndsWithPlaceholder(text: string): boolean {
  const t = text.trim();
  return /^\{\{\s*[A-Za-z0-9_]+\s*\}\}/.test(t) || /\{\{\s*[A-Za-z0-9_]+\s*\}\}$/.test(t);
}

/** Words in a text once its placeholders are removed. */
export function wordsOutsidePlaceholders(text: string): number {
  return text.replace(PLACEHOLDER, ' ').split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/** Replaces each placeholder with values[name] (positional names are '1', '2', ...). */
export function hydrate(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
