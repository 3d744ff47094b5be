// The inbox as an approver's desk, in headless Debian Chromium (playwright-core) against the real dev server: a
// pending call's card shows what the run was asked, the assistant's words, times relative to now, the impact
// preview and the arguments for people (a marked diff, `$` lines, a key/value table); the history view lists
// decided calls and each filter narrows it; a phone-sized screen has no sideways scrolling; a call is approved with
// the keyboard alone. The screenshots go to test/artifacts/ (inbox-desk.png, inbox-phone.png; docs/ keeps copies).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { AgentRegistry, applyPatchTool, defineAgent, defineTool, shellTool } from '../../agents';
import { Runner } from '../../client';
import { relativeTime } from '../../core/relativeTime';
import { startInbox } from '../../servers/inbox/inboxServer';
import { launchChromium } from '../support/chromium';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testLedgerUrl } from '../support/ledgerFile';
import { freePort } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(300_000);
const ARTIFACTS = join(projectRoot, 'test/artifacts');

const work = mkdtempSync(join(tmpdir(), 'countersign-desk-'));
writeFileSync(join(work, 'CHANGELOG.md'), '# Changelog\n## Unreleased\n- Fix rounding of refunds over 1000\n');
const deploy = defineTool({
  name: 'deploy_service',
  description: 'Deploy a service',
  parameters: z.object({ service: z.string(), version: z.string(), note: z.string() }),
  needsApproval: true,
  approvalTimeout: '2h',
  preview: ({ service, version }) => ({
    summary: `restarts 3 pods of ${service} on ${version}`,
    details: 'payments-7f9c (eu-west-1)\npayments-2b1d (eu-west-1)\npayments-c3a0 (us-east-1)',
  }),
  execute: ({ service, version }) => `deployed ${service} ${version}`,
});
const releaser = defineAgent({
  name: 'releaser',
  instructions: 'test',
  tools: [
    deploy,
    applyPatchTool({ root: work, approvalTimeout: '2h' }),
    shellTool({ cwd: work, approvalTimeout: '2h' }),
  ],
});
const tool = (name: string) =>
  defineTool({
    name,
    description: name,
    parameters: z.object({ target: z.string() }),
    needsApproval: true,
    execute: ({ target }) => `${name} ${target}`,
  });
const histDeployer = defineAgent({ name: 'hist-deployer', instructions: 'test', tools: [tool('restart_service')] });
const histCleaner = defineAgent({ name: 'hist-cleaner', instructions: 'test', tools: [tool('delete_branch')] });

const REQUEST = 'Bump payments to 2.4.1 and deploy it before the 3 pm freeze';
const SAID = 'I will bump the version in the changelog, tag it and deploy payments 2.4.1.';
const DIFF =
  '--- a/CHANGELOG.md\n+++ b/CHANGELOG.md\n@@ -1,3 +1,4 @@\n # Changelog\n-## Unreleased\n+## 2.4.1\n+- Escape <b>tags</b> in the notes\n - Fix rounding of refunds over 1000\n';

