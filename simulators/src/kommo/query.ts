// Reading Kommo's list filters from a query string, in every form clients send them:
// `filter[x]=1,2`, `filter[x][]=1&filter[x][]=2`, `filter[x][0]=1`.

function escape(name: string): string {
  return name.replace(/[[\]]/g, '\\$&');
}

/** The values of a list parameter, split on commas; undefined when it is absent. */
export function listParam(query: Record<string, unknown>, name: string): string[] | undefined {
  const indexed = new RegExp(`^${escape(name)}\\[\\d+\\]$`);
  const values: unknown[] = [];
  for (const [key, v] of Object.entries(query)) {
    if (key === name || key === `${name}[]` || indexed.test(key)) values.push(...(Array.isArray(v) ? v : [v]));
  }
  if (values.length === 0) return undefined;
  return values.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** The same, as integers (what does not parse is dropped). */
export function numbersParam(query: Record<string, unknown>, name: string): number[] | undefined {
  const values = listParam(query, name);
  return values?.map((p) => Number.parseInt(p, 10)).filter(Number.isFinite);
}
