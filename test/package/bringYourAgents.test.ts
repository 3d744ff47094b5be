// Bring your agents, as a team with existing agents would: the packed package installed into a new project with
// @openai/agents and ai from the registry; the SDK's agents and AI SDK tools (test/package/byo/agents.mjs, unchanged
// but for the two adapter calls) served by a worker process of that project, and driven by its client with the SDK's
// calling habits (test/package/byo/drive.mjs) against the shared dev server and the scripted model. One install, one
// worker for every scenario (run at once), then that worker SIGKILLed while a call waits and a new one started.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import type { ScriptStep } from '../../devtools/scriptSteps';
import { newId } from '../support/fixtures';
import { npmInstall, packProject, pinned, run } from '../support/packageInstall';
import { type Spawned, spawnProcess } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(600_000); // packing builds the package; the install and child processes are slow on a loaded 2-core machine

interface Seen {
  status: string;
  agent: string;
  finalOutput?: string;
  interruptions: Array<{ callId: string; toolName: string; args?: unknown; agentName: string; runId?: string }>;
}
type Outcome = Record<string, unknown> & { error?: string; paused?: Seen; done?: Seen };

let model: ScriptedModel;
let consumer: string;
let toolLog: string;
let worker: Spawned;
let outcomes: Record<string, Outcome>;
const prefix = newId('byo');
const workers: Spawned[] = [];

const calls = (...c: Array<[string, Record<string, unknown>, string]>): ScriptStep => ({
  toolCalls: c.map(([name, args, callId]) => ({ name, arguments: args, callId })),
});
const city = (name: string) => ({ city: name });

/** What the model answers in each scenario, by workflow id (drive.mjs runs `<prefix>-<scenario>`). */
function scriptModel(): void {
  const s = (scenario: string, steps: ScriptStep[]) => model.script(`${prefix}-${scenario}`, steps);
  s('approve', [
    calls(['get_weather', city('Oslo'), 'ap-1'], ['get_weather', city('San Francisco'), 'ap-2']),
    { text: 'Oslo and San Francisco are sunny' },
  ]);
  s('reject', [calls(['get_weather', city('San Diego'), 'rj-1']), { text: 'Sorry, no weather for San Diego' }]);
  s('text', [calls(['get_weather', city('San Jose'), 'tx-1']), { text: 'San Jose is sunny' }]);
  s('nested', [calls(['ask_researcher', { input: 'Look up R-1' }, 'ns-1']), { text: 'R-1 is Ada Lovelace' }]);
  s('nested/ns-1', [calls(['lookup_record', { id: 'R-1' }, 'ns-2']), { text: 'Record R-1: Ada Lovelace' }]);
  s('handoff', [calls(['transfer_to_billing', {}, 'hd-1']), { text: 'Billing here: your refund is on its way' }]);
  s('guardrail-ok', [{ text: 'Hello!' }]);
  s('guardrail', [{ text: 'The guardrail should have stopped this' }]);
  s('mail', [
    calls(
      ['send_email', { to: 'bob@example.com', body: 'hi' }, 'ml-1'],
      ['send_email', { to: 'eve@elsewhere.test', body: 'hi' }, 'ml-2'],
      ['read_inbox', { folder: 'inbox' }, 'ml-3'],
      ['delete_email', { id: 'm-9' }, 'ml-4'],
      ['archive_email', { id: 'm-7' }, 'ml-5'],
    ),
    { text: 'Inbox tidied' },
  ]);
  s('rules', [
    calls(
      ['archive_email', { id: 'a-1' }, 'ru-1'],
      ['archive_email', { id: 'vip-2' }, 'ru-2'],
      ['delete_email', { id: 'm-3' }, 'ru-3'],
    ),
    { text: 'Archived' },
  ]);
  s('kill', [calls(['get_weather', city('San Antonio'), 'kl-1']), { text: 'San Antonio is sunny' }]);
}

/** The consumer's processes see the shared test server, the scripted model, a task queue and a tool log. */
function consumerEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: join(consumer, 'none.toml'),
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'test-key',
    TASK_QUEUE: `${prefix}-queue`,
    COUNTERSIGN_PAYLOAD_DIR: join(consumer, 'payloads'),
    BYO_TOOL_LOG: toolLog,
  };
}

async function startConsumerWorker(): Promise<Spawned> {
  const w = spawnProcess(process.execPath, ['worker.mjs'], { cwd: consumer, env: consumerEnv() });
  workers.push(w);
  await w.waitFor(/byo worker polling/, 120_000);
  return w;
}

