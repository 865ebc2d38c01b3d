import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What the database says at scrape time (db/ops-state.ts). Read once per scrape whatever the
 * number of gauges, and null when the database did not answer: the scrape still succeeds
 * (process metrics, counters) and `masivo_database_up` says why the rest is missing.
 */
export interface OpsState {
  /** Pending recipients of sending campaigns, by WhatsApp account. */
  queue: Array<{ whatsappAccountId: number; pending: number }>;
  /** Live leases by owner (a process's instance id): sender leases and Kommo sync leases. */
  senderLeases: Array<{ owner: string; count: number }>;
  syncLeases: Array<{ owner: string; count: number }>;
  /** Stored webhook POSTs due for applying, and the age of the oldest. */
  webhookBacklog: number;
  webhookOldestSeconds: number;
  /** Running syncs: contacts read so far and Kommo's total, by Kommo account. */
  syncs: Array<{ kommoAccountId: number; progress: number; total: number }>;
  /** Age of the oldest campaign change the `campaign-rollups` job has not folded yet; 0 when all are folded. */
  rollupLagSeconds: number;
}

export interface Metrics {
  readonly registry: Registry;
  /**
   * The text a scrape answers: this process's registry, or, in an API process of a cluster
   * (API_PROCESSES > 1, server/src/cluster.ts), the whole cluster's, summed by the primary.
   */
  scrape(): Promise<string>;
  /** One request answered (Fastify's onResponse). `route` is the route pattern, never the raw URL. */
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /** One answer from Meta to a send: `kind` is the sender's outcome, `code` Meta's error code if any. */
  sendOutcome(whatsappAccountId: number, kind: string, code: number | null | undefined): void;
  /** Webhook POSTs applied, by when each was received: their lag from receipt to effect. */
  webhooksApplied(receivedAt: Array<Date | string>): void;
  /** A Kommo sync ended. */
  syncEnded(result: 'ok' | 'error'): void;
  /** Rows deleted by a retention job (engine/data-retention.ts, engine/activity-retention.ts), by kind of data. */
  retentionDeleted(kind: string, rows: number): void;
  /** One campaign's fold by the `campaign-rollups` job (engine/campaign-rollups.ts): how long it took, and whether it committed. */
  rollupFolded(result: 'ok' | 'error', seconds: number): void;
}

const PREFIX = 'masivo_';
/** Gauges of one scrape share one read of the database. */
const STATE_TTL_MS = 1_000;

