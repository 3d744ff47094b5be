// The npm package as a service uses it: packed (prepack builds dist/), installed from the tarball into projects
// outside this repository (the first with the README's install lines, run as written), used from CommonJS, ESM and TypeScript; the countersign bin runs compiled JavaScript;
// examples/refund-desk (its own package.json) type-checks and takes one run from paused to approved to completed;
// and the README's two TypeScript examples run as written in the new project.
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { workerPolls } from '../../client/run/workerPresence';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import { eventually, newId } from '../support/fixtures';
import { gcNamespace } from '../support/gcRuns';
import { npmInstall, packProject, pinned, type Ran, run } from '../support/packageInstall';
import { freePort, type Spawned, spawnProcess } from '../support/processes';
import { installLines, readmeExamples } from '../support/readmeBlocks';
import { projectRoot } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(600_000); // packing builds the package; installs and child processes are slow on a loaded 2-core machine

let tarball: string;
let model: ScriptedModel;
let consumer: string;
let installed: Ran;
const children: Spawned[] = [];
/**
 * A line of the README, as a person runs it in a shell (the npm cache the project's install filled comes first).
 * Without the log level of an npm that runs these tests (`npm run -s` silences npm's warnings, which a person sees).
 */
const shell = (line: string, cwd: string) => {
  const { npm_config_loglevel: _silenced, ...env } = process.env;
  return run('sh', ['-c', line], { cwd, env: { ...env, npm_config_prefer_offline: 'true' } });
};

beforeAll(async () => {
  model = await startScriptedModel();
  tarball = await packProject(); // `npm pack` in this clone, which CI's `npm install` set up
  // The README's layout: the clone in ../countersign, with the tarball it packed; the service in a folder beside it.
  const parent = mkdtempSync(join(tmpdir(), 'countersign-consumer-'));
  mkdirSync(join(parent, 'countersign'));
  copyFileSync(tarball, join(parent, 'countersign', basename(tarball)));
  consumer = join(parent, 'my-service');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  installed = await shell(installLines().project.join(' && '), consumer);
  // What the type-check test adds: the compiler and Node's types this project pins.
  await npmInstall(consumer, [`typescript@${pinned('typescript')}`, `@types/node@${pinned('@types/node')}`]);
  cpSync(join(projectRoot, 'test/package/consumer'), consumer, { recursive: true });
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await model?.close();
});

/** Until a worker polls `taskQueue` in `namespace`. */
async function workerUp(namespace: string, taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address: testAddress() });
  try {
    await eventually(
      async () => ((await workerPolls(new Client({ connection, namespace }), taskQueue)) ? true : undefined),
      120_000,
    );
  } finally {
    await connection.close();
  }
}

/** What a service's process sees: the shared test server, the scripted model, a payload folder of its own. */
function serviceEnv(taskQueue: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: join(consumer, 'none.toml'),
  };
  return {
    ...env,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'test-key',
    COUNTERSIGN_TASK_QUEUE: taskQueue,
    TASK_QUEUE: taskQueue,
    COUNTERSIGN_PAYLOAD_DIR: join(consumer, 'payloads'),
    ...extra,
  };
}

