// The AG-UI example page (examples/ag-ui) in Chromium, as docs/ag-ui.md tells a new user to run it: `countersign serve`
// behind the example's proxy (which sets the user's identity), the scripted model's demo answers. The run pauses, a
// reload shows the pause again (read from the thread), the Approve button is pressed, the tool runs once and the
// answer appears. The screenshots go to test/artifacts/ (ag-ui-paused.png, ag-ui-answered.png;
// docs/ keeps copies).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { AgentRegistry, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { startExamplePage } from '../../examples/ag-ui/server';
import { launchChromium } from '../support/chromium';
import { outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(180_000);

let h: Harness;
let inbox: { url: string; close(): Promise<void> };
let page: Awaited<ReturnType<typeof startExamplePage>>;
let browser: Browser;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry(demoAgents) });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User' });
  page = await startExamplePage({ serveUrl: inbox.url, user: 'ann', port: 0 });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  page?.server.close();
  await inbox?.close();
  await h?.close();
});

test('the example page pauses, shows the pause again after a reload, Approve is pressed, the answer appears', async () => {
  // No script: the demo model answers, as it does for `npm start` (so the screenshots show what a new user sees).
  const tab = await (await browser.newContext({ viewport: { width: 900, height: 420 } })).newPage();
  await tab.goto(page.url);
  await tab.fill('#message', 'Send the report to alice');
  await tab.click('form button');
  const approve = tab.locator('.interrupt button', { hasText: 'Approve' });
  await approve.waitFor();
  expect(await tab.locator('.interrupt p').textContent()).toBe(
    'email-assistant asks to run send_email to alice@example.com',
  );
  const artifacts = join(projectRoot, 'test/artifacts');
  mkdirSync(artifacts, { recursive: true });
  await tab.screenshot({ path: join(artifacts, 'ag-ui-paused.png'), fullPage: true });

  // A reload keeps the tab's thread: the page reads it (GET …/threads/{id}) and shows its messages and the pause.
  await tab.reload();
  await approve.waitFor();
  expect(await tab.locator('#log li').allTextContents()).toEqual(['Send the report to alice', 'send_email …']);
  expect(await tab.locator('.interrupt').count()).toBe(1);
  expect(await outboxOf(h.outbox)).toHaveLength(0);

  await approve.click();
  const answer = "send_email: Email sent to alice@example.com with subject 'Report'";
  await tab.locator('#log li', { hasText: answer }).waitFor();
  expect(await tab.locator('#log li').allTextContents()).toEqual([
    'Send the report to alice',
    "Email sent to alice@example.com with subject 'Report'",
    answer,
  ]);
  const sent = (await outboxOf(h.outbox)).filter((e) => e.to === 'alice@example.com');
  expect(sent).toHaveLength(1);
  await tab.screenshot({ path: join(artifacts, 'ag-ui-answered.png'), fullPage: true });
});
