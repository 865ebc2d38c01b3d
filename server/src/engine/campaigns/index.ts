import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { whatsappAccounts } from '../../db/schema/index';
import { createWhatsAppMessenger } from '../../integrations/whatsapp/messenger';
import { sendExclusions } from '../../services/campaigns/frequency-cap';
import { pauseWithReason } from '../../services/campaigns/campaign-transitions';
import { restrictAfterSendRefusal } from '../../services/whatsapp-accounts/number-restriction';
import { templateRefusedBySend } from '../../services/templates/template-risk';
import { loadSendingAccount, type SendingAccount } from '../../services/whatsapp-accounts/account-secrets';
import { recordRouteRefused } from '../../services/whatsapp-accounts/marketing-onboarding';
import { JobRunner } from '../../jobs/index';
import type { BackgroundWork } from '../background-work';
import { createButtonPayload } from './button-payload';
import { createCallbackData } from './callback-data';
import { CampaignMedia } from './campaign-media';
import { nextDueAt } from './claim';
import { claimWithinBudget } from './portfolio-budget';
import { hoursWaitAfterEmptyClaim } from './sending-hours-claim';
import { SenderLeases } from './leases';
import { resolveEngineOptions, type CampaignEngineOptions } from './options';
import { schedulerTick } from './scheduler';
import { ResultWriter } from './result-writer';
import { AccountSender, type SenderStore } from './sender';
import { activeCampaignsOf } from './sender-campaigns';
import { WebhookInbox } from './webhook-inbox';
import { registerAutomationDue } from '../automations/automation-runner';
import { Wakeable } from './wakeable';
import { compareFinishedSplitTests } from '../../services/campaigns/split-test-compare';

export interface CampaignEngine extends BackgroundWork {
  /** Runs the scheduler and the lease scan now (tests, after a change). */
  wake(): void;
  /** Senders running in this process, by WhatsApp account id. */
  readonly senders: ReadonlyMap<number, AccountSender>;
  readonly inbox: WebhookInbox | null;
}

/**
 * The campaign engine of one process: the scheduler, one sender per WhatsApp number whose
 * lease this process holds, and the webhook inbox. Any number of processes may run it
 * against one PostgreSQL; on PGlite the single process runs everything.
 */
export const CAMPAIGN_SCHEDULER = 'campaign-scheduler';
export const SPLIT_TEST_COMPARE = 'split-test-compare';

