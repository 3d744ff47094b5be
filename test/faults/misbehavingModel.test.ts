// A model that misbehaves: unknown tools, malformed or schema-violating arguments, empty answers, provider 500s
// and requests that time out. Each is surfaced to the model or retried by Temporal; no run is lost.
import { AgentRegistry, demoAgents } from '../../agents';
import { Runner } from '../../client';
import type { ScriptStep } from '../../devtools/scriptSteps';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { count, recordSummary } from './faultSupport';

jest.setTimeout(600_000);

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry(demoAgents), requestTimeoutMs: 1500 });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const cases: Array<{ name: string; script: ScriptStep[]; final: string; requests: number }> = [
  {
    name: 'unknown tool',
    script: [{ toolCalls: [{ name: 'rm_rf', arguments: {}, callId: 'u' }] }, { text: 'ok' }],
    final: 'ok',
    requests: 2,
  },
  {
    name: 'malformed JSON arguments',
    script: [{ toolCalls: [{ name: 'lookup_contact', arguments: '{"name": al', callId: 'm' }] }, { text: 'ok' }],
    final: 'ok',
    requests: 2,
  },
  {
    name: 'schema violation',
    script: [{ toolCalls: [{ name: 'lookup_contact', arguments: { name: ['a'] }, callId: 's' }] }, { text: 'ok' }],
    final: 'ok',
    requests: 2,
  },
  { name: 'empty answer', script: [{}], final: '', requests: 1 },
  {
    name: 'provider 500 twice',
    script: [
      { error: { status: 500, message: 'boom' } },
      { error: { status: 502, message: 'bad gateway' } },
      { text: 'ok' },
    ],
    final: 'ok',
    requests: 3,
  },
  { name: 'request timeout', script: [{ delayMs: 4000, text: 'too late' }, { text: 'ok' }], final: 'ok', requests: 2 },
];

test('every misbehaviour is surfaced to the model or retried, and the run completes', async () => {
  const rounds = count(1, 5);
  let completed = 0;
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const workflowId = newId(`model-${c.name.replace(/\W+/g, '-')}`);
      h.model.script(workflowId, c.script);
      const result = await runner.run('email-assistant', 'hi', { workflowId });
      expect([c.name, result.status, result.finalOutput]).toEqual([c.name, 'Completed', c.final]);
      expect([c.name, h.model.requests.filter((q) => q.runId === workflowId).length]).toEqual([c.name, c.requests]);
      completed += 1;
    }
  }
  recordSummary({
    suite: 'misbehaving model',
    cases: rounds * cases.length,
    passed: completed,
    notes: cases.map((c) => c.name).join(', '),
  });
});
