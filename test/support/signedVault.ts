// The vault the signed-decision suites decide on. Approver keys and decision tokens made with Node's crypto directly
// (not the project's signer); wire_money, which needs a signed approval and records each wire once in the outbox, and
// release_funds, which needs two; the vault agent and a parent that asks it as a sub-run; a harness that serves them
// with a webhook receiver; and runs of it paused on a wire, with their audit and their wires.
import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { recordOnce } from '../../agents/demo/outbox';
import { Runner } from '../../client';
import type { AuditEntry, PendingApproval } from '../../contract/runViews';
import { newId, outboxOf } from './fixtures';
import { startHarness, type Harness } from './harness';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver';

// ── Keys and tokens, by hand ───────────────────────────────────────────────────────────────────────────────────
export interface Approver {
  kid: string;
  privateKey: KeyObject;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
}
export function approver(kid: string): Approver {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { kid, privateKey, jwk: privateKey.export({ format: 'jwk' }) as Approver['jwk'] };
}
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');
export const now = () => Math.floor(Date.now() / 1000);

type Claims = {
  sub: string;
  wf: string;
  call: string;
  decision: string;
  args: string;
  iat: number;
  exp: number;
  jti: string;
};
export function token(
  a: Approver,
  claims: Partial<Claims> & Pick<Claims, 'wf' | 'call'> & { arguments?: string },
  opts: { kid?: string; signer?: KeyObject } = {},
): string {
  const { arguments: args = '', ...rest } = claims;
  const payload: Claims = {
    sub: a.kid,
    decision: 'approve',
    args: digest(args),
    iat: now(),
    exp: now() + 600,
    jti: randomUUID(),
    ...rest,
  };
  const input = `${b64({ alg: 'EdDSA', kid: opts.kid ?? a.kid, typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), opts.signer ?? a.privateKey).toString('base64url')}`;
}

/** The public keys a worker holds for these approvers. */
export const approverKeysOf = (approvers: Approver[]) => approvers.map((a) => ({ kid: a.kid, x: a.jwk.x }));

// ── The vault ────────────────────────────────────────────────────────────────────────────────────────────────
const wire = defineTool({
  name: 'wire_money',
  description: 'Send money',
  parameters: z.object({ to: z.string(), amount: z.number() }),
  needsApproval: true,
  signedDecisions: true,
  execute: async ({ to, amount }, ctx) => {
    await recordOnce({ idempotencyKey: ctx.idempotencyKey, kind: 'wire', to, amount });
    return `wired ${amount} to ${to}`;
  },
});
const release = defineTool({
  name: 'release_funds',
  description: 'Release funds',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  signedDecisions: true,
  quorum: 2,
  execute: ({ amount }) => `released ${amount}`,
});
export const vault = defineAgent({ name: 'vault', instructions: 'test', tools: [wire, release] });
export const parent = defineAgent({
  name: 'vault-parent',
  instructions: 'test',
  tools: [vault.asTool({ toolName: 'ask_vault', toolDescription: 'Ask the vault' })],
});

/** The arguments of a paused wire, exactly as a token must sign them. */
export const ARGS = '{"to":"acme","amount":100}';
export const wireCall = (callId: string) => ({
  toolCalls: [{ name: 'wire_money', arguments: { to: 'acme', amount: 100 }, callId }],
});

/** A harness serving the vault and its parent, holding these approvers' keys, reporting to a webhook receiver. */
export async function startVault(
  approvers: Approver[],
): Promise<{ h: Harness; runner: Runner; hook: WebhookReceiver; close(): Promise<void> }> {
  const hook = await startWebhookReceiver();
  const h = await startHarness({
    registry: new AgentRegistry([vault, parent]),
    webhookUrl: hook.url,
    approverKeys: approverKeysOf(approvers),
  });
  const close = async () => {
    await h.close();
    await hook.close();
  };
  return { h, runner: new Runner(h.client, { taskQueue: h.taskQueue }), hook, close };
}

/** Runs of the vault on a suite's harness and runner (`at` gives them once beforeAll has started them). */
export function vaultRuns(at: () => { h: Harness; runner: Runner }) {
  /** A run of the vault paused on one wire that needs a signed approval. */
  async function paused(callId = 'w1'): Promise<{ workflowId: string; pending: PendingApproval }> {
    const { h, runner } = at();
    const workflowId = newId('signed');
    h.model.script(workflowId, [wireCall(callId), { text: 'done' }]);
    const run = await runner.run('vault', 'pay acme', { workflowId });
    expect(run.interruptions).toHaveLength(1);
    expect(run.interruptions[0]).toMatchObject({ callId, signedDecisions: true });
    return { workflowId, pending: run.interruptions[0]! };
  }
  const auditOf = async (workflowId: string): Promise<AuditEntry[]> => (await at().runner.describe(workflowId)).audit;
  const wiredBy = async (workflowId: string) =>
    (await outboxOf(at().h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${workflowId}:`));
  return { paused, auditOf, wiredBy };
}