test("the README's install line, run as written in a new project: installed, nothing fetched, npm's list as documented", async () => {
  const { clone, deny } = installLines();
  expect(clone).toEqual(['npm install && npm pack']); // what this clone did before packProject
  expect({ code: installed.code, stderr: installed.stderr.replace(/^npm warn install-scripts.*\n/gm, '') }).toEqual({
    code: 0,
    stderr: '',
  });
  // The package's postinstall fetched no Temporal binaries into the service.
  expect(existsSync(join(consumer, 'node_modules/countersign/.temporal'))).toBe(false);
  const [major, minor] = (await run('npm', ['--version'], { cwd: consumer })).stdout.trim().split('.').map(Number);
  if (major! < 11 || (major === 11 && minor! < 16)) return; // npm before 11.16 has no allowScripts
  // npm lists exactly the packages the README's deny line names; after that line, none.
  const listed = [...installed.stderr.matchAll(/^npm warn install-scripts {3}(\S+)@[\d.]+ \(/gm)].map((m) => m[1]);
  expect(listed.sort()).toEqual(deny.split(' ').slice(3).sort());
  expect((await shell(deny, consumer)).code).toBe(0);
  const left = await shell('npm install-scripts ls', consumer);
  expect(left.stdout.trim()).toBe('No packages with unreviewed install scripts.');
});

const refundStep = (args: Record<string, unknown>) => [{ toolCalls: [{ name: 'issue_refund', arguments: args }] }];

test.each(['refunds.cjs', 'refunds.mjs'])(
  '%s: define an agent, start a worker, run, approve, print the answer',
  async (file) => {
    model.script('*', refundStep({ orderId: 'A-17', amount: 80 }));
    const r = await run(process.execPath, [file], { cwd: consumer, env: serviceEnv(newId('consumer')) });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .filter((l) => !l.includes('[INFO]'));
    expect(lines.filter((l) => l.startsWith('approving '))).toEqual([
      'approving issue_refund {"orderId":"A-17","amount":80}',
    ]);
    expect(lines.at(-1)).toBe('issue_refund: Refunded 80 EUR on order A-17'); // the tool ran; its output reached the model
  },
);

test('a TypeScript consumer type-checks against the declarations (and wrong types are caught)', async () => {
  const r = await run(process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
    cwd: consumer,
  });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.code).toBe(0);
  // The control: without the @ts-expect-error lines' mistakes being real errors, tsc would fail on them.
  const typed = readFileSync(join(consumer, 'typed.ts'), 'utf8');
  writeFileSync(
    join(consumer, 'typed.ts'),
    typed.replace('const wrong: string = params.amount;', 'const wrong: number = params.amount;'),
  );
  const control = await run(process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
    cwd: consumer,
  });
  writeFileSync(join(consumer, 'typed.ts'), typed);
  expect(control.stdout).toContain("error TS2578: Unused '@ts-expect-error' directive");
});

test('the countersign bin runs the compiled CLI in a consumer project', async () => {
  const bin = join(consumer, 'node_modules/.bin/countersign');
  const help = await run(bin, ['--help'], { cwd: consumer });
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('Usage: countersign [options] [command]');
  const pending = await run(bin, ['pending', '--agent', 'nobody-here', '--json'], {
    cwd: consumer,
    env: serviceEnv('unused'),
  });
  expect(pending.stderr).toBe('');
  expect(JSON.parse(pending.stdout)).toEqual([]);
});

test("the README's examples in a new project: refunds.mts serves its agent for the CLI, approve.mts decides", async () => {
  for (const { file, text } of readmeExamples()) writeFileSync(join(consumer, file), text);
  const tsx = join(consumer, 'node_modules/tsx/dist/cli.mjs'); // `npx tsx`: tsx comes with the package
  const cli = join(consumer, 'node_modules/.bin/countersign');
  // refunds.mts names its task queue ('refunds'); a namespace of its own keeps it apart from other tests' workers.
  const namespace = await gcNamespace();
  const env = serviceEnv('unused', { TEMPORAL_NAMESPACE: namespace });
  const refunds = spawnProcess(process.execPath, [tsx, 'refunds.mts'], { cwd: consumer, env });
  children.push(refunds);
  await workerUp(namespace, 'refunds'); // as a person waits for the worker they started (start --wait gives one a few seconds only)
  // The commands the README gives it, from the consumer's own bin.
  const started = await run(
    cli,
    [
      'start',
      'refunds',
      'Refund 80 EUR on order A-17',
      '--task-queue',
      'refunds',
      '--workflow-id',
      'readme-1',
      '--wait',
    ],
    { cwd: consumer, env },
  );
  expect({ code: started.code, out: started.stdout + started.stderr + refunds.output() }).toMatchObject({
    code: 0,
    out: expect.stringMatching(/approval +issue_refund +\{"orderId":"A-17","amount":80\}/),
  });
  expect((await run(cli, ['approve', 'readme-1', '--all', '--as', 'ann'], { cwd: consumer, env })).code).toBe(0);
  const result = await run(cli, ['result', 'readme-1', '--wait'], { cwd: consumer, env });
  expect(result.stdout.trim()).toMatch(/^issue_refund: Refunded 80 EUR on order A-17 \(key readme-1:call_\w+\)$/);
  // Ctrl-C stops it: 0 on Node 20, 130 (ended as a Ctrl-C'd process, through tsx's relay) on Node 22; never serving on.
  refunds.kill('SIGINT');
  expect([0, 130]).toContain(await refunds.exited);

  // approve.mts against a worker with the demo agents (the package's compiled worker), on a task queue of its own.
  const queue = serviceEnv(newId('readme-client'));
  const worker = spawnProcess(process.execPath, [join(consumer, 'node_modules/countersign/dist/worker/main.js')], {
    cwd: consumer,
    env: queue,
  });
  children.push(worker);
  const approve = await run(process.execPath, [tsx, 'approve.mts'], { cwd: consumer, env: queue });
  expect({ code: approve.code, stderr: approve.stderr }).toEqual({ code: 0, stderr: '' });
  expect(approve.stdout.trim().split('\n').slice(-2)).toEqual([
    "send_email: Email sent to alice@example.com with subject 'Report'",
    'delete_record: Deletion requires manager approval',
  ]);
});

