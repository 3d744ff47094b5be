// The examples of docs/bring-your-agents.md as a team would run them: each copied out of the repository, installed
// from the packed package (with @openai/agents / ai from the registry, at the versions this project pins), built with
// its own tsc, its worker started as a process against the shared test server and the scripted model (no API key),
// and its runner driven to the end: examples/openai-agents (the Agents SDK's own human-in-the-loop example, migrated)
// and examples/ai-sdk (AI SDK tools with needsApproval and toolApproval), the second also answered on the terminal
// after its worker was SIGKILLed and started again. And the page's five-minute quick start, run as written in the
// clone (its my-agents.ts served by `npm start` on a dev server of its own, stopped and started again while the
// call waits, each `npx countersign …` compared with the output the page shows).
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import { docWorkspace } from '../support/docWorkspace';
import { newId } from '../support/fixtures';
import { npmInstall, packProject, pinned, run } from '../support/packageInstall';
import { type Spawned, spawnProcess, spawnTs } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(600_000); // packing builds the package; installs and child processes are slow on a loaded 2-core machine

let tarball: string | undefined;
let model: ScriptedModel;
const children: Spawned[] = [];
const runners: ChildProcess[] = [];

beforeAll(async () => {
  model = await startScriptedModel();
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const r of runners) r.kill('SIGKILL');
  await model?.close();
});

/** The example copied to a folder of its own, installed with the packed package, and built (tsc prints nothing). */
async function installed(example: string, pins: string[]): Promise<string> {
  const app = mkdtempSync(join(tmpdir(), `${example}-`));
  cpSync(join(projectRoot, 'examples', example), app, {
    recursive: true,
    filter: (src) => !/\/(node_modules|dist)(\/|$)/.test(src),
  });
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  // The example pins what this project pins, so its install comes from the same cache.
  for (const name of ['zod', 'typescript', '@types/node', ...pins])
    expect({ name, version: pkg.dependencies[name] ?? pkg.devDependencies[name] }).toEqual({
      name,
      version: pinned(name),
    });
  tarball ??= await packProject(); // once per jest run, shared with the other package tests
  await npmInstall(app, [tarball]);
  const build = await run('npm', ['run', 'build', '--silent'], { cwd: app });
  expect(build.stdout + build.stderr).toBe('');
  return app;
}

/** What the example's processes see: the shared test server, the scripted model, a task queue of their own. */
function exampleEnv(app: string, taskQueue: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: join(app, 'none.toml'),
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'test-key',
    COUNTERSIGN_TASK_QUEUE: taskQueue,
    COUNTERSIGN_PAYLOAD_DIR: join(app, 'payloads'),
    ...extra,
  };
}

async function startExampleWorker(app: string, env: NodeJS.ProcessEnv, banner: RegExp): Promise<Spawned> {
  const worker = spawnProcess(process.execPath, ['dist/worker.js'], { cwd: app, env });
  children.push(worker);
  await worker.waitFor(banner);
  return worker;
}

const outputLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => !l.includes('[INFO]'));

test("examples/openai-agents: the Agents SDK's human-in-the-loop example runs to its end, approvals asked for the Oakland temperature and the agent-as-tool", async () => {
  const app = await installed('openai-agents', ['@openai/agents']);
  const env = exampleEnv(app, newId('openai-agents'));
  await startExampleWorker(app, env, /openai-agents worker polling/);

  // The model asks for both temperatures and the weather agent at once; inside the weather agent's sub-run it calls
  // get_weather; the answers after the tools ran come from the scripted model's demo brain (it quotes the results).
  model.script('*', [
    {
      toolCalls: [
        { name: 'get_temperature', arguments: { city: 'San Francisco' }, callId: 'call_temp_sf' },
        { name: 'get_temperature', arguments: { city: 'Oakland' }, callId: 'call_temp_oak' },
        { name: 'ask_weather_agent', arguments: { input: 'San Francisco and Oakland' }, callId: 'call_weather' },
      ],
    },
    {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'San Francisco' } },
        { name: 'get_weather', arguments: { city: 'Oakland' } },
      ],
    },
  ]);
  const r = await run(process.execPath, ['dist/run.js'], { cwd: app, env: { ...env, AUTO_APPROVE_HITL: '1' } });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  const lines = outputLines(r.stdout);
  // Exactly the two calls the SDK's predicates gate, asked once each; San Francisco's temperature ran at once.
  expect(lines.filter((l) => l.startsWith('[auto-approve]')).sort()).toEqual([
    '[auto-approve] Agent Basic test agent would like to use the tool ask_weather_agent with "{"input":"San Francisco and Oakland"}". Do you approve?',
    '[auto-approve] Agent Basic test agent would like to use the tool get_temperature with "{"city":"Oakland"}". Do you approve?',
  ]);
  const answer = lines.slice(lines.findLastIndex((l) => l.startsWith('[auto-approve]')) + 1).join('\n');
  expect(answer).toContain('The temperature in San Francisco is 20° Celsius');
  expect(answer).toContain('The temperature in Oakland is 20° Celsius');
  expect(answer).toContain('The weather in San Francisco is sunny');
  expect(answer).toContain('The weather in Oakland is sunny');
  // The loop saved the state as the SDK's example does, and read it back with RunState.fromString(agent, text).
  expect(JSON.parse(readFileSync(join(app, 'result.json'), 'utf8'))).toMatchObject({
    agent: { name: 'Basic test agent' },
  });
});