export function startCampaignEngine(ctx: AppContext, partial: Partial<CampaignEngineOptions> = {}, runner?: JobRunner): CampaignEngine {
  const opts = resolveEngineOptions(partial);
  // Failures are logged and the loops go on; LOG_LEVEL=silent keeps tests quiet.
  const log = (msg: string, err?: unknown) => {
    if (err === undefined) ctx.log.warn({ engine: 'campaigns' }, msg);
    else ctx.log.error({ engine: 'campaigns', err }, msg);
  };
  const leases = new SenderLeases(ctx.db, ctx.instanceId, opts.leaseTtlMs);
  // One writer for every sender of this process: one batch of statements per flush period.
  const writer = new ResultWriter(ctx.db, ctx.instanceId, (err) => log('result flush failed', err));
  const flushTimer = opts.runSenders ? setInterval(() => void writer.flush(), opts.flushMs) : null;
  const senders = new Map<number, AccountSender>();
  const leaseWake = new Wakeable();
  let stopping = false;

  const inbox = opts.runInbox ? new WebhookInbox(ctx, opts, log) : null;
  inbox?.start();

  const unsubscribe = ctx.signals.onCampaignChanged((campaignId) => {
    for (const sender of senders.values()) sender.campaignChanged(campaignId);
    leaseWake.wake();
    schedulerWake.wake();
  });
  const unsubscribeWebhooks = ctx.signals.onWebhookStored(() => inbox?.wake());

  // The scheduler's periodic steps run on the job runner: once per tick across processes. A wake
  // (a campaign changed) runs them now. The worker passes its one runner; alone, the engine has its own.
  const ownRunner = opts.runScheduler && !runner ? new JobRunner({ db: ctx.db, log: ctx.log, owner: ctx.instanceId }) : null;
  const scheduler = opts.runScheduler ? (runner ?? ownRunner) : null;
  scheduler?.periodic({
    name: CAMPAIGN_SCHEDULER,
    everyMs: opts.tickMs,
    run: async () => {
      if (stopping) return;
      const changed = await schedulerTick(ctx, opts, log);
      for (const id of changed) for (const sender of senders.values()) sender.campaignChanged(id);
      if (changed.length) leaseWake.wake();
    },
  });
  const schedulerWake = { wake: () => void scheduler?.runNow(CAMPAIGN_SCHEDULER) };
  // Meta's template comparison of finished split tests: Graph calls, so a job of its own that
  // never holds up the scheduler's tick (a slow Graph would delay due starts).
  scheduler?.periodic({ name: SPLIT_TEST_COMPARE, everyMs: opts.splitCompareMs, run: async () => void (await compareFinishedSplitTests(ctx)) });
  if (scheduler) {
    registerAutomationDue(scheduler, ctx, {
      everyMs: opts.automationPollMs,
      lookup: opts.leadLookup,
      log,
      // The events' recipients are pending now: the senders of their numbers claim at once.
      onSending: (ids) => {
        for (const id of ids) ctx.signals.campaignChanged(id);
      },
    });
  }
  const ownStarted = ownRunner?.start();

  let lastRenew = 0;
  async function leaseLoop() {
    while (!stopping) {
      try {
        await manageLeases();
      } catch (err) {
        log('lease management failed', err);
      }
      await leaseWake.sleep(opts.leaseScanMs);
    }
  }

  async function manageLeases() {
    if (performance.now() - lastRenew >= opts.leaseRenewMs && senders.size) {
      lastRenew = performance.now();
      const renewed = await leases.renew([...senders.keys()]);
      for (const [accountId, sender] of senders) {
        const until = renewed.get(accountId);
        if (until !== undefined) sender.trustedUntil = until;
        else {
          // Lost (we stalled past its expiry): stop at once; another worker may have it.
          senders.delete(accountId);
          await sender.stop();
        }
      }
    }
    // Give back numbers with nothing to send.
    for (const [accountId, sender] of senders) {
      if (!sender.hasWork && performance.now() - sender.lastActiveAt > opts.idleReleaseMs) {
        senders.delete(accountId);
        await sender.stop();
        await leases.release(accountId);
      }
    }
    // Take at most one new number per scan, so several workers share the numbers out.
    const free = (await leases.candidates()).filter((id) => !senders.has(id));
    if (!free.length || stopping) return;
    const accountId = free[Math.floor(Math.random() * free.length)];
    const trustedUntil = await leases.acquire(accountId);
    if (trustedUntil === null) return;
    const sender = createAccountSender(ctx, accountId, opts, writer, log);
    try {
      await sender.start(trustedUntil);
      senders.set(accountId, sender);
    } catch (err) {
      log(`could not start the sender of WhatsApp account ${accountId}`, err);
      await sender.stop().catch(() => undefined);
      await leases.release(accountId).catch(() => undefined);
    }
    // More numbers waiting: look again soon, leaving other workers a chance to take some.
    if (free.length > 1) setTimeout(() => leaseWake.wake(), 20 + Math.random() * 80).unref();
  }

  const loops = [opts.runSenders ? leaseLoop() : null];

  return {
    senders,
    inbox,
    wake() {
      schedulerWake.wake();
      leaseWake.wake();
      inbox?.wake();
    },
    async stop() {
      stopping = true;
      unsubscribe();
      unsubscribeWebhooks();
      leaseWake.wake();
      await ownStarted?.catch(() => undefined);
      await ownRunner?.stop();
      await Promise.all(loops);
      for (const [accountId, sender] of senders) {
        await sender.stop();
        await leases.release(accountId).catch(() => undefined);
      }
      senders.clear();
      if (flushTimer) clearInterval(flushTimer);
      await writer.flush();
      await inbox?.stop();
    },
  };
}

