// A run's text on the terminal: the model's words, a call's arguments and a tool's output that hold escape sequences
// (ESC[2K erases the line, ESC[1A moves up, ESC]8;; is a hyperlink) and a bidirectional override (U+202E) reach
// `conversation`, `show`, `result` and `watch` shown as escapes, never as the sequences; `--json` stays plain JSON.
// And `show` of a run that failed at start has no stray `@` after the agent's name.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { cliEnv, countersignExit } from '../support/countersignCli';

jest.setTimeout(300_000); // child processes are slow on a loaded machine

const ESC = '\u001b';
const HOSTILE = `${ESC}[2K${ESC}[1Aall clear ${ESC}]8;;https://evil.example/${ESC}\\docs${ESC}]8;;${ESC}\\ \u202etxt.exe`;
const SHOWN =
  '\\u001b[2K\\u001b[1Aall clear \\u001b]8;;https://evil.example/\\u001b\\docs\\u001b]8;;\\u001b\\ \\u202etxt.exe';

const noteAgent = defineAgent({
  name: 'note-taker',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'take_note',
      description: 'Take a note',
      parameters: z.object({ note: z.string() }),
      needsApproval: true,
      execute: ({ note }) => `noted: ${note}`,
    }),
  ],
});

let h: Harness;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  // A worker with an identity of its own does not say which agents it serves, so a run of an unknown agent starts
  // (and fails at once), as the show test below needs; where workers say, the start is refused (nextStepMessages.test.ts).
  h = await startHarness({ registry: new AgentRegistry([noteAgent]), workerOptions: { identity: 'safe-terminal' } });
  env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
});
afterAll(async () => h?.close());

const cli = (...args: string[]) => countersignExit(args, env);

/** Nothing a terminal would act on: no ESC, no other control character but newlines, no bidirectional override. */
const inert = (out: string) =>
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(out);

test('conversation, show, result and watch show escape sequences and U+202E from a run as escapes; --json is plain JSON', async () => {
  const id = newId('hostile');
  h.model.script(id, [
    {
      text: `Taking a note. ${HOSTILE}`,
      toolCalls: [{ name: 'take_note', arguments: { note: HOSTILE }, callId: 'n1' }],
    },
    { text: `Done: ${HOSTILE}` },
  ]);
  const started = await cli('start', 'note-taker', 'take a note', '--workflow-id', id, '--wait');
  expect(started.code).toBe(0);
  expect(inert(started.stdout)).toBe(true);
  expect(started.stdout).toContain('{"note":"\\u001b[2K\\u001b[1Aall clear \\u001b]8;;https://evil.example/'); // the pending table's ARGUMENTS: the call's JSON
  expect(started.stdout).toContain('\\u202e'); // raw in the JSON, shown by the CLI

  const waiting = await cli('show', id);
  expect(waiting.code).toBe(0);
  expect(inert(waiting.stdout)).toBe(true);
  expect(waiting.stdout).toContain(`    note: ${SHOWN}`); // the argument as a person reads it
  expect(waiting.stdout).toContain(`assistant: Taking a note. ${SHOWN}`);

  expect((await cli('approve', id, 'n1', '--as', 'ann')).code).toBe(0);
  const result = await cli('result', id, '--wait');
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(`Done: ${SHOWN}\n`);

  const conversation = await cli('conversation', id);
  expect(inert(conversation.stdout)).toBe(true);
  const lines = conversation.stdout.trimEnd().split('\n');
  expect(lines).toContain(`assistant: Taking a note. ${SHOWN}`);
  expect(lines).toContain(`← n1: noted: ${SHOWN}`); // the tool's output
  expect(lines).toContain(`assistant: Done: ${SHOWN}`);
  expect(lines.some((l) => l.startsWith('→ take_note note \\u001b[2K\\u001b[1Aall clear'))).toBe(true); // the call's arguments

  const shown = await cli('show', id);
  expect(inert(shown.stdout)).toBe(true);
  expect(shown.stdout).toContain(`Final output\nDone: ${SHOWN}`);
  expect(shown.stdout).toMatch(/Agent {5}note-taker@\S+/);

  const watched = await cli('watch', id);
  expect(watched.code).toBe(0);
  expect(inert(watched.stdout)).toBe(true);
  expect(watched.stdout).toContain(`← n1: noted: \\u001b[2K\\u001b[1Aall clear`);
  expect(watched.stdout).toContain(`note-taker: Done: ${SHOWN}`);
  expect(watched.stdout).toContain(`completed: Done: ${SHOWN}`);

  // --json: the run's text exactly, as JSON.stringify writes it (C0 escaped by JSON itself, U+202E as it is).
  const json = await cli('result', id, '--json');
  expect(JSON.parse(json.stdout).finalOutput).toBe(`Done: ${HOSTILE}`);
  expect(json.stdout).toContain(JSON.stringify(`Done: ${HOSTILE}`));
  const items = (await cli('conversation', id, '--json')).stdout.trimEnd().split('\n');
  expect(
    items.map((l) => JSON.parse(l) as { type: string; output?: string }).find((i) => i.type === 'function_call_output')
      ?.output,
  ).toBe(`noted: ${HOSTILE}`);
  expect(items.every((l) => l === JSON.stringify(JSON.parse(l)))).toBe(true);
  const events = (await cli('watch', id, '--json')).stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; finalOutput?: string });
  expect(events.find((e) => e.type === 'run_completed')?.finalOutput).toBe(`Done: ${HOSTILE}`);
});

test('show of a run that failed at start (no such agent) names the agent without a stray @', async () => {
  const id = newId('no-agent');
  const started = await cli('start', 'refund', 'refund A-17', '--workflow-id', id, '--wait');
  expect(started.code).toBe(1);
  expect(started.stderr).toMatch(/^countersign: run no-agent-\S+ failed: no agent named "refund" on this worker/);
  const shown = await cli('show', id);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/^Agent {5}refund\n/m);
  expect(shown.stdout).not.toContain('refund@');
  expect(shown.stdout).toContain('Failed (AgentUnavailable): no agent named "refund" on this worker');
});
