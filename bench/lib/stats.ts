/**
 * Timing and the tables benches print: timed runs after warm-ups, nearest-rank percentiles,
 * p50/p95/p99 columns judged against a target, and plain aligned text tables.
 */

/** The nearest-rank percentile `q` (0–1) of `values`: the smallest value at or above that share of them. */
export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/** Milliseconds to one decimal, as the tables print them. */
export const ms = (v: number): number => +v.toFixed(1);

/** A number with thousands separators and `d` decimals (en-US). */
export const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/**
 * `fn` timed `runs` times after `warmups` untimed calls (warm caches and plans); `after`
 * (untimed) runs after every call, warm-ups included. Milliseconds.
 */
export async function timeRuns(
  fn: () => Promise<unknown>,
  opts: { runs: number; warmups?: number; after?: () => Promise<unknown> },
): Promise<number[]> {
  const after = opts.after ?? (async () => {});
  for (let i = 0; i < (opts.warmups ?? 2); i++) {
    await fn();
    await after();
  }
  const out: number[] = [];
  for (let i = 0; i < opts.runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
    await after();
  }
  return out;
}

/**
 * The percentile columns of one measure for console.table: `{name} p50`, `{name} p95` and
 * `{name} p99` (just `p50`… when `name` is empty). With a target, the p95 header names it and
 * the cell says "ok" or "MISS"; `p99: false` leaves that column out.
 */
export function percentileColumns(name: string, values: number[], target?: number, opts: { p99?: boolean } = {}): Record<string, string | number> {
  const head = (p: string) => (name ? `${name} ${p}` : p);
  const p95 = percentile(values, 0.95);
  return {
    [head('p50')]: ms(percentile(values, 0.5)),
    [head(`p95${target ? ` (< ${target})` : ''}`)]: target ? `${ms(p95)} ${p95 < target ? 'ok' : 'MISS'}` : ms(p95),
    ...(opts.p99 === false ? {} : { [head('p99')]: ms(percentile(values, 0.99)) }),
  };
}

/** Rows of text as aligned columns, two spaces apart, under `header` and a rule when given. */
export function printTable(rows: string[][], header?: string[]): void {
  const all = header ? [header, ...rows] : rows;
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  if (header) {
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  for (const r of rows) console.log(line(r));
}
