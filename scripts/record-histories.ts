// Records real agentRun histories into test/histories/, the corpus CI replays (test/integration/replay.test.ts)
// so that a workflow change that is not guarded by patched() fails the build.
//
//   npx tsx scripts/record-histories.ts                 record every scenario (overwrites same-named files)
//   npx tsx scripts/record-histories.ts timed-out ...   record the named scenarios only
//
// Each scenario runs on a fresh local dev server with the real worker, activities and scripted model. The corpus
// was recorded on 1.0. Record a new scenario whenever the workflow gains behaviour (behind patched()); never
// re-record an old one after changing the workflow: the old file is the proof that runs recorded before the change
// still replay.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { Runner } from '../client';
import { RUN_SEARCH_ATTRIBUTES } from '../contract/searchAttributes';
import { eventually } from '../test/support/fixtures';
import { quietRuntime, startHarness } from '../test/support/harness';
import { binaryPath, projectRoot } from '../test/support/toolchain';
import { startWebhookReceiver } from '../test/support/webhookReceiver';
import { historyRegistry, signingKey } from './historyAgents';
import { approvalScenarios } from './histories/approvals';
import { decideWaitScenarios } from './histories/decideWaits';
import { maxTurnsScenarios } from './histories/maxTurns';
import { serverConversationScenarios } from './histories/serverConversation';
import { toolUseScenarios } from './histories/toolUse';
import { toolTimeoutScenarios } from './histories/toolTimeouts';
import { guardrailScenarios } from './histories/guardrails';
import { hostedToolScenarios } from './histories/hostedTools';
import { GRANTS, type Scenarios } from './histories/common';
import { publishingScenarios } from './histories/publishing';
import { signingScenarios } from './histories/signing';
import { subRunScenarios } from './histories/subRuns';
import { timerScenarios } from './histories/timers';
import { ledgerScenarios } from './histories/ledger';
import { gatewayCallScenarios } from './histories/gatewayCalls';

// The scenarios live in scripts/histories/, by topic. They are recorded in this order, the order they were first
// written in, and it matters: once 'granted-call' has started the corpus's grants workflow, every call that waits
// for approval asks it (an update in its history), and 'granted-call-grants' fetches that history where it stands.
const ORDER = [
  'paused-at-approval',
  'approved-and-rejected',
  'signals-and-always-rules',
  'invalid-calls',
  'timed-out-with-reminders',
  'continued-as-new',
  'failed-max-turns',
  'edited-arguments-and-input',
  'input-external-audit-kinds',
  'handoff',
  'nested-sub-agents',
  'transcript-continued-as-new',
  'nested-refused-decision',
  'relayed-sub-run-decisions',
  'on-approval',
  'hosted-mcp',
  'signed-and-quorum',
  'cancelled-while-waiting',
  'granted-call',
  'granted-call-grants',
  'signed-grant',
  'quiet-notifications',
  'fast-mode',
  'decision-in-booking-task',
  'typed-output-retry',
  'uncertain-calls',
  'stale-approvals',
  'canonical-approvers',
  'names-as-written',
  'publish-once',
  'publish-once-timers',
  'run-deadline',
  'decide-waits-for-pause',
  'snapshot-revision',
  'max-turns-final-output',
  'max-turns-ask',
  'server-conversation',
  'tool-use-stop-on-first-tool',
  'handoff-remove-all-tools',
  'handoff-function-filter',
  'reset-run-tool-choice',
  'hosted-tools',
  'tool-timeout',
  'input-guardrail-ask-approved',
  'output-guardrail-ask-rejected',
  'ledger-decisions',
  'ledger-continued-as-new',
  'ledger-reviews',
  'split-task-decisions',
  'held-decisions',
  'gateway-call',
  'gateway-ask-only-approved',
  'gateway-call-outcome',
  'ledger-rides',
  'ledger-rides-cancelled',
  'lean-promises',
];

function inRecordingOrder(...groups: Scenarios[]): Scenarios {
  const names = groups.flatMap((group) => Object.keys(group));
  if (JSON.stringify([...names].sort()) !== JSON.stringify([...ORDER].sort()))
    throw new Error(`ORDER and scripts/histories/ must name the same scenarios, each once: ${names.join(', ')}`);
  const all: Scenarios = Object.assign({}, ...groups);
  return Object.fromEntries(ORDER.map((name) => [name, all[name]!]));
}

const scenarios = inRecordingOrder(
  approvalScenarios,
  subRunScenarios,
  timerScenarios,
  signingScenarios,
  publishingScenarios,
  decideWaitScenarios,
  maxTurnsScenarios,
  serverConversationScenarios,
  toolUseScenarios,
  toolTimeoutScenarios,
  hostedToolScenarios,
  guardrailScenarios,
  ledgerScenarios,
  gatewayCallScenarios,
);

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !scenarios[w]);
  if (unknown.length)
    throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
  quietRuntime();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binaryPath('temporal') },
      searchAttributes: [...RUN_SEARCH_ATTRIBUTES],
      ui: false,
    },
  });
  const dir = join(projectRoot, 'test/histories');
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(projectRoot, '.temporal/record-bundle.js');
  writeFileSync(bundlePath, (await buildWorkflowBundle()).code);
  process.env.COUNTERSIGN_TEST_ADDRESS = env.address;
  process.env.COUNTERSIGN_TEST_BUNDLE = bundlePath;
  const hook = await startWebhookReceiver(); // every decision reaches a webhook (approval_decided)
  const h = await startHarness({
    registry: historyRegistry(),
    webhookUrl: hook.url,
    approverKeys: [{ kid: signingKey.kid, x: signingKey.x }],
    grantsWorkflowId: GRANTS.workflowId, // no other scenario has grants: asking this one changes nothing for them
  });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  try {
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (wanted.length && !wanted.includes(name)) continue;
      const workflowId = name; // replay derives the id from the file name (child workflow ids depend on it)
      await scenario(h, runner, workflowId);
      // Every run of the workflow id (continue-as-new makes several), oldest first.
      const latest = (await h.client.workflow.getHandle(workflowId).describe()).runId;
      const runs = await eventually(async () => {
        const found = [];
        for await (const w of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) found.push(w);
        return found.some((w) => w.runId === latest)
          ? found.sort((a, b) => a.startTime.getTime() - b.startTime.getTime())
          : undefined; // visibility lags
      });
      for (const [i, run] of runs.entries()) {
        const history = await h.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
        const file = join(dir, runs.length > 1 ? `${name}.run${i + 1}.json` : `${name}.json`);
        writeFileSync(file, historyToJSON(history) + '\n');
        console.log(`recorded ${file} (${history.events?.length} events, ${run.status.name})`);
      }
    }
  } finally {
    await h.close();
    await hook.close();
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(`record-histories: ${(err as Error).message}`);
  process.exit(1);
});
