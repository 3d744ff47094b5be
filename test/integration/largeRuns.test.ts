// Runs of any length and size: a conversation of megabytes (12 newsletters of about 280 KB, each approved, across
// continue-as-new), the same run with payload storage off (a clear failure, not a run stuck retrying), and a
// 500-turn run with 100 approvals. History stays small: large payloads are references, the model's transcript is
// stored outside it, and no answer holds the whole conversation. The payload store holds each large value once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runner, type AgentRunResult } from '../../client';
import { CountersignError } from '../../client/errors';
import { rootCause } from '../../core/run/failures';
import { approveUntilDone, NEWSLETTERS, newsletterScript, turnsScript } from '../../bench/growth';
import { historyFigures } from '../../bench/history';
import { folderBytes, storeBreakdown, storeFiles } from '../../bench/storeBreakdown';
import { newId, outboxOf } from '../support/fixtures';
import { type Harness, startHarness } from '../support/harness';

describe('with payload storage (the file store, in a folder of its own)', () => {
  let h: Harness;
  let runner: Runner;
  const storeDir = mkdtempSync(join(tmpdir(), 'countersign-large-runs-'));
  beforeAll(async () => {
    h = await startHarness({ payloadStorage: { kind: 'file', dir: storeDir, thresholdBytes: 256 * 1024 } });
    runner = new Runner(h.client, { taskQueue: h.taskQueue });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(storeDir, { recursive: true, force: true });
  });

  test('12 newsletters of 280 KB, each approved, complete across continue-as-new with one email each', async () => {
    const workflowId = newId('newsletters');
    h.model.script(workflowId, newsletterScript(280_000));
    const [bytesBefore, filesBefore] = [folderBytes(storeDir), storeFiles(storeDir)];
    const first = await runner.run('email-assistant', 'Send alice the 12 newsletters, one after another', {
      workflowId,
      continueAsNewAfterEvents: 40,
      maxTurns: 20,
    });
    const done = (await approveUntilDone(runner, first)) as AgentRunResult & { approvals: number };
    expect(done.status).toBe('Completed');
    expect(done.finalOutput).toBe('All 12 newsletters are sent.');
    expect(done.approvals).toBe(NEWSLETTERS);

    const sent = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`));
    expect(sent.map((e) => e.idempotencyKey).sort()).toEqual(
      Array.from({ length: NEWSLETTERS }, (_, i) => `${workflowId}:news-${i + 1}`).sort(),
    );

    const state = await runner.describe(workflowId);
    expect(state.continuedAsNew).toBeGreaterThanOrEqual(1);
    // The whole conversation reads back in pages: user message, 12 calls with their bodies, 12 outputs, the answer.
    const items = [];
    for await (const item of runner.conversation(workflowId)) items.push(item);
    expect(items).toHaveLength(2 + 2 * NEWSLETTERS);
    const calls = items.filter((i) => i.type === 'function_call');
    expect(calls.map((c) => (JSON.parse(c.arguments) as { body: string }).body.length)).toEqual(
      Array(NEWSLETTERS).fill(280_000),
    );
    // The model saw the whole conversation on its last turn, from the stored transcript.
    const last = h.model.requests.filter((r) => r.runId === workflowId).at(-1)!;
    expect(last.items.filter((i) => JSON.stringify(i).includes('Newsletter ')).length).toBeGreaterThanOrEqual(
      NEWSLETTERS,
    );
    expect(JSON.stringify(last.items).length).toBeGreaterThan(NEWSLETTERS * 280_000);

    const figures = await historyFigures(h.client, workflowId);
    expect(figures.runs).toBeGreaterThanOrEqual(2);
    expect(figures.largestPayload).toBeLessThan(256 * 1024); // every larger one is a reference
    expect(figures.largestModelInput).toBeLessThan(256 * 1024);

    // Each body went to the payload store once (as a value of its own), however many payloads held it: the model's
    // answer and its next input, the transcript, the tool's input, the pending view, the continue-as-new carries.
    const content = NEWSLETTERS * 280_000;
    const stored = folderBytes(storeDir) - bytesBefore;
    expect(stored).toBeGreaterThan(content);
    expect(stored).toBeLessThan(2 * content);
    expect(storeBreakdown(storeDir, filesBefore).get('large value (one per distinct string)')?.files).toBe(NEWSLETTERS);
  });

  test('500 turns with 100 approvals complete; history per turn stays flat', async () => {
    const workflowId = newId('long-run');
    h.model.script(workflowId, turnsScript(500));
    const first = await runner.run('email-assistant', 'Work through the backlog', {
      workflowId,
      maxTurns: 501,
      continueAsNewAfterEvents: 2000,
    });
    const done = (await approveUntilDone(runner, first)) as AgentRunResult & { approvals: number };
    expect(done.status).toBe('Completed');
    expect(done.approvals).toBe(100);
    const state = await runner.describe(workflowId);
    expect(state.turn).toBe(501);
    expect(state.cursor.items).toBe(1 + 500 * 2 + 1);
    expect(await runner.audit(workflowId)).toHaveLength(100);
    expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`))).toHaveLength(100);

    const figures = await historyFigures(h.client, workflowId);
    // The model's input never grows with the conversation (1002 items): it is what is new since the last turn.
    expect(figures.largestModelInput).toBeGreaterThan(0);
    expect(figures.largestModelInput).toBeLessThan(4 * 1024);
    // The continue-as-new carry holds each item once; from 256 KiB on it is a reference.
    expect(figures.runs).toBeGreaterThanOrEqual(2);
    expect(figures.largestPayload).toBeLessThan(256 * 1024);
  }, 600_000);
});

describe('with payload storage off', () => {
  let h: Harness;
  let runner: Runner;
  beforeAll(async () => {
    h = await startHarness({ payloadStorage: { kind: 'off' } });
    runner = new Runner(h.client, { taskQueue: h.taskQueue });
  });
  afterAll(() => h?.close());

  test('a conversation past the 2 MB limit fails the run with PayloadTooLarge instead of hanging', async () => {
    const workflowId = newId('newsletters-off');
    h.model.script(workflowId, newsletterScript(300_000));
    const first = await runner.run('email-assistant', 'Send alice the 12 newsletters, one after another', {
      workflowId,
      maxTurns: 20,
    });
    // The run fails wherever the limit is reached (a model turn, or a continue-as-new the server suggests while it
    // waits): the client sees it end, and its failure says why and what to change.
    const failure = await approveUntilDone(runner, first).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(CountersignError);
    const closed = await h.client.workflow
      .getHandle(workflowId)
      .result()
      .then(
        () => undefined,
        (err: unknown) => rootCause(err),
      );
    expect(closed?.type).toBe('PayloadTooLarge');
    expect(closed?.message).toMatch(
      /is \d+\.\d MB, over Temporal's 2 MB payload limit, and this worker keeps payloads in history \(COUNTERSIGN_PAYLOAD_STORAGE=off\)/,
    );
    expect((await h.client.workflow.getHandle(workflowId).describe()).status.name).toBe('FAILED');
  });
});
