import { z } from 'zod';
import { kommoHookBodySchema, type KommoHookLead } from '@masivo/contract/kommo-inbound';
import type { KommoEvent } from '../../integrations/kommo/hook-api';
import type { KommoContact } from '../../integrations/kommo/types';
import type { LeadStageEvent } from './lead-events';

/** What the catch-up reads and puts in the inbox (`source: 'catchup'`). */
export const CATCHUP_EVENT_TYPES = ['lead_status_changed', 'lead_added', 'contact_deleted'] as const;

export interface CatchupBody {
  events?: KommoEvent[];
  contacts?: KommoContact[];
}

/** A contact to refresh by id (webhooks carry ids only), one read already (catch-up), or one gone. */
export type ContactAction = { kind: 'lookup' } | { kind: 'data'; contact: KommoContact } | { kind: 'delete' };

export interface RowWork {
  /** In the order Kommo told them: a later action on the same contact wins. */
  contacts: Array<[number, ContactAction]>;
  leads: LeadStageEvent[];
}

export interface InboxRow {
  id: number;
  source: 'webhook' | 'catchup';
  body: unknown;
  /** Unix seconds: the time of a lead change whose webhook carries none. */
  receivedAt: number;
}

const catchupBodySchema = z.object({
  events: z
    .array(
      z.object({
        id: z.string(),
        type: z.string(),
        entityId: z.number().int().positive(),
        entityType: z.string(),
        createdAt: z.number().int().min(0),
        statusAfter: z.object({ id: z.number().int().positive(), pipelineId: z.number().int().positive() }).nullable(),
        statusBefore: z.object({ id: z.number().int().positive(), pipelineId: z.number().int().positive() }).nullable(),
      }),
    )
    .optional(),
  contacts: z.array(z.looseObject({ id: z.number().int().positive() })).optional(),
});

/** Throws on a body that does not parse: the worker records the row as failed and goes on. */
export function workOf(row: InboxRow): RowWork {
  return row.source === 'webhook' ? webhookWork(row) : catchupWork(row);
}

function webhookWork(row: InboxRow): RowWork {
  const body = kommoHookBodySchema.parse(row.body);
  const contacts: RowWork['contacts'] = [];
  for (const c of body.contacts?.add ?? []) contacts.push([c.id, { kind: 'lookup' }]);
  for (const c of body.contacts?.update ?? []) contacts.push([c.id, { kind: 'lookup' }]);
  for (const c of body.contacts?.delete ?? []) contacts.push([c.id, { kind: 'delete' }]);
  const at = (l: KommoHookLead, created: boolean) =>
    (created ? (l.created_at ?? l.updated_at ?? l.last_modified) : (l.updated_at ?? l.last_modified)) ?? row.receivedAt;
  const leads: LeadStageEvent[] = [
    ...(body.leads?.status ?? []).map((l) => ({
      leadId: l.id,
      pipelineId: l.pipeline_id,
      statusId: l.status_id,
      oldStatusId: l.old_status_id ?? null,
      on: 'enter' as const,
      at: at(l, false),
      source: 'webhook' as const,
    })),
    ...(body.leads?.add ?? []).map((l) => ({
      leadId: l.id,
      pipelineId: l.pipeline_id,
      statusId: l.status_id,
      oldStatusId: null,
      on: 'created' as const,
      at: at(l, true),
      source: 'webhook' as const,
    })),
  ];
  return { contacts, leads };
}

function catchupWork(row: InboxRow): RowWork {
  const body = catchupBodySchema.parse(row.body);
  const contacts: RowWork['contacts'] = (body.contacts ?? []).map((c) => [c.id, { kind: 'data', contact: c as unknown as KommoContact }]);
  const leads: LeadStageEvent[] = [];
  for (const e of body.events ?? []) {
    if (e.type === 'contact_deleted') contacts.push([e.entityId, { kind: 'delete' }]);
    // A stage change or new lead without its stage in the log names no move the automation can use.
    else if ((e.type === 'lead_status_changed' || e.type === 'lead_added') && e.statusAfter) {
      leads.push({
        leadId: e.entityId,
        pipelineId: e.statusAfter.pipelineId,
        statusId: e.statusAfter.id,
        oldStatusId: e.statusBefore?.id ?? null,
        on: e.type === 'lead_added' ? 'created' : 'enter',
        at: e.createdAt,
        source: 'catchup',
      });
    }
  }
  return { contacts, leads };
}
