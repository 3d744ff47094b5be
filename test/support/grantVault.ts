// What the signed-grant suites share: approver keys (ann's also as a private JWK file), the grant-vault agent (a tool
// that needs signed decisions, one with a quorum, an ordinary one) on a grants workflow of the suite's own, and a run
// that makes one call under whatever grants hold.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import type { ApproverPrivateKey } from '../../client/signing/decisionSigning';
import { newId } from './fixtures';
import { closeWithGrants } from './grantsCleanup';
import { startHarness, type Harness } from './harness';

function keyOf(kid: string): ApproverPrivateKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { x, d } = privateKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: x!, d: d!, kid };
}
export const [ann, bob, cy, mallory] = ['ann', 'bob', 'cy', 'mallory'].map(keyOf) as [
  ApproverPrivateKey,
  ApproverPrivateKey,
  ApproverPrivateKey,
  ApproverPrivateKey,
];
const keysDir = mkdtempSync(join(tmpdir(), 'signed-grants-'));
export const annKeyFile = join(keysDir, 'ann.private.jwk');
writeFileSync(annKeyFile, JSON.stringify(ann), { mode: 0o600 });

export const ran: string[] = [];
const gated = (name: string, more: Record<string, unknown>) =>
  defineTool({
    name,
    description: name,
    parameters: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    grantable: true,
    execute: (args, ctx) => (ran.push(`${ctx.runId}:${ctx.callId}`), `${name} ${args.amount} to ${args.to}`),
    ...more,
  });
export const vault = defineAgent({
  name: 'grant-vault',
  instructions: 'test',
  tools: [
    gated('wire_funds', { signedDecisions: true }),
    gated('release', { quorum: 2, approvers: ['ann', 'bob'] }),
    gated('memo', {}),
  ],
});

export const grantsId = newId('signed-grants');
process.env.COUNTERSIGN_GRANTS_WORKFLOW_ID = grantsId;

async function startGrantVault(): Promise<{ h: Harness; runner: Runner }> {
  const h = await startHarness({
    registry: new AgentRegistry([vault]),
    grantsWorkflowId: grantsId,
    approverKeys: [ann, bob, cy].map((k) => ({ kid: k.kid, x: k.x })),
  });
  return { h, runner: new Runner(h.client, { taskQueue: h.taskQueue }) };
}

export const request = (tool: string, grantedBy: string, more: Record<string, unknown> = {}) => ({
  agent: 'grant-vault',
  tool,
  where: { to: 'acme' },
  for: '1h',
  grantedBy,
  ...more,
});

/** Runs of the vault on a suite's harness and runner (`at` gives them once beforeAll has started them). */
function grantVaultRuns(at: () => { h: Harness; runner: Runner }) {
  async function runWith(tool: string, to: string): Promise<{ workflowId: string; waiting: string[] }> {
    const workflowId = newId('signed-granted');
    const { h, runner } = at();
    h.model.script(workflowId, [
      { toolCalls: [{ name: tool, arguments: { to, amount: 100 }, callId: 'c0' }] },
      { text: 'done' },
    ]);
    const result = await runner.run('grant-vault', 'go', { workflowId });
    const waiting = result.interruptions.map((i) => i.callId);
    if (waiting.length) {
      const state = result.toState();
      for (const i of result.interruptions) state.reject(i, { signWith: ann }); // wire_funds takes signed decisions only
      await runner.run('grant-vault', state);
    }
    return { workflowId, waiting };
  }
  return { runWith };
}

/** The vault's harness for a suite: started before its tests, ended after them (its grants workflow too); `at()` gives
 * it once started, and runWith makes runs on it. */
export function grantVaultSuite() {
  let started: { h: Harness; runner: Runner } | undefined;
  beforeAll(async () => {
    started = await startGrantVault();
  });
  afterAll(async () => closeWithGrants(started?.h, grantsId));
  const at = () => started!;
  return { at, ...grantVaultRuns(at) };
}
