import type { FastifyRequest } from 'fastify';
import { recordActivity, type ActivityActor, type ActivityEntry } from '../services/activity/activity-log';

/** The member (or the API key) behind a request, as the activity log records them. */
export function actorOf(request: FastifyRequest): ActivityActor {
  const agent = request.headers['user-agent'];
  return {
    orgId: request.orgId,
    userId: request.userId || null,
    role: request.role,
    ip: request.ip,
    userAgent: typeof agent === 'string' ? agent.slice(0, 300) : null,
    apiKey: request.apiKey ? { id: request.apiKey.id, name: request.apiKey.name } : null,
  };
}

/**
 * Records what the request's member just did. Called after the action succeeded, so a refused
 * or failed call leaves no "done" entry; awaited, so the answer only comes once it is kept. An
 * entry that cannot be stored is logged as an error rather than answered as a failure: the
 * action is done, and an error answer would invite the member to do it twice.
 */
export async function logActivity(request: FastifyRequest, entry: ActivityEntry): Promise<void> {
  await recordActivity(request.server.ctx.db, actorOf(request), entry).catch((err: unknown) =>
    request.log.error({ err, action: entry.action }, 'activity log: entry not stored'),
  );
}

/**
 * An export's rows, recorded in the log when the stream ends or is cut short: the entry then
 * carries the row count (known only at the end), and whether the download completed. The log
 * is append-only, so the entry cannot be written first and completed later.
 */
export async function* loggedExport(
  request: FastifyRequest,
  rows: AsyncIterable<string>,
  entryOf: (complete: boolean) => ActivityEntry,
): AsyncGenerator<string> {
  let complete = false;
  try {
    yield* rows;
    complete = true;
  } finally {
    await logActivity(request, entryOf(complete));
  }
}
