// The model activity through a real workflow on a real Temporal dev server, against the scripted
// OpenAI-compatible server, over both APIs; plus Temporal-owned retries and fail-fast provider errors.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { RunInput } from '../../contract/messages';
import type { RunResult } from '../../contract/runViews';
import { historyText } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

async function run(h: Harness, input: RunInput, script?: Parameters<Harness['model']['script']>[1]) {
  const workflowId = `gateway-${randomUUID()}`;
  if (script) h.model.script(workflowId, script);
  const handle = await h.client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId, args: [input] });
  return { workflowId, handle, result: handle.result() as Promise<RunResult> };
}

describe.each(['responses', 'chat'] as const)('model gateway over the %s API', (api) => {
  let h: Harness;
  beforeAll(async () => (h = await startHarness({ api })));
  afterAll(async () => h?.close());

  test('a text answer becomes the final output, with usage', async () => {
    const { workflowId, result } = await run(h, { agent: 'email-assistant', input: 'Say hello' }, [
      { text: 'Hello there!' },
    ]);
    const r = await result;
    expect(r.status).toBe('Completed');
    expect(r.finalOutput).toBe('Hello there!');
    expect(r.usage.requests).toBe(1);
    expect(r.usage.totalTokens).toBeGreaterThan(0);
    const reqs = h.model.requests.filter((q) => q.runId === workflowId);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]!.api).toBe(api);
    expect(reqs[0]!.tools.sort()).toEqual(['delete_record', 'lookup_contact', 'send_email']);
    expect(reqs[0]!.items[0]).toEqual({
      kind: 'message',
      role: 'system',
      text: expect.stringContaining('manage their emails'),
    });
  });

  test('a tool call round-trips: the call and its output reach the next model request', async () => {
    const { workflowId, result } = await run(h, { agent: 'email-assistant', input: 'Find alice' }, [
      { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'alice' }, callId: 'call_lookup_1' }] },
      { text: 'Alice is alice@example.com' },
    ]);
    const r = await result;
    expect(r.finalOutput).toBe('Alice is alice@example.com');
    expect(r.usage.requests).toBe(2);
    const second = h.model.requests.filter((q) => q.runId === workflowId)[1]!;
    expect(second.items).toContainEqual({
      kind: 'call',
      callId: 'call_lookup_1',
      name: 'lookup_contact',
      arguments: '{"name":"alice"}',
    });
    expect(second.items).toContainEqual({ kind: 'output', callId: 'call_lookup_1', output: 'alice@example.com' });
  });
});

describe('provider errors', () => {
  let h: Harness;
  beforeAll(async () => (h = await startHarness({ api: 'chat' })));
  afterAll(async () => h?.close());

  test('a 500 is retried by Temporal and the run succeeds on the next attempt', async () => {
    const { workflowId, result } = await run(h, { agent: 'email-assistant', input: 'hi' }, [
      { error: { status: 500, message: 'upstream exploded' } },
      { text: 'recovered' },
    ]);
    const r = await result;
    expect(r.finalOutput).toBe('recovered');
    expect(h.model.requests.filter((q) => q.runId === workflowId)).toHaveLength(2);
  });

  test('a 429 with Retry-After is retried', async () => {
    const { workflowId, result } = await run(h, { agent: 'email-assistant', input: 'hi' }, [
      { error: { status: 429, message: 'slow down', retryAfterSeconds: 1 } },
      { text: 'after the wait' },
    ]);
    expect((await result).finalOutput).toBe('after the wait');
    expect(h.model.requests.filter((q) => q.runId === workflowId)).toHaveLength(2);
  });
});

describe('a rejected API key', () => {
  let h: Harness;
  beforeAll(async () => (h = await startHarness({ apiKey: 'sk-wrong-key-123', requiredApiKey: 'sk-right' })));
  afterAll(async () => h?.close());

  test('401 fails the run at once, non-retryably, with the provider message; the key is not in history', async () => {
    const { workflowId, handle, result } = await run(h, { agent: 'email-assistant', input: 'hi' });
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('ModelRequestRejected');
    expect(cause!.message).toContain('401');
    expect(cause!.message).toContain('Incorrect API key provided.');
    expect(h.model.requests.filter((q) => q.runId === workflowId)).toHaveLength(1);
    expect(h.model.requests[0]!.authorization).toBe('Bearer sk-wrong-key-123');
    const history = await historyText(handle);
    expect(history).not.toContain('sk-wrong-key-123');
    expect(history).toContain('Incorrect API key provided.'); // payloads were searched (the failure text is in there)
  });
});
