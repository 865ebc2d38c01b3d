import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { TemplateComponent } from '../../db/schema/whatsapp';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import { AppError } from '../../lib/errors';
import { rowsOf } from '../../db/sql';
import type { MappingLike } from '../../services/variables/render';
import { assertTemplateUsable } from '../../services/variables/template-readiness';
import { laneBlockedSql } from '../../services/campaigns/campaign-numbers';

/** What a sender needs to build each message of one sending campaign. */
export interface ActiveCampaign {
  id: number;
  userId: number;
  kommoAccountId: number | null;
  templateId: number;
  templateName: string;
  language: string;
  template: { components: TemplateComponent[]; parameterFormat?: string | null };
  /** A campaign with explicit recipients (0039): no Kommo account, every blacklist of the tenant applies. */
  explicit?: boolean;
  /** An AUTHENTICATION template: Meta does not deliver those to a BSUID, so such recipients are skipped. */
  authentication?: boolean;
  /**
   * The template's latest category (upper case; changed only by a completed
   * template_category_update): MARKETING may go by the Marketing Messages API (marketing-route.ts).
   */
  category?: string;
  mappings: MappingLike[];
  /**
   * Several numbers: this number's lane, the number whose own recipients it claims;
   * null for a one-number campaign (all its rows).
   */
  lane?: number | null;
  /** The header's media id, uploaded once for the campaign (static header media only). */
  headerMediaId: string | null;
  loadedAt: number;
  /** A split test's variants by arm (0 = A, the campaign's own template), each with its own mapping. */
  variants?: CampaignVariant[];
}

/** One arm of a split test: what the sender needs to render its recipients. */
export type CampaignVariant = Pick<ActiveCampaign, 'templateId' | 'templateName' | 'language' | 'template' | 'mappings' | 'headerMediaId'>;

/** The template a claimed recipient is sent: its arm's in a split test, else the campaign's. */
export function variantOf(campaign: ActiveCampaign, variant: number | null | undefined): CampaignVariant {
  return (variant !== null && variant !== undefined && campaign.variants?.[variant]) || campaign;
}

/** Template and mappings are re-read now and then, so an edit reaches a running campaign. */
const TEMPLATE_TTL_MS = 30_000;

/**
 * The number's campaigns that are sending right now. A campaign whose template is no
 * longer usable (unapproved, unmapped, gone) is returned in `refused` with the reason.
 * A several-number campaign (campaign_numbers, 0049) is among them while this number can
 * send for it (active, not RED, its copy of the template approved); otherwise this number's
 * lane just stops, its people wait, and the campaign goes on with its other numbers.
 */
export async function activeCampaignsOf(
  db: Db,
  whatsappAccountId: number,
  previous: Map<number, ActiveCampaign>,
  /** Uploads the campaign's header media; an AppError refuses the campaign with its reason. */
  headerMediaId: (campaign: Omit<ActiveCampaign, 'headerMediaId'>) => Promise<string | null> = async () => null,
): Promise<{ active: Map<number, ActiveCampaign>; refused: Array<{ campaignId: number; reason: string }> }> {
  // The template's category comes with the campaigns (one statement per refresh, not per
  // message): a completed recategorisation reaches the routing at the next refresh.
  const rows = await rowsOf<{
    id: number;
    user_id: number;
    kommo_account_id: number | null;
    template_id: number | null;
    audience_kind: string;
    split_test: SplitTestConfig | string | null;
    category: string | null;
    primary_id: number;
    multi: boolean;
  }>(
    db,
    sql`select c.id, c.user_id, c.kommo_account_id, c.template_id, c.audience_kind, c.split_test, t.category,
          c.whatsapp_account_id as primary_id, false as multi
        from campaigns c left join templates t on t.id = c.template_id
        where c.whatsapp_account_id = ${whatsappAccountId} and c.status = 'sending'
          and not exists (select 1 from campaign_numbers m where m.campaign_id = c.id)
        union all
        select c.id, c.user_id, c.kommo_account_id, c.template_id, c.audience_kind, c.split_test, t.category, c.whatsapp_account_id, true
        from campaign_numbers n join campaigns c on c.id = n.campaign_id join whatsapp_accounts a on a.id = n.whatsapp_account_id
          left join templates t on t.id = c.template_id
        where n.whatsapp_account_id = ${whatsappAccountId} and c.status = 'sending' and (${laneBlockedSql('a', 'c')}) is null
        order by id`,
  );
  const active = new Map<number, ActiveCampaign>();
  const refused: Array<{ campaignId: number; reason: string }> = [];
  const now = performance.now();
  for (const row of rows) {
    const id = Number(row.id);
    const known = previous.get(id);
    const category = (row.category ?? '').toUpperCase();
    if (known && known.templateId === row.template_id && known.category === category && now - known.loadedAt < TEMPLATE_TTL_MS) {
      active.set(id, known);
      continue;
    }
    if (!row.template_id) {
      refused.push({ campaignId: id, reason: 'La campaña no tiene una plantilla' });
      continue;
    }
    try {
      // An explicit campaign's recipients bring the values of the slots its mappings leave open.
      // The campaign's template is its own number's; another number sends its approved copy (same name and language).
      const { template, mappings } = await assertTemplateUsable(db, Number(row.user_id), Number(row.template_id), Number(row.primary_id), {
        partialMappings: row.audience_kind === 'explicit',
      });
      const loaded = {
        id,
        userId: Number(row.user_id),
        kommoAccountId: row.kommo_account_id === null ? null : Number(row.kommo_account_id),
        templateId: template.id,
        templateName: template.name,
        language: template.language,
        template: { components: template.components, parameterFormat: template.parameterFormat },
        explicit: row.audience_kind === 'explicit',
        authentication: (template.category ?? '').toUpperCase() === 'AUTHENTICATION',
        category: (template.category ?? '').toUpperCase(),
        mappings,
        lane: row.multi ? whatsappAccountId : null,
        loadedAt: now,
      };
      const campaign: ActiveCampaign = { ...loaded, headerMediaId: await headerMediaId(loaded) };
      // A split test: every variant's template and mapping, read once with the campaign's.
      const split = typeof row.split_test === 'string' ? (JSON.parse(row.split_test) as SplitTestConfig) : row.split_test;
      if (split?.variants?.length) {
        campaign.variants = [];
        for (const v of split.variants) {
          if (v.template_id === template.id) {
            campaign.variants.push(campaign);
            continue;
          }
          const usable = await assertTemplateUsable(db, Number(row.user_id), v.template_id, whatsappAccountId, { partialMappings: loaded.explicit });
          const arm = {
            ...loaded,
            templateId: usable.template.id,
            templateName: usable.template.name,
            language: usable.template.language,
            template: { components: usable.template.components, parameterFormat: usable.template.parameterFormat },
            mappings: usable.mappings,
          };
          campaign.variants.push({ ...arm, headerMediaId: await headerMediaId(arm) });
        }
      }
      active.set(id, campaign);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refused.push({ campaignId: id, reason: err.message });
    }
  }
  return { active, refused };
}
