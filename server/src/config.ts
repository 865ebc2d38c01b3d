import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';

/** Days a kind of data is kept (engine/data-retention.ts): a whole number from 1 to 3,650. */
const retentionDays = (name: string, days: number) => {
  const message = `${name}: un número entero de días entre 1 y 3650`;
  return z.coerce.number({ error: message }).int(message).min(1, message).max(3650, message).default(days);
};

/**
 * Configuration is read once from the environment. The names are a
 * contract with tests, the demo and deployments, so they are never renamed.
 */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  /**
   * A read replica of DATABASE_URL (PostgreSQL only): lists, counts, charts and exports read
   * from it (`ctx.readDb`); unset (or blank), every read stays on DATABASE_URL.
   */
  DATABASE_READ_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => !v || /^postgres(ql)?:\/\/\S+$/.test(v), 'DATABASE_READ_URL: una dirección postgres://… de la réplica de lectura'),
  DATA_DIR: z.string().default('./data'),
  APP_SECRET: z.string().min(16).optional(),
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  /**
   * ROLE=api only: how many API processes share PORT (Node's cluster module, server/src/cluster.ts);
   * 1 runs the API in this process, as before.
   */
  API_PROCESSES: z.coerce
    .number({ error: 'API_PROCESSES: un número entero de procesos entre 1 y 64' })
    .int('API_PROCESSES: un número entero de procesos entre 1 y 64')
    .min(1, 'API_PROCESSES: un número entero de procesos entre 1 y 64')
    .max(64, 'API_PROCESSES: un número entero de procesos entre 1 y 64')
    .default(1),
  KOMMO_BASE_URL: z
    .string()
    .default('https://{subdomain}.kommo.com')
    .refine((v) => v.includes('{subdomain}'), 'KOMMO_BASE_URL debe contener {subdomain}'),
  KOMMO_RPS: z.coerce.number().positive().max(50).default(7),
  WHATSAPP_GRAPH_URL: z.string().url().default('https://graph.facebook.com/v23.0'),
  WHATSAPP_APP_SECRET: z.string().min(1).optional(),
  /** The Meta app's id: template media samples go through its Resumable Upload API. */
  WHATSAPP_APP_ID: z
    .string()
    .regex(/^\d{1,20}$/, 'WHATSAPP_APP_ID: el id numérico de la app de Meta')
    .optional(),
  PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  /**
   * The mail server invitations go through (`smtp://user:pass@host:587`, `smtps://…:465`).
   * Unset, no mail is sent and the members screen shows each invitation's link to pass on.
   */
  SMTP_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => !v || /^smtps?:\/\/[^\s]+$/.test(v), 'SMTP_URL: una dirección smtp:// o smtps://'),
  /** The sender of those mails (blank: the default, so compose can pass an unset variable). */
  MAIL_FROM: z
    .string()
    .trim()
    .max(300)
    .optional()
    .transform((v) => v || 'Mensajes Masivos <no-reply@localhost>'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Which proxies may set X-Forwarded-For: unset trusts nobody (the socket address is the
   * client), a number trusts that many hops, otherwise a comma-separated list of addresses or
   * CIDRs. Trusting everybody would let any client pick the address it is throttled under.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .optional()
    .transform((v, c) => {
      if (!v) return false as const;
      if (/^\d{1,2}$/.test(v)) return Number(v);
      const list = v.split(',').map((s) => s.trim()).filter(Boolean);
      if (!list.length || list.some((s) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s))) {
        c.addIssue({ code: 'custom', message: 'TRUST_PROXY: un número de saltos o una lista de direcciones/CIDR separadas por comas' });
        return z.NEVER;
      }
      return list;
    }),
  /** PostgreSQL: statements are cancelled past this many milliseconds (0 = never); see db/client.ts. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** PostgreSQL: how long a request waits for a pooled connection before failing (0 = forever). */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Bearer token for GET /metrics; unset, only this machine may scrape it (plugins/metrics.ts). */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN: al menos 16 caracteres').optional(),
  /** Sign-ups allowed per client address per hour; each one costs an argon2 hash. */
  REGISTER_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  /** 1 lets media links reach private, loopback and link-local addresses (tests and the demo only). */
  MEDIA_ALLOW_PRIVATE_HOSTS: z
    .enum(['0', '1'], { error: 'MEDIA_ALLOW_PRIVATE_HOSTS: 0 o 1' })
    .default('0')
    .transform((v) => v === '1'),
  /**
   * 1 lets outbound webhooks reach private, loopback and link-local addresses and plain http
   * (tests only); 0 keeps them to https on public addresses, checked after DNS resolution.
   */
  WEBHOOKS_ALLOW_PRIVATE_HOSTS: z
    .enum(['0', '1'], { error: 'WEBHOOKS_ALLOW_PRIVATE_HOSTS: 0 o 1' })
    .default('0')
    .transform((v) => v === '1'),
  /**
   * OpenTelemetry (lib/tracing.ts): set, traces go to `<endpoint>/v1/traces` over OTLP/HTTP;
   * unset (or blank), tracing is off and its SDK is never loaded.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => !v || /^https?:\/\/[^\s]+$/.test(v), 'OTEL_EXPORTER_OTLP_ENDPOINT: una dirección http:// o https://'),
  /** The `service.name` of this process's spans. */
  OTEL_SERVICE_NAME: z
    .string()
    .trim()
    .max(200)
    .optional()
    .transform((v) => v || 'masivo'),
  /**
   * Retention (engine/data-retention.ts, docs/OPERATIONS.md "Retention"), in days: what Meta
   * said about accounts and templates (`meta_events`), the messages people wrote to the
   * numbers (`inbound_messages`), webhook rows the inboxes set aside (`webhook_events`,
   * `kommo_inbox`), and the items of finished Kommo write-backs.
   */
  RETENTION_META_EVENTS_DAYS: retentionDays('RETENTION_META_EVENTS_DAYS', 90),
  RETENTION_INBOUND_MESSAGES_DAYS: retentionDays('RETENTION_INBOUND_MESSAGES_DAYS', 400),
  RETENTION_WEBHOOK_INBOX_DAYS: retentionDays('RETENTION_WEBHOOK_INBOX_DAYS', 7),
  RETENTION_WRITEBACK_DAYS: retentionDays('RETENTION_WRITEBACK_DAYS', 30),
});

