// Notes, leads and pipelines of one simulated Kommo account (the write-back's side of Kommo).
// Leads are generated from the contact id like contacts are; notes, lead changes and leads
// created by a test (createLead) are stored.
import type { KommoAccount } from './account';

export const WON_STATUS = 142;
export const LOST_STATUS = 143;

export interface Note {
  id: number;
  entityId: number;
  noteType: string;
  text: string;
  createdAt: number;
  updatedAt: number;
  createdBy: number;
}

export interface Stage {
  id: number;
  name: string;
  sort: number;
  /** 1: the "incoming leads" stage; 0: any other. */
  type: number;
  color: string;
}

export interface Pipeline {
  id: number;
  name: string;
  sort: number;
  isMain: boolean;
  statuses: Stage[];
}

/** One value of a custom field, in Kommo's `custom_fields_values` shape. */
export interface KommoFieldValue {
  field_id: number;
  field_name?: string;
  field_code?: string | null;
  field_type?: string;
  values: Array<{ value: string | number | boolean; enum_id?: number; enum_code?: string }>;
}

export interface Lead {
  id: number;
  name: string;
  /** The main contact. */
  contactId: number;
  pipelineId: number;
  statusId: number;
  price: number;
  customFieldsValues: KommoFieldValue[] | null;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface NewLead {
  contactId: number;
  pipelineId: number;
  statusId: number;
  name?: string;
  price?: number;
  customFieldsValues?: KommoFieldValue[] | null;
}

/** A stage change as it happened: the lead after it, and where it was before. */
export interface LeadMove {
  lead: Lead;
  oldStatusId: number;
  oldPipelineId: number;
}

/** Leads created by createLead get ids from here on, far above the generated 10n+1 / 10n+2. */
const CREATED_LEAD_BASE = 1_000_000_000;

/** Every pipeline ends in Kommo's two closing stages, "won" (142) and "lost" (143). */
function closing(): Stage[] {
  return [
    { id: WON_STATUS, name: 'Logrado con éxito', sort: 10_000, type: 0, color: '#CCFF66' },
    { id: LOST_STATUS, name: 'Venta perdida', sort: 11_000, type: 0, color: '#D5D8DB' },
  ];
}

function pipelinesFor(accountId: number): Pipeline[] {
  const base = 7_000_000 + (accountId % 100_000) * 10;
  const stage = (id: number, name: string, sort: number, type = 0, color = '#99CCFF') => ({ id, name, sort, type, color });
  const sales = base + 1;
  const after = base + 2;
  const s = 80_000_000 + (accountId % 100_000) * 100;
  return [
    {
      id: sales,
      name: 'Embudo de ventas',
      sort: 1,
      isMain: true,
      statuses: [
        stage(s + 1, 'Leads entrantes', 10, 1, '#C1C1C1'),
        stage(s + 2, 'Contacto inicial', 20),
        stage(s + 3, 'Negociación', 30, 0, '#FFFF99'),
        stage(s + 4, 'Respondió campaña', 40, 0, '#FFCC66'),
        stage(s + 5, 'Cotización enviada', 50, 0, '#FFCC99'),
        ...closing(),
      ],
    },
    {
      id: after,
      name: 'Postventa',
      sort: 2,
      isMain: false,
      statuses: [stage(s + 11, 'Leads entrantes', 10, 1, '#C1C1C1'), stage(s + 12, 'Seguimiento', 20), stage(s + 13, 'Recompra', 30), ...closing()],
    },
  ];
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class AccountCrm {
  readonly pipelines: Pipeline[];
  readonly notes: Note[] = [];
  private notesByContact = new Map<number, Note[]>();
  private nextNoteId: number;
  private leadChanges = new Map<number, Partial<Lead>>();
  private created = new Map<number, Lead>();
  private createdByContact = new Map<number, number[]>();
  private nextLeadId = CREATED_LEAD_BASE;

  constructor(private readonly account: KommoAccount) {
    this.pipelines = pipelinesFor(account.id);
    this.nextNoteId = 50_000_000 + (account.id % 1_000) * 100_000;
  }

  get mainPipeline(): Pipeline {
    return this.pipelines.find((p) => p.isMain) ?? this.pipelines[0];
  }

  addNote(entityId: number, noteType: string, text: string): Note {
    const at = nowSeconds();
    const note: Note = { id: this.nextNoteId++, entityId, noteType, text, createdAt: at, updatedAt: at, createdBy: this.account.currentUserId };
    this.notes.push(note);
    const list = this.notesByContact.get(entityId) ?? [];
    list.push(note);
    this.notesByContact.set(entityId, list);
    return note;
  }

  notesOf(contactId: number): Note[] {
    return this.notesByContact.get(contactId) ?? [];
  }

  /**
   * Leads of contact n: none when n is a multiple of 4; otherwise an open lead (id 10n+1) in the
   * main pipeline's "Contacto inicial", plus a won lead (10n+2) when n is a multiple of 5. Then
   * the leads createLead gave it. A contact createLead made itself has only those.
   */
  leadIdsOf(contactId: number): number[] {
    if (!this.account.exists(contactId)) return [];
    const created = this.createdByContact.get(contactId) ?? [];
    if (contactId % 4 === 0 || this.account.isHandMade(contactId)) return [...created];
    return [...(contactId % 5 === 0 ? [contactId * 10 + 1, contactId * 10 + 2] : [contactId * 10 + 1]), ...created];
  }

  lead(id: number): Lead | null {
    const made = this.created.get(id);
    if (made) return { ...made, ...this.leadChanges.get(id) };
    if (id >= CREATED_LEAD_BASE) return null;
    const contactId = Math.floor(id / 10);
    if (!this.leadIdsOf(contactId).includes(id)) return null;
    const main = this.pipelines[0];
    const won = id % 10 === 2;
    const created = this.account.createdAt - 86_400;
    const base: Lead = {
      id,
      name: `Lead #${id}`,
      contactId,
      pipelineId: main.id,
      statusId: won ? WON_STATUS : main.statuses[1].id,
      price: 0,
      customFieldsValues: null,
      createdAt: created,
      updatedAt: created + (won ? 0 : 60),
      closedAt: won ? created : null,
    };
    return { ...base, ...this.leadChanges.get(id) };
  }

  /** The stage a lead may move to, or why not (Kommo's validation detail). */
  checkMove(pipelineId: number, statusId: number): string | null {
    const pipeline = this.pipelines.find((p) => p.id === pipelineId);
    if (!pipeline) return 'Pipeline not found';
    if (!pipeline.statuses.some((s) => s.id === statusId)) return 'Status not found in pipeline';
    return null;
  }

  /** Stores a new lead of an existing contact, stamped `at` (unix seconds). */
  createLead(input: NewLead, at = nowSeconds()): Lead {
    if (!this.account.exists(input.contactId)) throw new Error(`contact ${input.contactId} does not exist in ${this.account.subdomain}`);
    const why = this.checkMove(input.pipelineId, input.statusId);
    if (why) throw new Error(`${why}: pipeline ${input.pipelineId}, status ${input.statusId}`);
    const price = input.price ?? 0;
    if (!Number.isInteger(price) || price < 0) throw new Error('price must be a non-negative integer');
    const id = this.nextLeadId++;
    const closed = input.statusId === WON_STATUS || input.statusId === LOST_STATUS;
    const lead: Lead = {
      id,
      name: input.name ?? `Lead #${id}`,
      contactId: input.contactId,
      pipelineId: input.pipelineId,
      statusId: input.statusId,
      price,
      customFieldsValues: input.customFieldsValues ?? null,
      createdAt: at,
      updatedAt: at,
      closedAt: closed ? at : null,
    };
    this.created.set(id, lead);
    this.createdByContact.set(input.contactId, [...(this.createdByContact.get(input.contactId) ?? []), id]);
    return { ...lead };
  }

  /** Moves a lead to a stage, stamped `at`; returns the lead after the move and where it was. */
  moveLead(id: number, pipelineId: number, statusId: number, at = nowSeconds()): LeadMove {
    const before = this.lead(id);
    if (!before) throw new Error(`lead ${id} does not exist in ${this.account.subdomain}`);
    const closed = statusId === WON_STATUS || statusId === LOST_STATUS;
    this.leadChanges.set(id, { ...this.leadChanges.get(id), pipelineId, statusId, updatedAt: at, closedAt: closed ? at : null });
    return { lead: this.lead(id)!, oldStatusId: before.statusId, oldPipelineId: before.pipelineId };
  }

  /** Changes a lead's name or price (PATCH /leads), stamped `at`. */
  editLead(id: number, edit: { name?: string; price?: number }, at = nowSeconds()): Lead {
    if (!this.lead(id)) throw new Error(`lead ${id} does not exist in ${this.account.subdomain}`);
    const change: Partial<Lead> = { ...this.leadChanges.get(id), updatedAt: at };
    if (edit.name !== undefined) change.name = edit.name;
    if (edit.price !== undefined) change.price = edit.price;
    this.leadChanges.set(id, change);
    return this.lead(id)!;
  }
}

const crms = new WeakMap<KommoAccount, AccountCrm>();

export function crmOf(account: KommoAccount): AccountCrm {
  let crm = crms.get(account);
  if (!crm) {
    crm = new AccountCrm(account);
    crms.set(account, crm);
  }
  return crm;
}
