// What the inbox suites share: `countersign serve` (startInbox) behind a proxy's identity header and a bot's token,
// with one-click links, on a harness with the demo agents, a nested agent and a quorum one, a webhook receiver and a
// headless Debian Chromium (playwright-core); pages as an approver, and runs paused on an email.
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { launchChromium } from './chromium';
import { eventually, newId, outboxOf } from './fixtures';
import { startHarness, type Harness } from './harness';
import { freePort } from './processes';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver';

export const SECRET = 'test-link-secret-0123456789abcdef0123456789';
export const BOT_TOKEN = 'bot-token-0123456789abcdef';

const identity = defineAgent({
  name: 'identity-agent',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'get_user_name',
      description: 'Name of a user',
      parameters: z.object({ userId: z.string() }),
      needsApproval: true,
      execute: ({ userId }) => `User ${userId} is Ada`,
    }),
  ],
});
const helper = defineAgent({
  name: 'contract-helper',
  instructions: 'test',
  tools: [identity.asTool({ toolName: 'help_with_contract', toolDescription: 'Ask' })],
});
const treasurer = defineAgent({
  name: 'treasurer',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'approve_payout',
      description: 'Pay out',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      quorum: 2,
      execute: ({ amount }) => `paid ${amount}`,
    }),
  ],
});

export interface InboxSuite {
  h: Harness;
  runner: Runner;
  hook: WebhookReceiver;
  inbox: { url: string; close(): Promise<void> };
  browser: Browser;
  close(): Promise<void>;
}

export async function startInboxSuite(): Promise<InboxSuite> {
  const port = await freePort();
  const hook = await startWebhookReceiver();
  const h = await startHarness({
    registry: new AgentRegistry([...demoAgents, identity, helper, treasurer]),
    webhookUrl: hook.url,
    links: { publicUrl: `http://127.0.0.1:${port}`, secret: SECRET },
  });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const inbox = await startInbox({
    runner,
    port,
    approverHeader: 'X-Forwarded-User',
    tokens: [{ approver: 'bot', token: BOT_TOKEN }],
    linkSecret: SECRET,
  });
  const browser = await launchChromium();
  const close = async () => {
    await browser.close();
    await inbox.close();
    await h.close();
    await hook.close();
  };
  return { h, runner, hook, inbox, browser, close };
}

/** Pages and runs on a suite's inbox (`at` gives it once beforeAll has started it). */
export function inboxRuns(at: () => InboxSuite) {
  async function as(approver: string): Promise<Page> {
    const context = await at().browser.newContext({
      extraHTTPHeaders: { 'X-Forwarded-User': approver },
      viewport: { width: 1200, height: 900 },
    });
    return context.newPage();
  }
  const mail = (callId: string, to = 'alice@example.com') => ({
    toolCalls: [{ name: 'send_email', arguments: { to, subject: 'Hi', body: 'b' }, callId }],
  });
  async function pausedMail(callId: string, to?: string): Promise<string> {
    const workflowId = newId('inbox');
    const { h, runner } = at();
    h.model.script(workflowId, [mail(callId, to), { text: 'done' }]);
    await runner.run('email-assistant', 'mail', { workflowId });
    return workflowId;
  }
  const completed = (workflowId: string) =>
    eventually(async () => ((await at().runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  const sentBy = async (workflowId: string) =>
    (await outboxOf(at().h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${workflowId}:`));
  return { as, pausedMail, completed, sentBy };
}