describe('examples/ai-sdk', () => {
  let app: string;
  let env: NodeJS.ProcessEnv;
  let worker: Spawned;
  const ledger = () =>
    existsSync(join(app, 'ledger.log')) ? readFileSync(join(app, 'ledger.log'), 'utf8').trim().split('\n') : [];
  const banner = /ai-sdk worker polling/;

  beforeAll(async () => {
    app = await installed('ai-sdk', ['ai']);
    env = exampleEnv(app, newId('ai-sdk'));
    worker = await startExampleWorker(app, env, banner);
  });

  test("needsApproval and toolApproval decide which calls wait: only the 250 EUR payment and C-99's closure are asked", async () => {
    model.script('*', [
      {
        toolCalls: [
          { name: 'sendPayment', arguments: { to: 'alice', amount: 250 }, callId: 'call_pay_alice' },
          { name: 'sendPayment', arguments: { to: 'bob', amount: 40 }, callId: 'call_pay_bob' },
          { name: 'closeAccount', arguments: { account: 'TEST-7' }, callId: 'call_close_test' },
          { name: 'closeAccount', arguments: { account: 'C-99' }, callId: 'call_close_c99' },
        ],
      },
    ]);
    const r = await run(process.execPath, ['dist/run.js'], { cwd: app, env: { ...env, AUTO_APPROVE_HITL: '1' } });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = outputLines(r.stdout);
    expect(lines.filter((l) => l.startsWith('[auto-approve]')).sort()).toEqual([
      '[auto-approve] closeAccount {"account":"C-99"}: approve?',
      '[auto-approve] sendPayment {"to":"alice","amount":250}: approve?',
    ]);
    // The final answer (the demo brain quotes each result of the turn).
    const answer = lines.slice(lines.findLastIndex((l) => l.startsWith('[auto-approve]')) + 1);
    expect(answer).toEqual([
      'sendPayment: Sent 250 EUR to alice',
      'sendPayment: Sent 40 EUR to bob',
      'closeAccount: Account TEST-7 is closed',
      'closeAccount: Account C-99 is closed',
    ]);
    // Every call ran once: bob's at once (under the tool's limit), TEST-7 approved by toolApproval, the others by a person.
    expect(ledger().sort()).toEqual([
      'closed C-99 (call_close_c99)',
      'closed TEST-7 (call_close_test)',
      'payment alice 250 EUR (call_pay_alice)',
      'payment bob 40 EUR (call_pay_bob)',
    ]);
  });

  test('answered n on the terminal after the worker was SIGKILLed and started again: the closure never runs', async () => {
    model.script('*', [{ toolCalls: [{ name: 'closeAccount', arguments: { account: 'C-12' } }] }]);
    const before = ledger();
    const runner = spawn(process.execPath, ['dist/run.js', 'Close the account C-12.'], {
      cwd: app,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    runners.push(runner);
    let out = '';
    runner.stdout.on('data', (d) => (out += d));
    runner.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => runner.once('exit', resolve));
    await until(
      () => out.includes('closeAccount {"account":"C-12"}: approve? (y/n): '),
      () => out,
    );

    worker.kill('SIGKILL'); // the call waits in Temporal, not in the worker
    await worker.exited;
    worker = await startExampleWorker(app, env, banner);
    runner.stdin.end('n\n');
    expect(await exited).toBe(0);
    expect(out.trim().split('\n').at(-1)).toContain('A person declined this call.');
    expect(ledger()).toEqual(before);
  });
});

async function until(done: () => boolean, output: () => string, timeoutMs = 120_000): Promise<void> {
  for (const t0 = Date.now(); !done(); await new Promise((r) => setTimeout(r, 100)))
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out; output so far:\n${output()}`);
}

describe('docs/bring-your-agents.md', () => {
  const page = readFileSync(join(projectRoot, 'docs/bring-your-agents.md'), 'utf8');
  const section = page.slice(
    page.indexOf('## Your first durable approval'),
    page.indexOf('\n## ', page.indexOf('## Your first durable approval') + 3),
  );
  const blocks = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    lines: m[2]!.replace(/\n$/, '').split('\n'),
  }));
  /** The commands in the page's order: sh blocks' lines, console blocks' `$ ` lines with the output shown under each. */
  const steps = blocks.flatMap((b) => {
    if (b.lang === 'sh')
      return b.lines.filter((l) => l.trim()).map((command) => ({ command, expected: [] as string[] }));
    if (b.lang !== 'console') return [];
    const out: Array<{ command: string; expected: string[] }> = [];
    for (const line of b.lines)
      if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: [] });
      else out.at(-1)!.expected.push(line);
    return out;
  });
  const words = (command: string) =>
    [...command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  /** What may differ between the page's run and this one: call ids, ages, spacing. */
  const normalise = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((l) =>
        l
          .replace(/call_[a-z0-9]+/g, 'call_*')
          .replace(/\b\d+[smhd] ago\b/g, '* ago')
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .join('\n');
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  test('the five-minute quick start runs as written: the refund waits, survives npm start stopped and started, is approved and runs once', async () => {
    const ts = blocks.filter((b) => b.lang === 'ts');
    expect(ts).toHaveLength(1); // the whole my-agents.ts
    expect(steps.map((s) => s.command)).toEqual([
      'npm install',
      'COUNTERSIGN_AGENTS_MODULE=./my-agents.ts npm start',
      'npx countersign start refunds "Refund 80 EUR on order A-17" --workflow-id sdk-refund-1 --wait',
      'COUNTERSIGN_AGENTS_MODULE=./my-agents.ts npm start',
      'npx countersign pending --agent refunds',
      'npx countersign approve sdk-refund-1 --all --as ann',
      'npx countersign result sdk-refund-1 --wait',
    ]);
    const { cliEnv, startEnv } = await docWorkspace('bring-your-agents', ts[0]!.lines, cleanups);
    let server: Spawned | undefined;
    const stop = async () => {
      if (!server) return;
      server.kill('SIGINT'); // Ctrl-C
      expect(await server.exited).toBe(0);
      server = undefined;
    };
    cleanups.push(stop);

    for (const step of steps) {
      const argv = words(step.command);
      if (step.command === 'npm install') continue; // done: the tests run in an installed clone
      if (argv.at(-1) === 'start' && argv.at(-2) === 'npm') {
        expect(argv.slice(0, -2)).toEqual(['COUNTERSIGN_AGENTS_MODULE=./my-agents.ts']);
        await stop(); // the second time: the page's Ctrl-C, while the call waits
        server = spawnTs('devtools/start.ts', [], startEnv); // what `npm start` runs
        await server.waitFor(/Countersign worker is running/);
        expect(server.output()).toMatch(/Agents: .*\brefunds\b/);
        continue;
      }
      expect(argv.slice(0, 2)).toEqual(['npx', 'countersign']); // the page shows no command this test cannot run
      const cli = await run(process.execPath, [join(projectRoot, 'bin/countersign.js'), ...argv.slice(2)], {
        cwd: projectRoot,
        env: cliEnv,
      });
      expect({ command: step.command, code: cli.code, output: normalise(cli.stdout + cli.stderr) }).toEqual({
        command: step.command,
        code: 0,
        output: normalise(step.expected.join('\n')),
      });
    }
    await stop();
  });
});
