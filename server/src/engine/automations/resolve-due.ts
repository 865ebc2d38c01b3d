import { sql } from 'drizzle-orm';
import {
  CONTACT_GONE,
  LEAD_GONE,
  LEFT_STAGE,
  NO_MAIN_CONTACT,
  REENTRY,
  STALE_AFTER_SECONDS,
  STALE_EVENT,
  type AutomationTrigger,
  type LeadFields,
} from '@masivo/contract/automation-trigger';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import type { KommoLeadLookup, LookedUpLead } from '../../integrations/kommo/lead-lookup';
import type { KommoCredentials } from '../../integrations/kommo/types';
import { accountCountry } from '../../lib/phone';
import type { SecretBox } from '../../lib/secret-box';
import { classifiedAudienceCtes, DUPLICATE_PHONE, frequencyCapOf, REASON_MESSAGE } from '../../services/campaigns/audience-classifier';
import { assignRecipientZones } from '../../services/campaigns/recipient-zones-freeze';
import { resolveWaiting, type WaitingOutcome } from '../../services/campaigns/recipient-transitions';
import { mapContact } from '../kommo-sync/contact-mapper';
import { upsertContacts } from '../kommo-sync/contact-writer';
import type { ExclusionReason } from '@masivo/contract/preflight';

export interface ResolveDeps {
  db: Db;
  secrets: SecretBox;
  lookup: KommoLeadLookup;
  log: (msg: string, err?: unknown) => void;
  signal?: AbortSignal;
}

interface DueEvent {
  id: number;
  campaign_id: number;
  user_id: number;
  kommo_account_id: number;
  lead_id: number;
  pipeline_id: number;
  status_id: number;
  at: number;
  late_s: number;
  recipient_id: number;
  automation_trigger: AutomationTrigger | string;
  marketing: boolean;
}

const ACCOUNT_GONE = 'La cuenta Kommo de la campaña ya no existe';
/** Events resolved per pass; the next pass (a second later at most) takes the rest. */
const BATCH = 500;
const NO_FILTER = { searchQuery: '', tags: [], tagOperator: 'OR' as const, excludedTags: [], customFieldFilters: {} };

type Decision = { skip: string } | { contactId: number; lead: LookedUpLead };

/**
 * The due events of switched-on automatic campaigns, each settled once: the lead is looked up
 * in Kommo (100 a request, at high priority), then the event's recipient becomes pending (the
 * sender's, which applies every rule again when it sends: blacklist, opt-outs, cap, hours,
 * messaging limit, template pauses, 131049) or skipped with the reason. The main contact is
 * classified by the audience classifier, the freeze's rules (no valid phone, blacklist and
 * opt-outs, US marketing, frequency cap). A paused campaign's events wait; on resume, one more
 * than 24 h past its due time is skipped «vencido». A Kommo failure leaves the account's events
 * waiting for the next pass. Returns the campaigns that got recipients to send.
 */
export async function resolveDueEvents(deps: ResolveDeps): Promise<number[]> {
  const { db } = deps;
  const due = await rowsOf<DueEvent>(
    db,
    sql`select e.id, e.campaign_id, e.user_id, e.kommo_account_id, e.lead_id, e.pipeline_id, e.status_id,
          extract(epoch from e.event_at)::bigint as at, extract(epoch from now() - e.due_at)::float8 as late_s,
          e.recipient_id, c.automation_trigger, upper(coalesce(t.category, '')) = 'MARKETING' as marketing
        from automation_events e
        join campaigns c on c.id = e.campaign_id and c.status = 'sending'
        left join templates t on t.id = c.template_id
        where e.resolved_at is null and e.due_at <= now() and e.recipient_id is not null
        order by e.due_at, e.id
        limit ${BATCH}`,
  );
  if (!due.length) return [];
  const events = due.map((e) => ({
    ...e,
    id: Number(e.id),
    campaign_id: Number(e.campaign_id),
    user_id: Number(e.user_id),
    kommo_account_id: Number(e.kommo_account_id),
    lead_id: Number(e.lead_id),
    pipeline_id: Number(e.pipeline_id),
    status_id: Number(e.status_id),
    at: Number(e.at),
    late_s: Number(e.late_s),
    recipient_id: Number(e.recipient_id),
    trigger: (typeof e.automation_trigger === 'string' ? JSON.parse(e.automation_trigger) : e.automation_trigger) as AutomationTrigger,
  }));
  const decisions = new Map<number, Decision>();
  const fresh = events.filter((e) => {
    if (e.late_s <= STALE_AFTER_SECONDS) return true;
    decisions.set(e.id, { skip: STALE_EVENT });
    return false;
  });
  const byAccount = new Map<number, typeof fresh>();
  for (const e of fresh) byAccount.set(e.kommo_account_id, [...(byAccount.get(e.kommo_account_id) ?? []), e]);
  for (const [accountId, list] of byAccount) {
    try {
      await decideForAccount(deps, accountId, list, decisions);
    } catch (err) {
      // Kommo unreachable or limiting: these events wait for the next pass, nothing is decided.
      deps.log(`automatic campaigns: Kommo look-up of account ${accountId} failed`, err);
      for (const e of list) decisions.delete(e.id);
    }
  }
  await skipReentries(db, events, decisions);
  const outcomes = await classify(db, events, decisions);
  const sending = await resolveWaiting(db, outcomes);
  for (const campaignId of new Set(outcomes.map((o) => events.find((e) => e.recipient_id === o.recipientId)!.campaign_id))) {
    await assignRecipientZones(db, campaignId);
  }
  return sending;
}