export type Config = Omit<z.infer<typeof envSchema>, 'APP_SECRET' | 'WHATSAPP_GRAPH_URL'> & {
  APP_SECRET: string;
  WHATSAPP_GRAPH_URL: string;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Configuración inválida:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  // Several processes must share one secret, or sessions and sealed tokens fail at random.
  if (cfg.ROLE !== 'all' && !cfg.APP_SECRET) {
    throw new Error(`Configuración inválida:\n  APP_SECRET: es obligatorio con ROLE=${cfg.ROLE} (todos los procesos deben compartirlo)`);
  }
  // Several API processes share one database: the embedded one admits one process, and
  // background work has its own role (ROLE=worker), never copied into each API process.
  if (cfg.API_PROCESSES > 1 && cfg.ROLE !== 'api') {
    throw new Error(
      `Configuración inválida:\n  API_PROCESSES: más de un proceso de API solo con ROLE=api (con ROLE=${cfg.ROLE} el trabajo de fondo se repetiría en cada proceso; ejecútalo aparte con ROLE=worker)`,
    );
  }
  if (cfg.API_PROCESSES > 1 && !cfg.DATABASE_URL) {
    throw new Error('Configuración inválida:\n  API_PROCESSES: más de un proceso de API necesita DATABASE_URL (PostgreSQL): la base embebida admite un solo proceso');
  }
  const dataDir = resolve(cfg.DATA_DIR);
  return {
    ...cfg,
    DATA_DIR: dataDir,
    WHATSAPP_GRAPH_URL: cfg.WHATSAPP_GRAPH_URL.replace(/\/+$/, ''),
    APP_SECRET: cfg.APP_SECRET ?? readOrCreateSecret(dataDir),
  };
}

/** Shorter than this, a secret could be guessed, and every session forged with it. */
export const MIN_SECRET_FILE_LENGTH = 32;

/**
 * The data directory holds password hashes, contacts and sealed tokens: only the owner may
 * read it. Tightened also when it already exists with wider permissions.
 */
export function ensurePrivateDir(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** A generated secret must survive restarts, or every session and stored token is lost. */
export function readOrCreateSecret(dataDir: string): string {
  ensurePrivateDir(dataDir);
  const file = resolve(dataDir, 'app-secret');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    // An empty or truncated file would make the JWT key public: refuse rather than guess.
    if (secret.length < MIN_SECRET_FILE_LENGTH) {
      throw new Error(
        `El archivo ${file} no contiene un secreto válido (al menos ${MIN_SECRET_FILE_LENGTH} caracteres). ` +
          'Restáuralo desde una copia o bórralo para generar uno nuevo (las sesiones y los tokens guardados dejarán de valer).',
      );
    }
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return secret;
  }
  const secret = randomBytes(32).toString('base64url');
  writeFileAtomically(file, secret + '\n');
  return secret;
}

/** Temp file, fsync, rename, fsync of the directory: after a crash the file is whole or absent. */
function writeFileAtomically(file: string, content: string) {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dirFd = openSync(resolve(file, '..'), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