let h: Harness;
let runner: Runner;
let inbox: { url: string; close(): Promise<void> };
let browser: Browser;
let desk: string;
beforeAll(async () => {
  const port = await freePort();
  // The history reads the approvals ledger the worker writes.
  h = await startHarness({
    registry: new AgentRegistry([releaser, histDeployer, histCleaner]),
    ledgerUrl: testLedgerUrl(),
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({ runner, port, approverHeader: 'X-Forwarded-User' });
  browser = await launchChromium();
  // The card's run starts first: by the last test it has waited over a minute, so its card says "asked 1 min ago".
  desk = newId('desk');
  h.model.script(desk, [
    {
      text: SAID,
      toolCalls: [
        {
          name: 'apply_patch',
          arguments: { operations: [{ type: 'update_file', path: 'CHANGELOG.md', diff: DIFF }] },
          callId: 'd1',
        },
        {
          name: 'deploy_service',
          arguments: { service: 'payments', version: '2.4.1', note: 'before the freeze' },
          callId: 'd2',
        },
        { name: 'shell', arguments: { commands: ['git tag v2.4.1', 'git push origin v2.4.1'] }, callId: 'd3' },
      ],
    },
    { text: 'done' },
  ]);
  await runner.run('releaser', REQUEST, { workflowId: desk });
});
afterAll(async () => {
  await browser?.close();
  await inbox?.close();
  await h?.close();
});

async function as(approver: string, viewport = { width: 1200, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-User': approver }, viewport });
  return context.newPage();
}
const paused = async (agent: string, toolName: string, callId: string, target: string) => {
  const workflowId = newId(agent);
  h.model.script(workflowId, [{ toolCalls: [{ name: toolName, arguments: { target }, callId }] }, { text: 'done' }]);
  await runner.run(agent, `${toolName} ${target}`, { workflowId });
  return workflowId;
};
const historyRows = async (page: Page, query: string) => {
  await page.goto(`${inbox.url}/history${query}`);
  return page.locator('table.history tbody tr').count();
};

test('keyboard only: Tab to the call’s Approve button, press Enter, and the call is approved by the signed-in person', async () => {
  const workflowId = await paused('hist-deployer', 'restart_service', 'k1', 'cache');
  const page = await as('ann');
  await page.goto(inbox.url);
  await page.locator('article#call-k1').waitFor();
  // Evaluated in the page (as text: the tests compile without the DOM's types).
  const focused = () =>
    page.evaluate<string>(
      "(el => `${el?.closest('article')?.id ?? ''}/${el?.tagName ?? ''}/${el?.textContent?.trim() ?? ''}`)(document.activeElement)",
    );
  let presses = 0;
  while ((await focused()) !== 'call-k1/BUTTON/Approve') {
    if (++presses > 150)
      throw new Error(`Tab never reached the Approve button of call k1 (last focus: ${await focused()})`);
    await page.keyboard.press('Tab');
  }
  // The focus is visible: the outline the stylesheet gives :focus-visible.
  expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
  await page.keyboard.press('Enter');
  await page.getByText('Decided: approved restart_service (call k1)').waitFor();
  expect(await runner.audit(workflowId)).toEqual([
    expect.objectContaining({ callId: 'k1', decision: 'approved', approver: 'ann', via: 'update' }),
  ]);
});

test('the history view lists decided calls, and each filter narrows it; a bad filter is one line and reads nothing', async () => {
  const a = await paused('hist-deployer', 'restart_service', 'h1', 'api');
  const b = await paused('hist-cleaner', 'delete_branch', 'h2', 'old-main');
  const c = await paused('hist-cleaner', 'delete_branch', 'h3', 'feature-x');
  await runner.decide(a, [{ callId: 'h1', decision: 'approve', approver: 'ann' }]);
  await runner.decide(b, [{ callId: 'h2', decision: 'reject', approver: 'bob', message: 'Keep it.' }]);
  await runner.decide(c, [{ callId: 'h3', decision: 'approve', approver: 'bob' }]);
  const earlierDone = Date.now();
  await new Promise((r) => setTimeout(r, 3000));
  const d = await paused('hist-deployer', 'restart_service', 'h4', 'web');
  const before4 = Date.now();
  await runner.decide(d, [{ callId: 'h4', decision: 'approve', approver: 'carol' }]);
  const page = await as('ann');
  // Visibility trails the runs: wait until every run is listed (k1 of the keyboard test, h1 to h4).
  await eventually(async () => ((await historyRows(page, '')) >= 5 ? true : undefined));
  const all = await historyRows(page, '');
  expect(all).toBeGreaterThanOrEqual(4);
  const row = page.locator('table.history tbody tr[data-call="h2"]');
  expect(await row.locator('td[data-label="outcome"]').textContent()).toBe('rejected');
  expect(await row.locator('td[data-label="approver"]').textContent()).toBe('bob');
  expect(await row.locator('td[data-label="decided"] time').textContent()).toMatch(/^(just now|\d+ min ago)$/);
  expect(await row.locator(`a[href="/runs/${b}"]`).count()).toBe(1);

  // The form itself: type an agent, press Enter.
  await page.getByLabel('agent').fill('hist-cleaner');
  await page.getByLabel('agent').press('Enter');
  await page.waitForURL(/agent=hist-cleaner/);
  expect(await page.locator('table.history tbody tr').count()).toBe(2);
  expect(await page.locator('p[role="status"]').textContent()).toBe('2 decided calls');
  expect(await historyRows(page, '?agent=hist-cleaner&status=rejected')).toBe(1);
  expect(await historyRows(page, '?tool=delete_branch')).toBe(2);
  expect(await historyRows(page, '?approver=bob')).toBe(2);
  expect(await historyRows(page, '?approver=carol')).toBe(1);
  const since = `${Math.ceil((Date.now() - before4) / 1000) + 1}s`;
  expect(Date.now() - earlierDone).toBeGreaterThan(3000);
  expect(await historyRows(page, `?since=${since}`)).toBe(1);
  expect(await page.locator('table.history tbody tr[data-call="h4"]').count()).toBe(1);

  const bad = await page.goto(`${inbox.url}/history?since=soon&agent=hist-cleaner`);
  expect(bad!.status()).toBe(400);
  expect(await page.locator('p.error').textContent()).toBe(
    'since "soon" is not a duration: use one such as 30m, 24h or 7d',
  );
  expect(await page.locator('table.history').count()).toBe(0);
  expect(await page.getByLabel('agent').inputValue()).toBe('hist-cleaner'); // what was typed stays
  await page.goto(`${inbox.url}/history?agent=${encodeURIComponent("x' OR 1=1")}`);
  expect(await page.locator('p.error').textContent()).toBe(
    `agent "x' OR 1=1" is not a plain name: use letters, digits and _ . @ - only`,
  );
  await page.goto(`${inbox.url}/history?status=pending`);
  expect(await page.locator('p.error').textContent()).toMatch(
    /^outcome "pending" is not one of approved, rejected, .*: pick one from the list$/,
  );
});

test('the card: the request, the assistant’s words, relative times, the preview and the arguments for people; desktop and phone', async () => {
  const pending = await runner.pending(desk);
  const asked = pending!.find((p) => p.callId === 'd1')!.requestedAt;
  const page = await as('ann');
  const before = Date.now();
  await page.goto(inbox.url);
  const after = Date.now();
  const patch = page.locator('article#call-d1');
  await patch.locator('dd.request').waitFor();
  expect(await patch.locator('dd.request').textContent()).toBe(REQUEST);
  expect(await patch.locator('dd.said').textContent()).toBe(SAID);
  // The words as of the page's rendering (core/relativeTime.ts's unit test covers every unit).
  const words = new Set([before, after].map((now) => `asked ${relativeTime(asked, now)}`));
  expect(words).toContain(await patch.locator('time.asked').textContent());
  expect(await patch.locator('time.asked').getAttribute('datetime')).toBe(asked);
  expect(await patch.locator('time.expires').textContent()).toMatch(/^expires in (1 h|\d+ min)$/);
  const expiresAt = pending!.find((p) => p.callId === 'd1')!.expiresAt!;
  expect(await patch.locator('time.expires').getAttribute('datetime')).toBe(expiresAt);
  expect(await patch.locator('time.expires').getAttribute('title')).toBe(expiresAt);
  // The diff: added and removed lines marked and styled, the text escaped (the <b> is text, not markup).
  expect(await patch.locator('p.file-op').textContent()).toBe('update_file CHANGELOG.md');
  expect(await patch.locator('pre.diff .added').allTextContents()).toEqual([
    '+## 2.4.1',
    '+- Escape <b>tags</b> in the notes',
  ]);
  expect(await patch.locator('pre.diff .removed').allTextContents()).toEqual(['-## Unreleased']);
  expect(await patch.locator('pre.diff b').count()).toBe(0);
  expect(
    await page.evaluate<string>("getComputedStyle(document.querySelector('#call-d1 pre.diff .added')).backgroundColor"),
  ).toBe('rgb(220, 245, 227)');

  const deployCard = page.locator('article#call-d2');
  expect(await deployCard.locator('.preview').textContent()).toContain('Impact restarts 3 pods of payments on 2.4.1');
  const fields = await deployCard
    .locator('table.fields tr')
    .evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]));
  expect(fields).toEqual([
    ['service', 'payments'],
    ['version', '2.4.1'],
    ['note', 'before the freeze'],
  ]);
  expect(await page.locator('article#call-d3 pre.commands .command').allTextContents()).toEqual([
    '$ git tag v2.4.1',
    '$ git push origin v2.4.1',
  ]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'inbox-desk.png'), fullPage: true });

  // A phone: nothing scrolls sideways on the inbox, the history or a run; the buttons are big enough to tap.
  const phone = await as('ann', { width: 390, height: 844 });
  const tooWide: Array<[string, number]> = [];
  for (const path of ['/', '/history', `/runs/${encodeURIComponent(desk)}`]) {
    await phone.goto(`${inbox.url}${path}`);
    const width = await phone.evaluate<number>('document.documentElement.scrollWidth');
    if (width > 390) tooWide.push([path, width]);
  }
  expect(tooWide).toEqual([]);
  await phone.goto(inbox.url);
  const approve = phone.locator('article#call-d2').getByRole('button', { name: 'Approve', exact: true });
  expect((await approve.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await phone.screenshot({ path: join(ARTIFACTS, 'inbox-phone.png'), fullPage: true });
});