/** Runs drive.mjs to its end and returns the JSON it printed last. */
async function drive(args: string[]): Promise<Record<string, unknown>> {
  const r = await run(process.execPath, ['drive.mjs', ...args], { cwd: consumer, env: consumerEnv() });
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.code !== 0 || !last.startsWith('{'))
    throw new Error(`drive.mjs ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}\n${worker?.output()}`);
  return JSON.parse(last) as Record<string, unknown>;
}

/** How many times the tool log says `line` ran. */
const ranTimes = (line: string) =>
  readFileSync(toolLog, { encoding: 'utf8', flag: 'a+' })
    .split('\n')
    .filter((l) => l === line).length;

/** The outputs of tool calls the model was shown in the last request of `workflowId`. */
function outputsSeen(workflowId: string): Record<string, string> {
  const last = model.requests.filter((r) => r.runId === workflowId).at(-1);
  return Object.fromEntries((last?.items ?? []).flatMap((i) => (i.kind === 'output' ? [[i.callId, i.output]] : [])));
}

/** A scenario's outcome; a scenario that threw in drive.mjs fails here with its error. */
function outcome(name: string): Outcome {
  const o = outcomes[name]!;
  expect(o.error).toBeUndefined();
  return o;
}

beforeAll(async () => {
  model = await startScriptedModel();
  const tarball = await packProject();
  consumer = mkdtempSync(join(tmpdir(), 'countersign-byo-'));
  toolLog = join(consumer, 'tools.log');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'byo', version: '1.0.0', private: true }));
  await npmInstall(consumer, [
    tarball,
    `@openai/agents@${pinned('@openai/agents')}`,
    `ai@${pinned('ai')}`,
    `zod@${pinned('zod')}`,
  ]);
  cpSync(join(projectRoot, 'test/package/byo'), consumer, { recursive: true });
  scriptModel();
  worker = await startConsumerWorker();
  outcomes = (await drive(['all', prefix])) as Record<string, Outcome>;
});

afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await model?.close();
});

test('the installed versions are the SDKs this project pins', () => {
  for (const name of ['@openai/agents', '@openai/agents-core', 'ai']) {
    const pkg = JSON.parse(readFileSync(join(consumer, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(`${name}@${pkg.version}`).toBe(
      `${name}@${pinned(name === '@openai/agents-core' ? '@openai/agents' : name)}`,
    );
  }
});

test('a predicate needsApproval: one call pauses, one does not; approved through result.state, each ran once', () => {
  const { paused, done } = outcome('approve');
  expect(paused).toMatchObject({
    status: 'AwaitingApproval',
    interruptions: [{ callId: 'ap-2', toolName: 'get_weather', args: { city: 'San Francisco' }, agentName: 'weather' }],
  });
  expect(paused!.interruptions).toHaveLength(1);
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'Oslo and San Francisco are sunny' });
  expect([ranTimes('get_weather Oslo'), ranTimes('get_weather San Francisco')]).toEqual([1, 1]);
  expect(outputsSeen(`${prefix}-approve`)).toEqual({
    'ap-1': 'The weather in Oslo is sunny',
    'ap-2': 'The weather in San Francisco is sunny',
  });
});

test('rejected with a message: the model sees the message, the tool never ran', () => {
  const { paused, done } = outcome('reject');
  expect(paused!.interruptions.map((i) => i.callId)).toEqual(['rj-1']);
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'Sorry, no weather for San Diego' });
  expect(ranTimes('get_weather San Diego')).toBe(0);
  expect(outputsSeen(`${prefix}-reject`)['rj-1']).toContain('No weather for San Diego today, sorry');
});

test('the state round-trips through text: RunState.fromString(agent, text) and fromString(text)', () => {
  const { read, otherAgent, done } = outcome('text');
  expect(read).toEqual({ workflowId: `${prefix}-text`, plain: `${prefix}-text`, interruptions: 1 });
  expect(otherAgent).toBe('RunStateError'); // fromString(agent, text) refuses another agent's state
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'San Jose is sunny' });
  expect(ranTimes('get_weather San Jose')).toBe(1);
});

test("an asTool() agent's own approval surfaces on the top run and is decided there", () => {
  const { paused, done } = outcome('nested');
  expect(paused).toMatchObject({ status: 'AwaitingApproval', agent: 'desk' });
  expect(paused!.interruptions).toEqual([
    {
      callId: 'ns-2',
      toolName: 'lookup_record',
      args: { id: 'R-1' },
      agentName: 'researcher',
      runId: `${prefix}-nested/ns-1`,
    },
  ]);
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'R-1 is Ada Lovelace' });
  expect(ranTimes('lookup_record R-1')).toBe(1);
  expect(outputsSeen(`${prefix}-nested`)['ns-1']).toBe('Record R-1: Ada Lovelace'); // the sub-agent's answer
});

