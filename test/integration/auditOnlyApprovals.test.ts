// Audit-only approvals against the real dev server: a tool with needsApproval 'audit' (and a predicate answering
// 'audit') runs at once, without a pause; `countersign approvals --status unreviewed` lists the call; after its run
// has ended, `countersign review --flag "why"` records the review in the reviews workflow (the run takes no update
// any more), `approvals --status flagged` shows the reviewer and the note, and `--status unreviewed` no longer lists
// it; a second review and a review of a call that is not audit-only are refused in one line and change nothing.
// The inbox's review page (`countersign serve`) in real Chromium: a call flagged with a note, as the proxy's approver.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner, listReviews, reviewCall } from '../../client';
import { reviewUpdate } from '../../contract/reviewMessages';
import { cliEnv, countersign } from '../support/countersignCli';
import { launchChromium } from '../support/chromium';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { testLedgerUrl } from '../support/ledgerFile';
import { freePort } from '../support/processes';
import { startInbox } from '../../servers/inbox/inboxServer';

jest.setTimeout(300_000);

const ran: string[] = [];
const counted = (name: string) => (args: unknown, ctx: { callId: string }) => (
  ran.push(`${name}:${ctx.callId}`),
  `${name} ${JSON.stringify(args)}`
);
const shop = defineAgent({
  name: 'audit-shop',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'refund',
      description: 'refund',
      parameters: z.object({ amount: z.number() }),
      needsApproval: 'audit',
      execute: counted('refund'),
    }),
    // Large amounts run at once and are reviewed afterwards; small ones just run.
    defineTool({
      name: 'discount',
      description: 'discount',
      parameters: z.object({ amount: z.number() }),
      needsApproval: (_ctx, p) => (p.amount > 100 ? 'audit' : false),
      execute: counted('discount'),
    }),
    // Recorded in the audit (audit: true) but not for review.
    defineTool({
      name: 'note',
      description: 'note',
      parameters: z.object({ text: z.string() }),
      audit: true,
      execute: counted('note'),
    }),
  ],
});

// Reviews of their own: a unique reviews workflow, named to the library and the inbox by their option, to the CLI by
// COUNTERSIGN_REVIEWS_WORKFLOW_ID.
const reviewsId = newId('reviews');
const reviews = { workflowId: reviewsId };

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  // The queue and the reviews are read from the approvals ledger the worker (and the reviews workflow) write.
  h = await startHarness({ registry: new AgentRegistry([shop]), ledgerUrl: testLedgerUrl() });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.client.workflow
    .getHandle(reviewsId)
    .terminate('test over')
    .catch(() => undefined);
  await h?.close();
});

const env = () => cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue, COUNTERSIGN_REVIEWS_WORKFLOW_ID: reviewsId });
const cli = async (...args: string[]) => (await countersign(args, env())).stdout;
/** A CLI command that must fail: its stderr (one line) and exit code. */
async function refused(...args: string[]): Promise<{ stderr: string; code: number }> {
  const err = (await countersign(args, env()).then(
    () => undefined,
    (e: unknown) => e,
  )) as { stderr: string; code: number } | undefined;
  if (!err) throw new Error(`countersign ${args.join(' ')} succeeded`);
  return { stderr: err.stderr, code: err.code };
}
/** The approvals report's lines for one run (visibility trails the run: polled until `want` lines show). Only this
 * suite's task queue: other suites leave runs open whose workers are gone, and a run that answers no query stops the report. */
async function linesOf(id: string, status: string, want: number): Promise<string[]> {
  return eventually(async () => {
    const lines = (await cli('--task-queue', h.taskQueue, 'approvals', '--status', status))
      .split('\n')
      .filter((l) => l.includes(id));
    return lines.length === want ? lines : undefined;
  }, 60_000);
}

