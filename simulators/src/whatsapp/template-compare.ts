// GET /{template_id}/compare: Meta's Template Comparison API, with the rules Meta documents:
// exactly one other template in `template_ids`, both in the same WABA, a lookback of exactly 7,
// 30, 60 or 90 days ending at most now, and at least 1,000 sends of each in that timeframe.
import { graphError, type GraphError } from './errors';
import type { Template } from './templates';

export const COMPARE_WINDOWS = [604_800, 2_592_000, 5_184_000, 7_776_000];
export const COMPARE_MIN_SENDS = 1000;

/** Block reasons Meta names in TOP_BLOCK_REASON. */
export const BLOCK_REASONS = ['NO_LONGER_NEEDED', 'NO_REASON', 'NO_REASON_GIVEN', 'NO_SIGN_UP', 'OFFENSIVE_MESSAGES', 'OTHER', 'OTP_DID_NOT_REQUEST', 'SPAM', 'UNKNOWN_BLOCK_REASON'] as const;

export interface CompareInput {
  target: Template;
  /** The raw `template_ids` parameter: `[<id>]`. */
  templateIds: string | undefined;
  start: string | undefined;
  end: string | undefined;
  nowSec: number;
  lookup: (id: string) => Template | undefined;
  /** Sends of a template in [fromMs, toMs]. */
  sends: (t: Template, fromMs: number, toMs: number) => number;
  /** The share of a template's sends that blocked the business (the simulator's setting; 0 by default). */
  blockRate: (t: Template) => number;
}

/** The comparison, shaped as Meta documents it, or the Graph error Meta answers with. */
export function compareTemplates(c: CompareInput): { body: unknown } | { error: GraphError } {
  const ids = parseIds(c.templateIds);
  if (!ids || ids.length !== 1) return { error: graphError(100, 'template_ids must name exactly one template to compare with') };
  const other = c.lookup(ids[0]);
  if (!other) return { error: graphError(100, `Template ${ids[0]} does not exist`) };
  if (other.wabaId !== c.target.wabaId) return { error: graphError(100, 'Both templates must be in the same WhatsApp Business Account') };
  const start = Number(c.start);
  const end = Number(c.end);
  if (!Number.isInteger(start) || !Number.isInteger(end)) return { error: graphError(100, 'start and end must be Unix timestamps') };
  if (!COMPARE_WINDOWS.includes(end - start)) return { error: graphError(100, 'The timeframe must be a 7, 30, 60 or 90 day lookback') };
  if (end > c.nowSec + 60) return { error: graphError(100, 'end must not be in the future') };
  const pair = [c.target, other];
  const sends = pair.map((t) => c.sends(t, start * 1000, end * 1000));
  if (sends.some((n) => n < COMPARE_MIN_SENDS)) {
    return { error: graphError(100, `Each template must have been sent at least ${COMPARE_MIN_SENDS} times in the timeframe`) };
  }
  const rates = pair.map((t) => c.blockRate(t));
  // Increasing order of block rate; a tie keeps the target first.
  const order = [0, 1].sort((a, b) => rates[a] - rates[b]).map((i) => pair[i].id);
  return {
    body: {
      data: [
        { metric: 'BLOCK_RATE', type: 'RELATIVE', order_by_relative_metric: order },
        { metric: 'MESSAGE_SENDS', type: 'NUMBER_VALUES', number_values: pair.map((t, i) => ({ key: t.id, value: sends[i] })) },
        {
          metric: 'TOP_BLOCK_REASON',
          type: 'STRING_VALUES',
          string_values: pair.map((t, i) => ({ key: t.id, value: rates[i] > 0 ? 'SPAM' : 'UNKNOWN_BLOCK_REASON' })),
        },
      ],
    },
  };
}

/** `[123]`, `["123"]` or `123`: the ids Meta's `template_ids` carries. */
function parseIds(raw: string | undefined): string[] | null {
  if (!raw) return null;
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return [trimmed];
  try {
    const parsed = JSON.parse(trimmed) as unknown;
    if (!Array.isArray(parsed)) return null;
    const ids = parsed.map(String);
    return ids.every((id) => /^\d+$/.test(id)) ? ids : null;
  } catch {
    return null;
  }
}
