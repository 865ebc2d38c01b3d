import type { GraphClient } from './graph-client';

/** A template as Graph lists it (`GET /{waba_id}/message_templates`). */
export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  /** Kept as Meta sends them: carousel cards, offers and newer keys included. */
  components?: Array<{ type: string; format?: string; text?: string; example?: unknown; buttons?: unknown[]; [key: string]: unknown }>;
  rejected_reason?: string | null;
  parameter_format?: string;
  quality_score?: { score?: string; date?: number } | null;
}

interface TemplatePage {
  data?: GraphTemplate[];
  paging?: { cursors?: { before?: string; after?: string }; next?: string };
}

const TEMPLATE_FIELDS = 'id,name,language,status,category,components,rejected_reason,parameter_format,quality_score';
const PAGE_SIZE = 100;
/** A WABA holds at most 6,000 templates; this bounds a cursor loop that never ends. */
const MAX_PAGES = 100;

/** Every template of a WABA, following `paging.next` / `cursors.after` until the last page. */
export async function listAllTemplates(client: GraphClient, token: string, wabaId: string): Promise<GraphTemplate[]> {
  const all: GraphTemplate[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await client.call<TemplatePage>({
      method: 'GET',
      path: `/${encodeURIComponent(wabaId)}/message_templates`,
      token,
      query: { fields: TEMPLATE_FIELDS, limit: PAGE_SIZE, after },
    });
    all.push(...(res.data ?? []));
    const next = res.paging?.cursors?.after;
    // Graph only includes `paging.next` when another page exists.
    if (!res.paging?.next || !next || next === after || !res.data?.length) break;
    after = next;
  }
  return all;
}

export interface CreateTemplateRequest {
  name: string;
  language: string;
  category: string;
  components: Array<Record<string, unknown>>;
  /** How placeholders are written: `{{1}}` (POSITIONAL) or `{{first_name}}` (NAMED). */
  parameter_format?: 'POSITIONAL' | 'NAMED';
  /** Time-to-live; for MARKETING 12 h to 30 days, honoured by the Marketing Messages API. */
  message_send_ttl_seconds?: number;
}

/**
 * POST /{template_id} with `message_send_ttl_seconds`: Meta's edit of a template's TTL (null: back
 * to Meta's default, sent as -1, the documented "default" value).
 */
export function updateTemplateTtl(client: GraphClient, token: string, metaTemplateId: string, ttlSeconds: number | null) {
  return client.call<{ success?: boolean }>({
    method: 'POST',
    path: `/${encodeURIComponent(metaTemplateId)}`,
    token,
    body: { message_send_ttl_seconds: ttlSeconds ?? -1 },
  });
}

export function createTemplate(client: GraphClient, token: string, wabaId: string, body: CreateTemplateRequest) {
  return client.call<{ id: string; status?: string; category?: string }>({
    method: 'POST',
    path: `/${encodeURIComponent(wabaId)}/message_templates`,
    token,
    body: { ...body, parameter_format: body.parameter_format ?? 'POSITIONAL' },
  });
}

/** Deletes one language version when hsm_id is known, else every template with that name. */
export function deleteTemplate(client: GraphClient, token: string, wabaId: string, name: string, hsmId?: string | null) {
  return client.call<{ success?: boolean }>({
    method: 'DELETE',
    path: `/${encodeURIComponent(wabaId)}/message_templates`,
    token,
    query: { name, hsm_id: hsmId ?? undefined },
  });
}