test('audit-only calls run without waiting, wait in the review queue, and are reviewed after the run ended', async () => {
  const id = newId('audit-only');
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'refund', arguments: { amount: 30 }, callId: 'c1' },
        { name: 'discount', arguments: { amount: 500 }, callId: 'c2' },
        { name: 'discount', arguments: { amount: 5 }, callId: 'c3' },
        { name: 'note', arguments: { text: 'hi' }, callId: 'c4' },
      ],
    },
    { text: 'done' },
  ]);
  const result = await runner.run('audit-shop', 'go', { workflowId: id });
  expect(result.interruptions).toEqual([]);
  expect(result.finalOutput).toBe('done');
  expect(ran.filter((r) => ['refund:c1', 'discount:c2', 'discount:c3', 'note:c4'].includes(r)).sort()).toEqual([
    'discount:c2',
    'discount:c3',
    'note:c4',
    'refund:c1',
  ]);
  expect(ran).toHaveLength(4);
  expect(await runner.pending(id)).toEqual([]);
  // In the order the calls finished (they run side by side).
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision, a.review ?? '-']).sort()).toEqual([
    ['c1', 'audited', true],
    ['c2', 'audited', true],
    ['c4', 'audited', '-'],
  ]);
  // The run has ended: whatever is reviewed from here on cannot live in it.
  expect((await h.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');

  const unreviewed = (await linesOf(id, 'unreviewed', 2)).sort((a, b) => a.localeCompare(b));
  expect(unreviewed[0]).toMatch(new RegExp(`^unreviewed\\s+discount \\(call c2\\) in ${id} at \\S+$`));
  expect(unreviewed[1]).toMatch(new RegExp(`^unreviewed\\s+refund \\(call c1\\) in ${id} at \\S+$`));

  expect(await cli('review', id, 'c2', '--flag', 'discount over 100 without a ticket', '--as', 'ann')).toBe(
    `flagged c2 in ${id} as ann\n`,
  );
  const flagged = await linesOf(id, 'flagged', 1);
  expect(flagged[0]).toMatch(
    new RegExp(`^flagged\\s+discount \\(call c2\\) in ${id} by ann at \\S+: "discount over 100 without a ticket"$`),
  );
  expect((await linesOf(id, 'unreviewed', 1))[0]).toContain('(call c1)');
  const json = JSON.parse(
    await cli('--task-queue', h.taskQueue, 'approvals', '--status', 'flagged', '--json'),
  ) as Array<Record<string, unknown>>;
  expect(json.filter((r) => r.workflowId === id)).toEqual([
    expect.objectContaining({
      callId: 'c2',
      toolName: 'discount',
      status: 'flagged',
      approvers: ['ann'],
      note: 'discount over 100 without a ticket',
      reviewedAt: expect.any(String),
    }),
  ]);

  // Refused in one line, nothing recorded: a second review, calls that are not audit-only, bad flags.
  const first = (await listReviews(h.client, { ...reviews, runWorkflowId: id }))[0]!;
  expect(await refused('review', id, 'c2', '--ok', '--as', 'bob')).toEqual({
    code: 1,
    stderr: `countersign: call c2 of run ${id} was already flagged by ann at ${first.reviewedAt}: a review is final\n`,
  });
  expect(await refused('review', id, 'c4', '--ok')).toEqual({
    code: 1,
    stderr: `countersign: call c4 of run ${id} is not an audit-only call (its audit says audited): only calls of tools with needsApproval 'audit' are reviewed (see them with: countersign approvals --status unreviewed)\n`,
  });
  expect(await refused('review', id, 'c3', '--flag', 'why')).toEqual({
    code: 1,
    stderr: `countersign: call c3 of run ${id} is not an audit-only call (it is not in its audit): only calls of tools with needsApproval 'audit' are reviewed (see them with: countersign approvals --status unreviewed)\n`,
  });
  expect(await refused('review', id, 'c1', '--ok', '--flag', 'x')).toEqual({
    code: 1,
    stderr: 'countersign: give either --ok or --flag "why", not both\n',
  });
  expect(await refused('review', id, 'c1')).toEqual({
    code: 1,
    stderr: 'countersign: say what the review found: --ok, or --flag "why"\n',
  });
  expect(await refused('review', id, 'c1', '--flag', ' ')).toEqual({
    code: 1,
    stderr: 'countersign: --flag needs a note saying why, e.g. --flag "refund larger than the order"\n',
  });
  expect(await refused('review', newId('no-such-run'), 'c1', '--ok')).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/^countersign: no run with workflow id no-such-run-\S+\n$/),
  });
  // A reviewer's name passes the one name rule: refused before sending (CLI, library) and by the workflow's validator.
  expect(await refused('review', id, 'c1', '--ok', '--as', ' ')).toEqual({
    code: 1,
    stderr: 'countersign: an approver name must not be empty\n',
  });
  expect(await refused('review', id, 'c1', '--ok', '--as', 'x'.repeat(201))).toEqual({
    code: 1,
    stderr: 'countersign: an approver name is at most 200 characters (this one has 201)\n',
  });
  const hidden = 'approver name "bob\\u001b[2K" holds a control or invisible formatting character: use plain text';
  await expect(
    reviewCall(
      h.client,
      h.taskQueue,
      { workflowId: id, callId: 'c1', verdict: 'reviewed', reviewer: 'bob\u001b[2K' },
      reviews,
    ),
  ).rejects.toThrow(`invalid review: reviewer: ${hidden}`);
  const direct = { workflowId: id, callId: 'c1', verdict: 'reviewed' as const, reviewer: 'bob\u001b[2K' };
  await expect(
    h.client.workflow.getHandle(reviewsId).executeUpdate(reviewUpdate, { args: [direct] }),
  ).rejects.toMatchObject({ cause: { message: `invalid review request: reviewer: ${hidden}` } });
  // Reviews compare names canonically: ANN finds ann's flag.
  expect(
    (await cli('--task-queue', h.taskQueue, 'approvals', '--status', 'flagged', '--approver', ' ANN'))
      .split('\n')
      .filter((l) => l.includes(id)),
  ).toEqual([flagged[0]]);
  expect(await listReviews(h.client, { ...reviews, runWorkflowId: id })).toEqual([first]);
  expect(first).toEqual({
    workflowId: id,
    callId: 'c2',
    toolName: 'discount',
    verdict: 'flagged',
    note: 'discount over 100 without a ticket',
    reviewer: 'ann',
    reviewedAt: expect.any(String),
  });

  // The library: the other call looks fine; then nothing of this run is unreviewed.
  expect(
    await reviewCall(
      h.client,
      h.taskQueue,
      { workflowId: id, callId: 'c1', verdict: 'reviewed', reviewer: 'bob' },
      reviews,
    ),
  ).toMatchObject({ callId: 'c1', toolName: 'refund', verdict: 'reviewed', reviewer: 'bob' });
  await linesOf(id, 'unreviewed', 0);
  expect((await linesOf(id, 'reviewed', 1))[0]).toMatch(
    new RegExp(`^reviewed\\s+refund \\(call c1\\) in ${id} by bob at \\S+$`),
  );
  expect(ran).toHaveLength(4);
});

