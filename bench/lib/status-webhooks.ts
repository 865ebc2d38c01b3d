/**
 * Meta posting status webhooks, for the intake benches: each recipient of a frozen campaign gets
 * `sent`, then `delivered` 1 s later, then `read` 2 s later (`pricing` on sent and delivered, our
 * signed callback data on each), POSTed signed to the console from worker threads so that the
 * generator's own work does not slow the bench's main thread.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { createCallbackData } from '../../server/src/engine/campaigns/callback-data';
import { signWebhook } from '../../server/test/helpers/webhook';

const TICK_MS = 100;
/** Status events per recipient: sent, delivered, read. */
export const STATUSES_PER_MESSAGE = 3;

export interface StatusWebhookInput {
  /** `…/api/webhooks/whatsapp` of the console. */
  url: string;
  campaignId: number;
  /** Recipient ids in send order. */
  ids: number[];
  /** Messages a second (each brings three statuses). */
  rate: number;
  seconds: number;
  /** Statuses per POST. */
  batch: number;
  /** Connections the thread keeps open. */
  connections: number;
  webhookSecret: string;
  /** The console's APP_SECRET: the callback data is signed with it. */
  appSecret: string;
  phoneNumberId: string;
  wabaId: string;
}

export interface StatusWebhookResult {
  posted: number;
  events: number;
  failedPosts: number;
  /** Events accepted (answered 200) while sent, delivered and read all flow (after the first 2 s, before the tail). */
  steadyEvents: number;
  steadyMs: number;
  /** Time from a POST being due to its answer (queueing in the generator included), ms. */
  answerP95: number;
  answerMax: number;
}

/** One generator: `ids` paced at `rate` messages a second. */
export async function generateStatusWebhooks(input: StatusWebhookInput): Promise<StatusWebhookResult> {
  const callback = createCallbackData(input.appSecret);
  const url = new URL(input.url);
  const pool = new Pool(url.origin, { connections: input.connections });
  const perTick = (input.rate * TICK_MS) / 1000;
  const ticks = Math.round((input.seconds * 1000) / TICK_MS);
  const lagTicks = (s: number) => Math.round((s * 1000) / TICK_MS);
  const result: StatusWebhookResult = { posted: 0, events: 0, failedPosts: 0, steadyEvents: 0, steadyMs: 0, answerP95: 0, answerMax: 0 };
  let steadyFrom = 0;
  let steadyTo = Infinity;
  const answers: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const status = (id: number, s: 'sent' | 'delivered' | 'read', ts: number) => ({
    id: `wamid.bench.${id}`,
    status: s,
    timestamp: String(ts),
    recipient_id: '5491100000000',
    biz_opaque_callback_data: callback.sign({ campaignId: input.campaignId, recipientId: id }),
    ...(s === 'read' ? {} : { pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' } }),
  });
  const post = (statuses: unknown[]) => {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: input.wabaId,
          changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '5491100000000', phone_number_id: input.phoneNumberId }, statuses } }],
        },
      ],
    });
    const due = performance.now();
    const p = pool
      .request({ method: 'POST', path: url.pathname, body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhook(body, input.webhookSecret) } })
      .then(async (res) => {
        await res.body.dump();
        const at = performance.now();
        answers.push(at - due);
        if (res.statusCode === 200) {
          result.posted++;
          result.events += statuses.length;
          if (steadyFrom && at >= steadyFrom && at < steadyTo) result.steadyEvents += statuses.length;
        } else result.failedPosts++;
      })
      .catch(() => {
        result.failedPosts++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  // Recipients of tick k: a fractional rate per tick is carried over, so the total is exact.
  const block = (tick: number) =>
    tick >= 0 && tick < ticks ? input.ids.slice(Math.round(tick * perTick), Math.round((tick + 1) * perTick)) : [];
  const started = performance.now();
  for (let k = 0; k < ticks + lagTicks(2); k++) {
    const ts = Math.floor(Date.now() / 1000);
    const events: unknown[] = [];
    for (const id of block(k)) events.push(status(id, 'sent', ts));
    for (const id of block(k - lagTicks(1))) events.push(status(id, 'delivered', ts));
    for (const id of block(k - lagTicks(2))) events.push(status(id, 'read', ts));
    for (let i = 0; i < events.length; i += input.batch) post(events.slice(i, i + input.batch));
    if (k === lagTicks(2)) steadyFrom = performance.now();
    if (k === ticks - 1) {
      result.steadyMs = performance.now() - steadyFrom + TICK_MS;
      steadyTo = steadyFrom + result.steadyMs;
    }
    const wait = started + (k + 1) * TICK_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all([...inFlight]);
  await pool.close();
  answers.sort((a, b) => a - b);
  result.answerP95 = answers[Math.max(0, Math.ceil(answers.length * 0.95) - 1)] ?? 0;
  result.answerMax = answers.at(-1) ?? 0;
  return result;
}

/**
 * `threads` generators in worker threads, the recipients dealt out between them (each thread a
 * share of the rate); resolves with their summed results.
 */
export async function runStatusWebhooks(input: StatusWebhookInput, threads: number): Promise<StatusWebhookResult> {
  // A worker loads this TypeScript file through tsx's loader (workers do not inherit it).
  const self = JSON.stringify(import.meta.url);
  const shares = Array.from({ length: threads }, (_, t) => input.ids.filter((_, i) => i % threads === t));
  const results = await Promise.all(
    shares.map(async (ids) => {
      const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${self}); })`, {
        eval: true,
        workerData: { statusWebhooks: { ...input, ids, rate: input.rate / threads } },
      });
      try {
        return await new Promise<StatusWebhookResult>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        });
      } finally {
        await worker.terminate();
      }
    }),
  );
  return {
    posted: sum(results.map((r) => r.posted)),
    events: sum(results.map((r) => r.events)),
    failedPosts: sum(results.map((r) => r.failedPosts)),
    steadyEvents: sum(results.map((r) => r.steadyEvents)),
    steadyMs: Math.max(...results.map((r) => r.steadyMs)),
    answerP95: Math.max(...results.map((r) => r.answerP95)),
    answerMax: Math.max(...results.map((r) => r.answerMax)),
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

const job = isMainThread ? undefined : (workerData as { statusWebhooks?: StatusWebhookInput } | null)?.statusWebhooks;
if (job) void generateStatusWebhooks(job).then((r) => parentPort!.postMessage(r));
