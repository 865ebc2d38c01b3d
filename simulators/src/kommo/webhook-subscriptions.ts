// An account's webhook subscriptions (GET / POST / DELETE /api/v4/webhooks). One subscription per
// destination: posting a destination again replaces its settings, as Kommo does.

/** Kommo's webhook actions (the `settings` values a subscription may list). */
export const WEBHOOK_SETTINGS = [
  'add_lead', 'update_lead', 'delete_lead', 'restore_lead', 'status_lead', 'responsible_lead', 'note_lead',
  'add_contact', 'update_contact', 'delete_contact', 'restore_contact', 'responsible_contact', 'note_contact',
  'add_company', 'update_company', 'delete_company', 'restore_company', 'responsible_company', 'note_company',
  'add_customer', 'update_customer', 'delete_customer', 'responsible_customer', 'note_customer',
  'add_task', 'update_task', 'delete_task', 'responsible_task',
  'add_talk', 'update_talk', 'add_chat_template_review',
] as const;

export type WebhookSetting = (typeof WEBHOOK_SETTINGS)[number];

/** Kommo allows at most 100 webhooks per account. */
export const MAX_WEBHOOKS = 100;

export interface Webhook {
  id: number;
  createdBy: number;
  createdAt: number;
  updatedAt: number;
  sort: number;
  disabled: boolean;
  destination: string;
  settings: WebhookSetting[];
}

export interface FieldError {
  code: string;
  path: string;
  detail: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Why a subscription body is refused (Kommo's validation errors), or an empty list. */
export function validateSubscription(body: unknown): FieldError[] {
  const b = (body ?? {}) as { destination?: unknown; settings?: unknown; sort?: unknown };
  const errors: FieldError[] = [];
  if (typeof b.destination !== 'string' || !isHttpUrl(b.destination)) {
    errors.push({ code: 'InvalidUrl', path: 'destination', detail: 'This value is not a valid URL.' });
  }
  if (!Array.isArray(b.settings) || b.settings.length === 0) {
    errors.push({ code: 'NotBlank', path: 'settings', detail: 'This value should not be blank.' });
  } else {
    b.settings.forEach((s, i) => {
      if (!WEBHOOK_SETTINGS.includes(s as WebhookSetting)) {
        errors.push({ code: 'NotSupportedChoice', path: `settings.${i}`, detail: 'The value you selected is not a valid choice.' });
      }
    });
  }
  if (b.sort !== undefined && !Number.isInteger(b.sort)) {
    errors.push({ code: 'InvalidType', path: 'sort', detail: 'This value should be of type int.' });
  }
  return errors;
}

export class WebhookSubscriptions {
  private byDestination = new Map<string, Webhook>();
  private nextId: number;

  constructor(private readonly createdBy: number, accountId: number) {
    this.nextId = 800_000 + (accountId % 1_000) * 1_000;
  }

  /** Copies, ordered by sort then id. */
  list(destination?: string): Webhook[] {
    const all = [...this.byDestination.values()].sort((a, b) => a.sort - b.sort || a.id - b.id).map((w) => ({ ...w, settings: [...w.settings] }));
    return destination === undefined ? all : all.filter((w) => w.destination === destination);
  }

  get count(): number {
    return this.byDestination.size;
  }

  /** Adds a subscription or replaces the settings of the one with that destination. */
  upsert(destination: string, settings: WebhookSetting[], sort?: number): Webhook {
    const at = nowSeconds();
    const unique = [...new Set(settings)];
    const existing = this.byDestination.get(destination);
    if (existing) {
      existing.settings = unique;
      existing.updatedAt = at;
      existing.disabled = false;
      if (sort !== undefined) existing.sort = sort;
      return { ...existing, settings: [...existing.settings] };
    }
    const hook: Webhook = { id: this.nextId++, createdBy: this.createdBy, createdAt: at, updatedAt: at, sort: sort ?? 1, disabled: false, destination, settings: unique };
    this.byDestination.set(destination, hook);
    return { ...hook, settings: [...unique] };
  }

  remove(destination: string): boolean {
    return this.byDestination.delete(destination);
  }

  /** Destinations subscribed to `setting` and not disabled. */
  destinationsFor(setting: WebhookSetting): string[] {
    return this.list().filter((w) => !w.disabled && w.settings.includes(setting)).map((w) => w.destination);
  }
}

export function webhookJson(w: Webhook, accountId: number) {
  return {
    id: w.id,
    destination: w.destination,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    account_id: accountId,
    created_by: w.createdBy,
    sort: w.sort,
    disabled: w.disabled,
    settings: [...w.settings],
  };
}