async function decideForAccount(deps: ResolveDeps, accountId: number, list: Array<DueEventOf>, decisions: Map<number, Decision>) {
  const { db } = deps;
  const [account] = await rowsOf<{ user_id: number; subdomain: string; access_token_enc: string; phone_field_id: number; country: string | null; default_country: string | null; sync_generation: number }>(
    db,
    sql`select user_id, subdomain, access_token_enc, phone_field_id, country, default_country, sync_generation
        from kommo_accounts where id = ${accountId} and user_id = ${list[0]!.user_id}`,
  );
  if (!account) {
    for (const e of list) decisions.set(e.id, { skip: ACCOUNT_GONE });
    return;
  }
  const creds: KommoCredentials = { subdomain: account.subdomain, accessToken: deps.secrets.open(account.access_token_enc) };
  const leads = new Map((await deps.lookup.leadsWithContacts(creds, list.map((e) => e.lead_id), deps.signal)).map((l) => [l.id, l]));
  const wanted = new Set<number>();
  for (const e of list) {
    const lead = leads.get(e.lead_id);
    if (!lead) decisions.set(e.id, { skip: LEAD_GONE });
    else if (lead.statusId !== e.status_id || lead.pipelineId !== e.pipeline_id) decisions.set(e.id, { skip: LEFT_STAGE });
    else if (lead.mainContactId === null) decisions.set(e.id, { skip: NO_MAIN_CONTACT });
    else wanted.add(lead.mainContactId);
  }
  if (!wanted.size) return;
  let local = await localContacts(db, account.user_id, accountId, [...wanted]);
  const missing = [...wanted].filter((id) => !local.has(id));
  if (missing.length && deps.lookup.contactsByIds) {
    // Not synced yet (the inbound side keeps contacts fresh; a brand-new lead's contact may not be
    // there): fetched and stored as the sync stores them, then read like any other.
    const fetched = await deps.lookup.contactsByIds(creds, missing, deps.signal);
    const mapper = { phoneFieldId: account.phone_field_id, country: accountCountry({ defaultCountry: account.default_country, country: account.country }) };
    await upsertContacts(db, { userId: account.user_id, accountId, generation: Number(account.sync_generation), contacts: fetched.map((c) => mapContact(c, mapper)) });
    local = await localContacts(db, account.user_id, accountId, [...wanted]);
  }
  for (const e of list) {
    if (decisions.has(e.id)) continue;
    const lead = leads.get(e.lead_id)!;
    const contactId = local.get(lead.mainContactId!);
    decisions.set(e.id, contactId === undefined ? { skip: CONTACT_GONE } : { contactId, lead });
  }
}

type DueEventOf = {
  id: number;
  campaign_id: number;
  user_id: number;
  kommo_account_id: number;
  lead_id: number;
  pipeline_id: number;
  status_id: number;
  at: number;
  recipient_id: number;
  marketing: boolean;
  trigger: AutomationTrigger;
};

/** Kommo contact id → local contact id. */
async function localContacts(db: Db, userId: number, accountId: number, kommoIds: number[]): Promise<Map<number, number>> {
  const rows = await rowsOf<{ id: number; kommo_id: number }>(
    db,
    sql`select id, kommo_id from contacts where user_id = ${userId} and account_id = ${accountId}
        and kommo_id in (select jsonb_array_elements_text(${jsonParam(kommoIds)})::bigint)`,
  );
  return new Map(rows.map((r) => [Number(r.kommo_id), Number(r.id)]));
}

/**
 * Re-entry: a lead that left the stage and came back within `reentry_days` of an entry whose
 * message was sent (or is on its way) gets nothing more. Earlier entries of the same batch count
 * as they are decided, in the order of the moves.
 */
