// Model text deltas reach a reader while the model call still runs, over the worker's delta relay, for both APIs;
// history holds only the final text. With the relay off, runs are unchanged and there are no deltas.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { followModelDeltas, type ModelDelta } from '../../client/run/modelDeltas';
import type { RunResult } from '../../contract/runViews';
import { eventually, historyText } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

// Five 16-character chunks (the scripted model streams text 16 characters at a time), each unlike anything else.
const CHUNKS = ['Quokka-alpha-01 ', 'Quokka-bravo-02 ', 'Quokka-charl-03 ', 'Quokka-delta-04 ', 'Quokka-echoo-05.'];
const TEXT = CHUNKS.join('');
const CHUNK_DELAY_MS = 400;

async function startRun(h: Harness, delayMs?: number): Promise<{ workflowId: string; handle: WorkflowHandle }> {
  const workflowId = `deltas-${randomUUID()}`;
  h.model.script(workflowId, [{ text: TEXT, chunkDelayMs: CHUNK_DELAY_MS, ...(delayMs ? { delayMs } : {}) }]);
  const handle = await h.client.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ agent: 'email-assistant', input: 'Stream it' }],
  });
  return { workflowId, handle };
}

async function collect(deltas: AsyncIterable<ModelDelta>): Promise<Array<ModelDelta & { received: number }>> {
  const got: Array<ModelDelta & { received: number }> = [];
  for await (const d of deltas) got.push({ ...d, received: Date.now() });
  return got;
}

/** When the run's (only) modelTurn activity completed, per the history. */
async function modelTurnCompletedAt(handle: WorkflowHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const modelTurns = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelTurn')
      .map((e) => String(e.eventId)),
  );
  const completed = events.filter((e) =>
    modelTurns.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)),
  );
  expect(completed).toHaveLength(1);
  return tsToMs(completed[0]!.eventTime);
}

describe.each(['responses', 'chat'] as const)('model deltas over the %s API', (api) => {
  let h: Harness;
  beforeAll(async () => (h = await startHarness({ api })));
  afterAll(async () => h?.close());

  test('deltas arrive in order while the model call runs, add up to the final message, and stay out of history', async () => {
    const { workflowId, handle } = await startRun(h);
    const early = collect(followModelDeltas(h.client, workflowId, 1));
    // A second reader that comes once three chunks are out still gets the turn from its start.
    const sentForRun = () => h.model.sentChunks.filter((c) => c.runId === workflowId);
    await eventually(() => (sentForRun().length >= 3 ? true : undefined), 10_000); // bounded: a call that does not stream sends none
    const late = collect(followModelDeltas(h.client, workflowId, 1));

    const result = (await handle.result()) as RunResult;
    const [first, second] = [await early, await late];
    expect(result.status).toBe('Completed');
    expect(result.finalOutput).toBe(TEXT);
    expect(first.map((d) => d.delta)).toEqual(CHUNKS);
    expect(second.map((d) => d.delta)).toEqual(CHUNKS);
    expect(first.map((d) => d.delta).join('')).toBe(result.finalOutput);
    expect(h.model.requests.filter((q) => q.runId === workflowId).map((q) => q.stream)).toEqual([true]);

    // The first delta reached the reader well before the model call completed (the other four took 4 × 400 ms).
    const completedAt = await modelTurnCompletedAt(handle);
    expect(first[0]!.received).toBeLessThan(completedAt - CHUNK_DELAY_MS);
    expect(Date.parse(first[0]!.at)).toBeLessThan(completedAt - 2 * CHUNK_DELAY_MS);
    expect(Date.parse(first[4]!.at) - Date.parse(first[0]!.at)).toBeGreaterThanOrEqual(3 * CHUNK_DELAY_MS);
    // Once connected, the reader gets each delta soon after the model sent it, not all at once at the end.
    expect(first[4]!.received - sentForRun()[4]!.at).toBeLessThan(CHUNK_DELAY_MS);

    // History: the final text, never a chunk on its own, nor the relay's address.
    const text = await historyText(handle);
    expect(text).toContain(TEXT);
    const withoutFinal = text.split(TEXT).join('');
    for (const chunk of CHUNKS) expect(withoutFinal).not.toContain(chunk.trim());
    expect(text).not.toContain('/turns/1');
  });

  test('once the run is over, following its turn yields nothing at once', async () => {
    const { workflowId, handle } = await startRun(h);
    await handle.result();
    const started = Date.now();
    expect(await collect(followModelDeltas(h.client, workflowId, 1))).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('with the delta relay off (COUNTERSIGN_DELTA_RELAY=off)', () => {
  let h: Harness;
  beforeAll(async () => (h = await startHarness({ deltaRelay: false })));
  afterAll(async () => h?.close());

  test('the run is unchanged: the model call does not stream, and followModelDeltas yields nothing', async () => {
    const { workflowId, handle } = await startRun(h, 3_000); // the model takes 3 s: the reader gives up in its turn
    const deltas = await collect(followModelDeltas(h.client, workflowId, 1, { waitMs: 1_500 }));
    expect((await handle.describe()).raw.pendingActivities?.map((a) => a.activityType?.name)).toEqual(['modelTurn']);
    const result = (await handle.result()) as RunResult;
    expect(deltas).toEqual([]);
    expect(result.finalOutput).toBe(TEXT);
    expect(h.model.requests.filter((q) => q.runId === workflowId).map((q) => q.stream)).toEqual([false]);
  });
});