/** One number's sender, wired to this process's database, secrets, Graph URL and metrics. */
export function createAccountSender(
  ctx: AppContext,
  accountId: number,
  opts: CampaignEngineOptions,
  writer: ResultWriter,
  log: (msg: string, err?: unknown) => void,
): AccountSender {
  const graphUrl = opts.graphUrl ?? ctx.config.WHATSAPP_GRAPH_URL;
  const openMessenger = (connections: number) =>
    createWhatsAppMessenger({ graphUrl, connections, connectTimeoutMs: opts.connectTimeoutMs, responseTimeoutMs: opts.responseTimeoutMs });
  return new AccountSender(senderStore(ctx, accountId, graphUrl), openMessenger, writer, opts, log, ctx.metrics);
}

function senderStore(ctx: AppContext, accountId: number, graphUrl: string): SenderStore {
  const callbackData = createCallbackData(ctx.config.APP_SECRET);
  const buttonPayload = createButtonPayload(ctx.config.APP_SECRET);
  // Header media is uploaded with the credentials the sender loaded last (a token replaced
  // while sending is used from the next upload on); each campaign's upload is kept.
  let account: SendingAccount | undefined;
  const media = new CampaignMedia(() => ({
    graphUrl,
    phoneNumberId: account!.phoneNumberId,
    accessToken: account!.accessToken,
    allowPrivateHosts: ctx.config.MEDIA_ALLOW_PRIVATE_HOSTS,
  }));
  /** Campaign id → when the portfolio's daily limit frees a place (epoch ms), while it waits. */
  const limitWaits = new Map<number, number>();
  return {
    accountId,
    loadAccount: async () => (account = await loadSendingAccount(ctx.db, ctx.secrets, accountId)),
    tokenUnreadable: async () => {
      const [row] = await ctx.db
        .select({ sealed: whatsappAccounts.accessTokenEnc })
        .from(whatsappAccounts)
        .where(eq(whatsappAccounts.id, accountId))
        .limit(1);
      if (!row) return false;
      try {
        ctx.secrets.open(row.sealed);
        return false;
      } catch {
        return true;
      }
    },
    activeCampaigns: (previous) => activeCampaignsOf(ctx.db, accountId, previous, (c) => media.headerMediaId(c)),
    claim: async (campaignId, limit, lane) => {
      const budgeted = await claimWithinBudget(ctx.db, campaignId, ctx.instanceId, limit, lane);
      const { claimed } = budgeted;
      // A claim that took rows cleared the hours' wait itself; only an empty one looks for the next window.
      const waitMs = budgeted.waitMs ?? (claimed.length ? null : await hoursWaitAfterEmptyClaim(ctx.db, campaignId));
      if (waitMs === null) limitWaits.delete(campaignId);
      else limitWaits.set(campaignId, Date.now() + waitMs);
      return claimed;
    },
    // A campaign waiting for the portfolio's daily limit has nothing due until a place frees up.
    nextDueAt: async (campaignId, lane) => {
      const due = await nextDueAt(ctx.db, campaignId, lane);
      const resumeAt = limitWaits.get(campaignId);
      return due === null || resumeAt === undefined ? due : Math.max(due, resumeAt - Date.now());
    },
    excluded: (campaign, phoneKeys) => sendExclusions(ctx.db, campaign, phoneKeys),
    pause: async (target, reason, code) => {
      // Meta restricted this number (131031, 131048): a several-number campaign's lane stops for an hour.
      if ('whatsappAccountId' in target) await restrictAfterSendRefusal(ctx.db, target.whatsappAccountId, code, reason);
      return pauseWithReason(ctx.db, target, reason);
    },
    templateRefused: async (templateId, code) => (await templateRefusedBySend(ctx.db, templateId, code)).paused,
    routeRefused: (reason) => recordRouteRefused(ctx.db, accountId, reason),
    signCallback: (target) => callbackData.sign(target),
    signButton: (target) => buttonPayload.sign(target),
  };
}
