// docs/getting-started.md, run as written: its `my-agents.ts` block is saved into a folder of the clone, its
// `npm start` serves it (a dev server of its own on free ports, the scripted demo model: no API key), and each
// `npx countersign …` it shows runs against that server; every output must read as the page shows it (call ids,
// ages, ports and the approver's name aside). So the page and this test cannot drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docWorkspace } from '../support/docWorkspace';
import { spawnProcess, spawnTs, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(300_000);

const PAGE = readFileSync(join(projectRoot, 'docs/getting-started.md'), 'utf8');

interface Fence {
  lang: string;
  lines: string[];
}
interface Step {
  command: string;
  /** The output the page shows; `…` lines stand for lines it leaves out. */
  expected: string[];
}

function fences(markdown: string): Fence[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    lines: m[2]!.replace(/\n$/, '').split('\n'),
  }));
}

/** The commands, in the page's order: `sh` blocks' lines, and console blocks' `$ ` lines with the output under each. */
function stepsOf(blocks: Fence[]): Step[] {
  const steps: Step[] = [];
  for (const b of blocks) {
    if (b.lang === 'sh') b.lines.filter((l) => l.trim()).forEach((command) => steps.push({ command, expected: [] }));
    if (b.lang === 'console')
      for (const line of b.lines) {
        if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
        else steps.at(-1)!.expected.push(line);
      }
  }
  return steps;
}

/** Shell words: "…" and '…' are one word each. */
const words = (command: string) =>
  [...command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);

/** What may differ between the page's run and this one: call ids, ages, addresses and ports, the OS user, spacing. */
const normalise = (line: string) =>
  line
    .replace(/call_[a-z0-9]+/g, 'call_*')
    .replace(/\b\d+[smhd] ago\b/g, '* ago')
    .replace(/\b(?:localhost|127\.0\.0\.1):\d+/g, 'HOST:PORT')
    .replace(/ as \S+$/, ' as USER')
    .replace(/\s+/g, ' ')
    .trim();

/** The output holds the page's lines in order, each `…` standing for any number of lines. */
function expectOutput(step: Step, output: string) {
  const actual = output
    .split('\n')
    .map(normalise)
    .filter((l) => !/^npm warn /.test(l));
  const elided = step.expected.some((l) => l.trim() === '…');
  const expected = step.expected.filter((l) => l.trim() !== '…').map(normalise);
  if (!elided)
    return expect({ command: step.command, output: actual.join('\n').trim() }).toEqual({
      command: step.command,
      output: expected.join('\n').trim(),
    });
  let at = 0;
  for (const line of expected) {
    const found = actual.indexOf(line, at);
    expect({ command: step.command, missing: found < 0 ? line : undefined, output }).toMatchObject({
      missing: undefined,
    });
    at = found + 1;
  }
}

const cleanups: Array<() => void | Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('docs/getting-started.md runs as written: the refund waits, is approved, runs once, and the run completes', async () => {
  const blocks = fences(PAGE);
  const ts = blocks.filter((b) => b.lang === 'ts');
  expect(ts).toHaveLength(1); // the whole my-agents.ts, nothing else
  const steps = stepsOf(blocks);
  expect(steps.map((s) => s.command)).toEqual([
    'npm install',
    'COUNTERSIGN_AGENTS_MODULE=./my-agents.ts npm start',
    'npx countersign start refunds "Refund 80 EUR on order A-17" --workflow-id refund-1 --wait',
    'npx countersign pending',
    'npx countersign approve refund-1 --all',
    'npx countersign result refund-1 --wait',
    'cat refunds.log',
  ]);

  const { dir, cliEnv, startEnv } = await docWorkspace('getting-started', ts[0]!.lines, cleanups);
  let server: Spawned | undefined;

  for (const step of steps) {
    const argv = words(step.command);
    if (step.command === 'npm install') continue; // done: the tests run in an installed clone
    if (argv.at(-2) === 'npm' && argv.at(-1) === 'start') {
      const settings = Object.fromEntries(argv.slice(0, -2).map((w) => w.split('=') as [string, string]));
      expect(settings).toEqual({ COUNTERSIGN_AGENTS_MODULE: './my-agents.ts' });
      const started = spawnTs('devtools/start.ts', [], startEnv); // what `npm start` runs
      server = started;
      cleanups.push(async () => {
        started.kill('SIGINT');
        await started.exited;
      });
      await started.waitFor(/Countersign worker is running/);
      expectOutput(step, started.output());
      continue;
    }
    if (argv[0] === 'cat') {
      expect(argv).toEqual(['cat', 'refunds.log']);
      const ledger = readFileSync(join(dir, 'refunds.log'), 'utf8');
      expect(ledger).toBe('A-17 80 EUR\n'); // the tool ran exactly once
      expectOutput(step, ledger);
      continue;
    }
    expect(argv.slice(0, 2)).toEqual(['npx', 'countersign']); // the page shows no command this test cannot run
    const cli = spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), ...argv.slice(2)], {
      cwd: projectRoot,
      env: cliEnv,
    });
    const code = await cli.exited;
    expect({ command: step.command, code, output: cli.output() }).toMatchObject({ code: 0 });
    expectOutput(step, cli.output());
    const out = cli.output();
    if (argv[2] === 'start') expect(out).toMatch(/call_\w+ +approval +issue_refund +\{"orderId":"A-17","amount":80\}/); // paused at the refund
    if (argv[2] === 'approve') expect(out).toMatch(/^approved issue_refund \(call call_\w+\)/);
    if (argv[2] === 'result') expect(out.trim()).toBe('issue_refund: Refunded 80 EUR on order A-17');
  }

  // The run is over: nothing waits any more, and the worker still runs (stopped in cleanup, like Ctrl-C).
  const pending = spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), 'pending'], {
    cwd: projectRoot,
    env: cliEnv,
  });
  expect(await pending.exited).toBe(0);
  expect(pending.output()).not.toContain('refund-1');
  expect(server?.child.exitCode).toBeNull();
  server!.kill('SIGINT');
  expect(await server!.exited).toBe(0);
});
