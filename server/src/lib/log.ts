import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config';
import { logSerializers } from './log-serializers';

export type Log = Logger;

/**
 * The process's one logger: Fastify logs requests through it and the background work logs its
 * failures through it, so both obey LOG_LEVEL and the same redaction.
 */
export function createLog(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Log {
  return pino(
    {
      level: config.LOG_LEVEL,
      redact: ['req.headers.authorization', '*.access_token', '*.password', '*.token'],
      // No query strings and no database parameters in logs (personal data, tokens).
      serializers: logSerializers,
    },
    destination,
  );
}