test('examples/refund-desk: installed from the tarball, type-checked, one run paused → approved → completed', async () => {
  const app = mkdtempSync(join(tmpdir(), 'refund-desk-'));
  cpSync(join(projectRoot, 'examples/refund-desk'), app, {
    recursive: true,
    filter: (src) => !/\/(node_modules|dist)(\/|$)/.test(src),
  });
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  // The example pins what this project pins, so its install comes from the same cache.
  for (const name of ['zod', 'typescript', '@types/node'])
    expect(pkg.dependencies[name] ?? pkg.devDependencies[name]).toBe(pinned(name));
  await npmInstall(app, [tarball]);
  const build = await run('npm', ['run', 'build', '--silent'], { cwd: app });
  expect(build.stdout + build.stderr).toBe('');

  const taskQueue = newId('refund-desk');
  const port = await freePort();
  mkdirSync(join(app, 'var'));
  const env = serviceEnv(taskQueue, { PORT: String(port), LEDGER_FILE: join(app, 'var/ledger.jsonl') });
  const worker = spawnProcess(process.execPath, ['dist/worker.js'], { cwd: app, env });
  const server = spawnProcess(process.execPath, ['dist/server.js'], { cwd: app, env });
  children.push(worker, server);
  await worker.waitFor(/refund-desk worker polling/);
  await server.waitFor(/refund-desk listening/);

  model.script('*', [
    { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A-17' } }] },
    ...refundStep({ orderId: 'A-17', amountCents: 8000, reason: 'arrived broken' }),
  ]);
  const started = await fetch(`http://127.0.0.1:${port}/refund-requests`, {
    method: 'POST',
    body: JSON.stringify({ message: 'Refund order A-17 in full, it arrived broken', customer: 'alice' }),
  });
  expect(started.status).toBe(202);
  const { workflowId } = (await started.json()) as { workflowId: string };
  const status = async () =>
    (await (await fetch(`http://127.0.0.1:${port}/refund-requests/${workflowId}`)).json()) as {
      status: string;
      pending: Array<{ tool: string }>;
      finalOutput?: string;
    };

  const paused = await eventually(async () => ((await status()).status === 'AwaitingApproval' ? status() : undefined));
  expect(paused.pending.map((p) => p.tool)).toEqual(['issue_refund']); // 80 EUR is over the predicate's limit
  expect(readFileSync(env.LEDGER_FILE!, { encoding: 'utf8', flag: 'a+' })).toBe(''); // nothing refunded before the approval

  const approve = await run(process.execPath, ['dist/approve.js', workflowId], { cwd: app, env });
  expect(approve.stdout).toMatch(/^approved issue_refund call_\S+ as refund-admin\n$/);

  const done = await eventually(async () => ((await status()).status === 'Completed' ? status() : undefined));
  // The demo brain's final answer quotes every tool result of the request: the lookup, then the approved refund.
  expect(done.finalOutput).toBe(
    'lookup_order: {"orderId":"A-17","customer":"alice@example.com","totalCents":8000}\nissue_refund: Refunded 80.00 EUR on order A-17',
  );
  const ledger = readFileSync(env.LEDGER_FILE!, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { idempotencyKey: string; amountCents: number });
  expect(ledger).toHaveLength(1);
  expect(ledger[0]).toMatchObject({
    amountCents: 8000,
    idempotencyKey: expect.stringMatching(new RegExp(`^${workflowId}:call_`)),
  });
});