test('a handoff: the next agent answers, with its instructions function called with the run context', () => {
  const { done } = outcome('handoff');
  expect(done).toMatchObject({
    status: 'Completed',
    agent: 'billing',
    finalOutput: 'Billing here: your refund is on its way',
  });
  const requests = model.requests.filter((r) => r.runId === `${prefix}-handoff`);
  expect(requests).toHaveLength(2);
  expect(requests[0]!.tools).toEqual(expect.arrayContaining(['transfer_to_billing', 'escalate_to_support']));
  expect(JSON.stringify(requests[1]!.body)).toContain('You handle billing (context: {\\"plan\\":\\"pro\\"}).');
});

test('an input guardrail: passes a harmless message, and its tripwire fails the run as in the SDK', () => {
  const { passed, threw } = outcome('guardrail');
  expect(passed).toMatchObject({ status: 'Completed', finalOutput: 'Hello!' });
  expect(threw).toMatchObject({
    name: 'InputGuardrailTripwireTriggered',
    type: 'InputGuardrailTripwireTriggered',
    typed: true,
  });
});

test('AI SDK tools: needsApproval asks for one recipient, toolApproval approves, denies and asks', () => {
  const { paused, done } = outcome('mail');
  expect(paused!.interruptions.map((i) => [i.callId, i.toolName, i.args])).toEqual([
    ['ml-2', 'send_email', { to: 'eve@elsewhere.test', body: 'hi' }],
    ['ml-5', 'archive_email', { id: 'm-7' }],
  ]);
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'Inbox tidied' });
  expect(
    ['send_email bob@example.com', 'send_email eve@elsewhere.test', 'read_inbox inbox', 'archive_email m-7'].map(
      ranTimes,
    ),
  ).toEqual([1, 1, 1, 1]);
  expect(ranTimes('delete_email m-9')).toBe(0); // denied: never ran, and the model was told
  const seen = outputsSeen(`${prefix}-mail`);
  expect(Object.keys(seen).sort()).toEqual(['ml-1', 'ml-2', 'ml-3', 'ml-4', 'ml-5']);
  expect(seen['ml-4']).not.toContain('deleted');
});

test('AI SDK toolApproval as one function: approved, asked, and denied with its reason for the model', () => {
  const { paused, done } = outcome('rules');
  expect(paused!.interruptions.map((i) => [i.callId, i.toolName, i.args])).toEqual([
    ['ru-2', 'archive_email', { id: 'vip-2' }],
  ]);
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'Archived' });
  expect(['archive_email a-1', 'archive_email vip-2', 'delete_email m-3'].map(ranTimes)).toEqual([1, 1, 0]);
  expect(outputsSeen(`${prefix}-rules`)['ru-3']).toContain('We never delete mail');
});

test('the worker SIGKILLed while a call waits: a new worker process, the run decided from saved text, ran once', async () => {
  const { paused, state } = outcome('kill');
  expect(paused!.interruptions.map((i) => [i.callId, i.args])).toEqual([['kl-1', { city: 'San Antonio' }]]);
  const stateFile = join(consumer, 'kill.state.json');
  writeFileSync(stateFile, state as string);
  worker.kill('SIGKILL');
  expect(await worker.exited).toBeNull(); // killed, not exited
  worker = await startConsumerWorker();
  const { done } = (await drive(['resume', stateFile])) as { done: Seen };
  expect(done).toMatchObject({ status: 'Completed', finalOutput: 'San Antonio is sunny' });
  expect(ranTimes('get_weather San Antonio')).toBe(1);
});

test('an ES module run by tsx (as `npx tsx worker.ts` runs one) maps an asTool() agent to its sub-run', async () => {
  // tsx gives require() a copy of the SDK's ES modules of its own; the package's ES module entry hands the adapter
  // the registry import() reached, where the app's asTool() tools were recorded.
  writeFileSync(
    join(consumer, 'tsx-probe.mts'),
    [
      `import { Agent } from '@openai/agents';`,
      `import { fromOpenAIAgents } from 'countersign/openai-agents';`,
      `const inner = new Agent({ name: 'inner', instructions: 'Answer.' });`,
      `const tool = inner.asTool({ toolName: 'ask_inner', toolDescription: 'Ask the inner agent' });`,
      `const agents = fromOpenAIAgents(new Agent({ name: 'outer', instructions: 'Ask.', tools: [tool] }));`,
      `console.log(JSON.stringify(agents.map((a) => [a.name, a.tools.map((t) => t.subAgent ?? t.name)])));`,
    ].join('\n'),
  );
  const probe = await run(process.execPath, ['--import', 'tsx', 'tsx-probe.mts'], { cwd: consumer });
  expect({ code: probe.code, stderr: probe.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(probe.stdout.trim())).toEqual([
    ['outer', ['inner']],
    ['inner', []],
  ]);
});
