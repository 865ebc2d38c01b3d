import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * Configuration is read once from the environment (DECISIONS.md §4). The names are a
 * contract with tests, the demo and deployments, so they are never renamed.
 */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  APP_SECRET: z.string().min(16).optional(),
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  KOMMO_BASE_URL: z
    .string()
    .default('https://{subdomain}.kommo.com')
    .refine((v) => v.includes('{subdomain}'), 'KOMMO_BASE_URL debe contener {subdomain}'),
  KOMMO_RPS: z.coerce.number().positive().max(50).default(7),
  WHATSAPP_GRAPH_URL: z.string().url().default('https://graph.facebook.com/v23.0'),
  WHATSAPP_APP_SECRET: z.string().min(1).optional(),
  PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
  const dataDir = resolve(cfg.DATA_DIR);
  return {
    ...cfg,
    DATA_DIR: dataDir,
    WHATSAPP_GRAPH_URL: cfg.WHATSAPP_GRAPH_URL.replace(/\/+$/, ''),
    APP_SECRET: cfg.APP_SECRET ?? readOrCreateSecret(dataDir),
  };
}

/** A generated secret must survive restarts, or every session and stored token is lost. */
function readOrCreateSecret(dataDir: string): string {
  const file = resolve(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}
