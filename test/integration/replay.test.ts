// The replay corpus: every history in test/histories/ (recorded on 1.0, and after each later change to workflow
// behaviour) must replay against today's workflow code. A change that alters the command sequence without
// patched() fails here. Record new histories with `npx tsx scripts/record-histories.ts <scenario>`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { quietRuntime } from '../support/harness';
import { projectRoot } from '../support/toolchain';

const dir = join(projectRoot, 'test/histories');
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({
    file,
    workflowId: file.replace(/(\.run\d+)?\.json$/, ''),
    history: historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8'))),
  }));

beforeAll(() => quietRuntime());

test('the corpus covers paused, completed, timed-out, continued-as-new and failed runs', () => {
  const names = corpus.map((c) => c.file.replace(/\.json$/, ''));
  expect(names.length).toBeGreaterThanOrEqual(6);
  for (const kind of [
    'paused-at-approval',
    'approved-and-rejected',
    'timed-out-with-reminders',
    'continued-as-new.run1',
    'failed-max-turns',
    'run-deadline',
    'transcript-continued-as-new.run2',
    'nested-refused-decision',
    'on-approval',
    'hosted-mcp',
    'signed-and-quorum',
    'cancelled-while-waiting',
    'granted-call',
    'granted-call-grants',
    'quiet-notifications',
    'fast-mode',
    'decision-in-booking-task',
    'typed-output-retry',
    'canonical-approvers',
    'signed-grant',
    'names-as-written',
    'relayed-sub-run-decisions',
    'split-task-decisions',
    'held-decisions',
    'gateway-call',
    'gateway-ask-only-approved',
    'gateway-call-outcome',
    'lean-promises',
  ])
    expect(names).toContain(kind);
});

test('every recorded history replays against the current workflow code', async () => {
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories(
    { workflowBundle: { codePath: process.env.COUNTERSIGN_TEST_BUNDLE! } },
    corpus.map(({ workflowId, history }) => ({ workflowId, history })),
  )) {
    replayed += 1;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(corpus.length);
});

test('replay catches changed workflow code (the check can fail)', async () => {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../support/divergentWorkflow'),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  const paused = corpus.find((c) => c.file === 'paused-at-approval.json')!;
  const results = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: { code } }, [
    { workflowId: paused.workflowId, history: paused.history },
  ]))
    results.push(r);
  expect(results).toHaveLength(1);
  expect(results[0]!.error).toBeInstanceOf(DeterminismViolationError);
});
