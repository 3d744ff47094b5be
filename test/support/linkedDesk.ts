// A worker whose notifications carry one-click links, a webhook that records them, and the inbox that takes those
// links (and Slack's buttons), on one port the links point at: the setup of every suite that follows a
// notification to a decision.
import type { AgentRegistry } from '../../agents';
import { Runner } from '../../client';
import { type InboxOptions, startInbox } from '../../servers/inbox/inboxServer';
import { startHarness, type Harness, type HarnessOptions } from './harness';
import { freePort } from './processes';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver';

export interface LinkedDesk {
  h: Harness;
  runner: Runner;
  hook: WebhookReceiver;
  inbox: { url: string; close(): Promise<void> };
  close(): Promise<void>;
}

/** Signed-in people name themselves in X-Forwarded-User, as behind a reverse proxy. */
export async function startLinkedDesk(o: {
  registry: AgentRegistry;
  linkSecret: string;
  harness?: Omit<HarnessOptions, 'registry' | 'webhookUrl' | 'links'>;
  inbox?: Pick<InboxOptions, 'slack' | 'log'>;
}): Promise<LinkedDesk> {
  const port = await freePort();
  const hook = await startWebhookReceiver();
  const h = await startHarness({
    ...o.harness,
    registry: o.registry,
    webhookUrl: hook.url,
    links: { publicUrl: `http://127.0.0.1:${port}`, secret: o.linkSecret },
  });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const inbox = await startInbox({
    runner,
    port,
    approverHeader: 'X-Forwarded-User',
    linkSecret: o.linkSecret,
    ...o.inbox,
  });
  return {
    h,
    runner,
    hook,
    inbox,
    async close() {
      await inbox.close();
      await h.close();
      await hook.close();
    },
  };
}
