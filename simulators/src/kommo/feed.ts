// What an account tells the outside world about its changes: every lead or contact change is
// logged in the event feed (GET /api/v4/events) and posted to the webhook destinations whose
// settings include it. Both carry the same unix second, so webhooks and events can be matched.
import type { KommoAccount } from './account';
import { crmOf, type Lead, type LeadMove } from './crm';
import { EventLog } from './events';
import type { KommoWebhookDispatcher } from './webhook-delivery';
import { contactItem, contactsBody, deletedContactItem, leadItem, leadsBody } from './webhook-payloads';
import { WebhookSubscriptions, type WebhookSetting } from './webhook-subscriptions';

/** A mass contact import (addContacts) is posted in POSTs of at most this many contacts. */
export const CONTACTS_PER_POST = 100;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class AccountFeed {
  readonly events = new EventLog();
  readonly hooks: WebhookSubscriptions;

  constructor(
    private readonly account: KommoAccount,
    private readonly dispatcher: KommoWebhookDispatcher,
    /** The account's base URL on the simulator (`account[_links][self]`). */
    private readonly self: () => string,
  ) {
    this.hooks = new WebhookSubscriptions(account.currentUserId, account.id);
  }

  private send(setting: WebhookSetting, body: () => string): void {
    const destinations = this.hooks.destinationsFor(setting);
    if (destinations.length === 0) return;
    const encoded = body();
    for (const d of destinations) this.dispatcher.post(d, encoded);
  }

  private contactEntries(ids: number[]): unknown[] {
    const crm = crmOf(this.account);
    return ids.map((id) => contactItem(this.account, this.account.resolve(id), crm.leadIdsOf(id)));
  }

  contactsAdded(ids: number[]): void {
    const by = this.account.currentUserId;
    for (const id of ids) {
      this.events.add({ type: 'contact_added', entityId: id, entityType: 'contact', createdBy: by, createdAt: this.account.updatedAtOf(id), valueAfter: [], valueBefore: [] });
    }
    for (const part of chunks(ids, CONTACTS_PER_POST)) {
      this.send('add_contact', () => contactsBody(this.account, this.self(), 'add', this.contactEntries(part)));
    }
  }

  /** One POST per contact; Kommo logs edits as field events, which the feed does not model. */
  contactsUpdated(ids: number[]): void {
    for (const id of ids) this.send('update_contact', () => contactsBody(this.account, this.self(), 'update', this.contactEntries([id])));
  }

  contactDeleted(id: number, at: number): void {
    this.events.add({ type: 'contact_deleted', entityId: id, entityType: 'contact', createdBy: this.account.currentUserId, createdAt: at, valueAfter: [], valueBefore: [] });
    this.send('delete_contact', () => contactsBody(this.account, this.self(), 'delete', [deletedContactItem(id)]));
  }

  contactRestored(id: number): void {
    this.events.add({ type: 'contact_restored', entityId: id, entityType: 'contact', createdBy: this.account.currentUserId, createdAt: this.account.updatedAtOf(id), valueAfter: [], valueBefore: [] });
    this.send('restore_contact', () => contactsBody(this.account, this.self(), 'restore', this.contactEntries([id])));
  }

  leadAdded(lead: Lead): void {
    this.events.add({ type: 'lead_added', entityId: lead.id, entityType: 'lead', createdBy: this.account.currentUserId, createdAt: lead.createdAt, valueAfter: [], valueBefore: [] });
    this.send('add_lead', () => leadsBody(this.account, this.self(), 'add', [leadItem(this.account, lead)]));
  }

  /**
   * Stage moves: one lead_status_changed event each; `status` (status_lead) and `update`
   * (update_lead, a stage change is an edit too) POSTs carrying `perPost` leads each.
   */
  leadsMoved(moves: LeadMove[], perPost = 1): void {
    for (const m of moves) {
      this.events.add({
        type: 'lead_status_changed',
        entityId: m.lead.id,
        entityType: 'lead',
        createdBy: this.account.currentUserId,
        createdAt: m.lead.updatedAt,
        valueAfter: [{ lead_status: { id: m.lead.statusId, pipeline_id: m.lead.pipelineId } }],
        valueBefore: [{ lead_status: { id: m.oldStatusId, pipeline_id: m.oldPipelineId } }],
      });
    }
    for (const part of chunks(moves, Math.max(1, perPost))) {
      const items = () => part.map((m) => leadItem(this.account, m.lead, { statusId: m.oldStatusId, pipelineId: m.oldPipelineId }));
      this.send('status_lead', () => leadsBody(this.account, this.self(), 'status', items()));
      this.send('update_lead', () => leadsBody(this.account, this.self(), 'update', items()));
    }
  }

  /** A name or price edit (PATCH /leads without a stage change). */
  leadEdited(lead: Lead): void {
    this.send('update_lead', () => leadsBody(this.account, this.self(), 'update', [leadItem(this.account, lead)]));
  }
}