test('the inbox review page: "Flag" with a note records the proxy\'s approver; a post without the CSRF token is refused', async () => {
  const id = newId('audit-inbox');
  h.model.script(id, [{ toolCalls: [{ name: 'refund', arguments: { amount: 70 }, callId: 'r1' }] }, { text: 'done' }]);
  expect((await runner.run('audit-shop', 'go', { workflowId: id })).finalOutput).toBe('done');
  const inbox = await startInbox({
    runner,
    port: await freePort(),
    approverHeader: 'X-Forwarded-User',
    reviewsWorkflowId: reviewsId,
  });
  const browser = await launchChromium();
  try {
    const form = new URLSearchParams({ workflowId: id, callId: 'r1', action: 'ok' });
    const noCsrf = await fetch(`${inbox.url}/reviews`, {
      method: 'POST',
      body: form,
      headers: { 'x-forwarded-user': 'cy' },
    });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.text()).toContain('CSRF check failed');

    const page = await (await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-User': 'cy' } })).newPage();
    const card = page.locator(`article.review[data-run="${id}"][data-call="r1"]`);
    // Visibility trails the run: reload until the call shows.
    await eventually(
      async () => (await page.goto(`${inbox.url}/reviews`), (await card.count()) === 1 ? true : undefined),
      60_000,
    );
    expect(await card.locator('pre.args').textContent()).toContain('"amount": 70');
    await card.locator('form.flag input[name=note]').fill('refund without an order');
    await card.locator('form.flag button').click();
    await page.locator('p.notice', { hasText: 'Reviewed: flagged refund (call r1)' }).waitFor();
    expect(await card.count()).toBe(0);
    expect(await listReviews(h.client, { ...reviews, runWorkflowId: id })).toEqual([
      {
        workflowId: id,
        callId: 'r1',
        toolName: 'refund',
        verdict: 'flagged',
        note: 'refund without an order',
        reviewer: 'cy',
        reviewedAt: expect.any(String),
      },
    ]);
  } finally {
    await browser.close();
    await inbox.close();
  }
});