async function skipReentries(db: Db, events: DueEventOf[], decisions: Map<number, Decision>) {
  const candidates = events.filter((e) => e.trigger.reentry_days > 0 && decisions.has(e.id) && !('skip' in decisions.get(e.id)!));
  if (!candidates.length) return;
  const pairs = candidates.map((e) => ({ campaign_id: e.campaign_id, lead_id: e.lead_id }));
  const prior = await rowsOf<{ campaign_id: number; lead_id: number; at: number }>(
    db,
    sql`select a.campaign_id, a.lead_id, extract(epoch from a.event_at)::bigint as at
        from automation_events a join campaign_recipients r on r.id = a.recipient_id
        where (a.campaign_id, a.lead_id) in (select campaign_id, lead_id from jsonb_to_recordset(${jsonParam(pairs)}) as p(campaign_id int, lead_id bigint))
          and r.status not in ('waiting', 'skipped', 'failed')`,
  );
  const sentAt = new Map<string, number[]>();
  const key = (c: number, l: number) => `${c}:${l}`;
  for (const p of prior) sentAt.set(key(Number(p.campaign_id), Number(p.lead_id)), [...(sentAt.get(key(Number(p.campaign_id), Number(p.lead_id))) ?? []), Number(p.at)]);
  for (const e of [...candidates].sort((a, b) => a.at - b.at || a.id - b.id)) {
    const k = key(e.campaign_id, e.lead_id);
    const window = e.trigger.reentry_days * 86_400;
    if ((sentAt.get(k) ?? []).some((at) => at < e.at && at >= e.at - window)) decisions.set(e.id, { skip: REENTRY });
    else sentAt.set(k, [...(sentAt.get(k) ?? []), e.at]);
  }
}

/** Each campaign's contacts through the audience classifier; the decisions become outcomes. */
async function classify(db: Db, events: DueEventOf[], decisions: Map<number, Decision>): Promise<WaitingOutcome[]> {
  const outcomes: WaitingOutcome[] = [];
  const byCampaign = new Map<number, DueEventOf[]>();
  for (const e of events) {
    const d = decisions.get(e.id);
    if (!d) continue;
    if ('skip' in d) outcomes.push(skipped(e, d.skip));
    else byCampaign.set(e.campaign_id, [...(byCampaign.get(e.campaign_id) ?? []), e]);
  }
  for (const list of byCampaign.values()) {
    const first = list[0]!;
    const ids = [...new Set(list.map((e) => (decisions.get(e.id) as { contactId: number }).contactId))];
    const classified = classifiedAudienceCtes({
      userId: first.user_id,
      kommoAccountId: first.kommo_account_id,
      filters: NO_FILTER,
      marketing: first.marketing,
      cap: first.marketing ? await frequencyCapOf(db, first.user_id) : null,
      templateUnfit: false,
      contactIdsOf: ids,
    });
    const rows = await rowsOf<{ contact_id: number; phone: string | null; phone_key: string | null; known_bsuid: string | null; reason: string | null }>(
      db,
      sql`with ${classified} select contact_id, phone, phone_key, known_bsuid, reason from classified`,
    );
    const verdict = new Map(rows.map((r) => [Number(r.contact_id), r]));
    const taken = new Set<string>();
    for (const e of list.sort((a, b) => a.at - b.at || a.id - b.id)) {
      const d = decisions.get(e.id) as { contactId: number; lead: LookedUpLead };
      const v = verdict.get(d.contactId);
      const lead: LeadFields = { name: d.lead.name, price: d.lead.price, custom_fields: d.lead.customFields };
      const base = { eventId: e.id, recipientId: e.recipient_id, contactId: d.contactId, phone: v?.phone ?? null, phoneKey: v?.phone_key ?? null, bsuid: v?.known_bsuid ?? null, lead };
      const reason = v ? v.reason : 'invalid_phone';
      // Two leads of one person moving at once: one message.
      const repeated = reason === null && taken.has(v!.phone_key ?? '');
      if (reason === null && !repeated) taken.add(v!.phone_key ?? '');
      outcomes.push(
        reason === null && !repeated
          ? { ...base, status: 'pending', message: null }
          : { ...base, status: 'skipped', message: repeated ? DUPLICATE_PHONE : REASON_MESSAGE[reason as ExclusionReason] ?? reason },
      );
    }
  }
  return outcomes;
}

function skipped(e: DueEventOf, message: string): WaitingOutcome {
  return { eventId: e.id, recipientId: e.recipient_id, status: 'skipped', message, contactId: null, phone: null, phoneKey: null, bsuid: null, lead: null };
}