export function createMetrics(readState: () => Promise<OpsState>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });

  const http = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP request latency by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const sends = new Counter({
    name: `${PREFIX}whatsapp_sends_total`,
    help: 'Answers to template sends by WhatsApp account and outcome (ok, retry, permanent, systemic, ambiguous)',
    labelNames: ['whatsapp_account', 'outcome'] as const,
    registers: [registry],
  });
  const sendErrors = new Counter({
    name: `${PREFIX}whatsapp_send_errors_total`,
    help: "Failed sends by WhatsApp account and Meta's error code (transport: Meta not reached)",
    labelNames: ['whatsapp_account', 'code'] as const,
    registers: [registry],
  });
  const webhookLag = new Histogram({
    name: `${PREFIX}webhook_lag_seconds`,
    help: 'Time from storing a webhook POST to applying it',
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  });
  const syncRuns = new Counter({
    name: `${PREFIX}kommo_syncs_total`,
    help: 'Kommo syncs that ended, by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });

  const retentionRows = new Counter({
    name: `${PREFIX}retention_deleted_rows_total`,
    help: 'Rows deleted past their retention, by kind (meta_events, inbound_messages, webhook_inbox, writeback_items, activity_log)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });

  const rollupFold = new Histogram({
    name: `${PREFIX}rollup_fold_duration_seconds`,
    help: "Duration of one campaign's fold by the campaign-rollups job (committed or not)",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const rollupFolds = new Counter({
    name: `${PREFIX}rollup_folds_total`,
    help: "Campaign folds by the campaign-rollups job, by result (ok, error: left for the next pass)",
    labelNames: ['result'] as const,
    registers: [registry],
  });

  let cached: { at: number; state: Promise<OpsState | null> } | null = null;
  const state = () => {
    if (!cached || performance.now() - cached.at > STATE_TTL_MS) {
      cached = { at: performance.now(), state: readState().catch(() => null) };
    }
    return cached.state;
  };
  /** A gauge filled from the database at scrape time. */
  const fromState = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (g: Gauge<L>, s: OpsState) => void,
  ) =>
    new Gauge<L>({
      name: `${PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      // Every process of a cluster reads the same database: one reading, not their sum.
      aggregator: 'max',
      async collect() {
        this.reset();
        const s = await state();
        if (s) fill(this, s);
      },
    });

  new Gauge({
    name: `${PREFIX}database_up`,
    help: '1 when the database answered the scrape, 0 when the gauges read from it are missing',
    registers: [registry],
    aggregator: 'min',
    async collect() {
      this.set((await state()) ? 1 : 0);
    },
  });
  fromState('send_queue_depth', 'Pending recipients of sending campaigns by WhatsApp account', ['whatsapp_account'], (g, s) => {
    for (const q of s.queue) g.set({ whatsapp_account: String(q.whatsappAccountId) }, q.pending);
  });
  fromState('sender_leases', 'Live sender leases (WhatsApp numbers being paced) by owning process', ['owner'], (g, s) => {
    for (const l of s.senderLeases) g.set({ owner: l.owner }, l.count);
  });
  fromState('sync_leases', 'Live Kommo sync leases by owning process', ['owner'], (g, s) => {
    for (const l of s.syncLeases) g.set({ owner: l.owner }, l.count);
  });
  fromState('webhook_backlog', 'Stored webhook POSTs due for applying', [], (g, s) => g.set(s.webhookBacklog));
  fromState('webhook_oldest_age_seconds', 'Age of the oldest webhook POST waiting to be applied', [], (g, s) =>
    g.set(s.webhookOldestSeconds),
  );
  fromState('kommo_sync_progress_contacts', 'Contacts read by running syncs, by Kommo account', ['kommo_account'], (g, s) => {
    for (const x of s.syncs) g.set({ kommo_account: String(x.kommoAccountId) }, x.progress);
  });
  fromState('kommo_sync_total_contacts', "Kommo's contact count for running syncs, by Kommo account", ['kommo_account'], (g, s) => {
    for (const x of s.syncs) g.set({ kommo_account: String(x.kommoAccountId) }, x.total);
  });

  fromState('rollup_lag_seconds', 'Age of the oldest campaign change not yet folded into the charts\' rollups (0: all folded)', [], (g, s) =>
    g.set(s.rollupLagSeconds),
  );

  if (cluster.isWorker) {
    // The primary asks every API process for this registry when any of them is scraped.
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }

  return {
    registry,
    scrape: () => (cluster.isWorker ? askPrimaryForClusterMetrics() : registry.metrics()),
    httpRequest(method, route, statusCode, seconds) {
      http.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
    sendOutcome(whatsappAccountId, kind, code) {
      const whatsapp_account = String(whatsappAccountId);
      sends.inc({ whatsapp_account, outcome: kind });
      if (kind !== 'ok' && kind !== 'ambiguous') sendErrors.inc({ whatsapp_account, code: code == null ? 'transport' : String(code) });
    },
    webhooksApplied(receivedAt) {
      const now = Date.now();
      for (const at of receivedAt) webhookLag.observe(Math.max(0, (now - new Date(at).getTime()) / 1000));
    },
    syncEnded(result) {
      syncRuns.inc({ result });
    },
    retentionDeleted(kind, rows) {
      if (rows > 0) retentionRows.inc({ kind }, rows);
    },
    rollupFolded(result, seconds) {
      rollupFold.observe(seconds);
      rollupFolds.inc({ result });
    },
  };
}

const CLUSTER_METRICS_REQ = 'masivo:cluster-metrics';
const CLUSTER_METRICS_RES = 'masivo:cluster-metrics-res';
/** Longer than prom-client's own 5 s wait for the slowest process. */
const CLUSTER_METRICS_TIMEOUT_MS = 6_000;

interface ClusterMetricsAnswer {
  type: typeof CLUSTER_METRICS_RES;
  id: number;
  text?: string;
  error?: string;
}

let nextRequest = 0;
const waiting = new Map<number, (answer: ClusterMetricsAnswer) => void>();

/**
 * A scrape lands on whichever API process the kernel hands the connection to: that process asks
 * the primary, which collects every process's registry and sums them (AggregatorRegistry).
 */
function askPrimaryForClusterMetrics(): Promise<string> {
  if (waiting.size === 0) process.on('message', onPrimaryAnswer);
  const id = nextRequest++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => settle({ type: CLUSTER_METRICS_RES, id, error: 'el proceso principal no respondió' }), CLUSTER_METRICS_TIMEOUT_MS);
    const settle = (answer: ClusterMetricsAnswer) => {
      clearTimeout(timer);
      waiting.delete(id);
      if (waiting.size === 0) process.off('message', onPrimaryAnswer);
      if (answer.text !== undefined) resolve(answer.text);
      else reject(new Error(`métricas del clúster: ${answer.error ?? 'sin respuesta'}`));
    };
    waiting.set(id, settle);
    process.send!({ type: CLUSTER_METRICS_REQ, id });
  });
}

function onPrimaryAnswer(message: unknown) {
  const m = message as Partial<ClusterMetricsAnswer> | null;
  if (m?.type === CLUSTER_METRICS_RES && typeof m.id === 'number') waiting.get(m.id)?.(m as ClusterMetricsAnswer);
}

/** The primary of an API cluster: answers its processes' requests for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    const m = message as { type?: string; id?: number } | null;
    if (m?.type !== CLUSTER_METRICS_REQ || typeof m.id !== 'number') return;
    const id = m.id;
    aggregator.clusterMetrics().then(
      (text) => send(worker, { type: CLUSTER_METRICS_RES, id, text }),
      (err: Error) => send(worker, { type: CLUSTER_METRICS_RES, id, error: err.message }),
    );
  });
}

function send(worker: Worker, answer: ClusterMetricsAnswer) {
  if (worker.isConnected()) worker.send(answer);
}
