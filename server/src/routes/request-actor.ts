import type { FastifyRequest } from 'fastify';
import type { ActivityActor } from '../services/activity/activity-log';

/** The member behind a request, as the activity log records them. */
export function actorOf(request: FastifyRequest): ActivityActor {
  const agent = request.headers['user-agent'];
  return {
    orgId: request.orgId,
    userId: request.userId || null,
    role: request.role,
    ip: request.ip,
    userAgent: typeof agent === 'string' ? agent.slice(0, 300) : null,
  };
}
