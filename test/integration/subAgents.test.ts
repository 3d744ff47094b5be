// Agents as tools: a sub-agent runs as a child workflow; approvals inside it, at any depth, surface on the top
// run with their path and are decided through it (RunState, CLI); rejecting the asTool call means no child.
import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { runStateQuery } from '../../contract/messages';
import { HitlPendingTools, HitlStatus } from '../../contract/searchAttributes';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { countersignExit } from '../support/countersignCli';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

const identity = defineAgent({
  name: 'identity-agent',
  instructions: 'You find out who users are.',
  tools: [
    defineTool({
      name: 'get_user_name',
      description: "Look up a user's name",
      parameters: z.object({ userId: z.string() }),
      needsApproval: true,
      execute: ({ userId }) => `User ${userId} is Ada Lovelace`,
    }),
  ],
});
const contract = defineAgent({
  name: 'contract-agent',
  instructions: 'You draft contracts.',
  tools: [identity.asTool({ toolName: 'check_identity', toolDescription: 'Find out who a user is' })],
});
const helper = defineAgent({
  name: 'contract-helper',
  instructions: 'You help with contracts.',
  tools: [
    contract.asTool({ toolName: 'help_with_contract', toolDescription: 'Ask the contract agent' }),
    contract.asTool({
      toolName: 'gated_contract',
      toolDescription: 'Ask the contract agent (needs approval)',
      needsApproval: true,
    }),
  ],
});

// Its own get_user_name, plus the identity agent twice: once sharing its always-rules, once not.
const sharer = defineAgent({
  name: 'rule-sharer',
  instructions: 'test',
  tools: [
    identity.tools[0]!,
    identity.asTool({ toolName: 'ask_identity_shared', toolDescription: 'Ask (rules shared)', shareAlwaysRules: true }),
    identity.asTool({ toolName: 'ask_identity_private', toolDescription: 'Ask (rules kept)' }),
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, identity, contract, helper, sharer]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

function scriptThreeLevels(top: string) {
  h.model.script(top, [
    { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'Draft an NDA for u1' }, callId: 'c1' }] },
    { text: 'NDA drafted' },
  ]);
  h.model.script(`${top}/c1`, [
    { toolCalls: [{ name: 'check_identity', arguments: { input: 'Who is u1?' }, callId: 'c2' }] },
    { text: 'NDA for Ada' },
  ]);
  h.model.script(`${top}/c1/c2`, [
    { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'c3' }] },
    { text: 'Ada Lovelace' },
  ]);
}

test('three levels deep: the innermost approval surfaces on the top run and is decided through it', async () => {
  const top = newId('nested');
  scriptThreeLevels(top);
  const paused = await runner.run('contract-helper', 'Draft an NDA for user u1', { workflowId: top });
  expect(paused.status).toBe('AwaitingApproval');
  expect(paused.interruptions).toEqual([
    expect.objectContaining({
      callId: 'c3',
      toolName: 'get_user_name',
      agentName: 'identity-agent',
      path: 'help_with_contract > check_identity > get_user_name',
      runId: `${top}/c1/c2`,
    }),
  ]);

  // The top run's search attributes say it waits, for the nested tool.
  const attributes = await eventually(async () => {
    const sa = (await h.client.workflow.getHandle(top).describe()).typedSearchAttributes;
    return sa.get(HitlStatus) === 'AwaitingApproval' ? sa : undefined;
  });
  expect(attributes.get(HitlPendingTools)).toEqual(['get_user_name']);

  const done = await runner.run('contract-helper', paused.toState().approve('c3', { approver: 'ann' }));
  expect(done.status).toBe('Completed');
  expect(done.finalOutput).toBe('NDA drafted');
  expect((await runner.describe(done.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'c1',
    output: 'NDA for Ada',
  });
  const inner = await h.client.workflow.getHandle(`${top}/c1/c2`).query(runStateQuery);
  expect(inner.audit).toEqual([
    expect.objectContaining({ callId: 'c3', decision: 'approved', approver: 'ann', via: 'signal' }),
  ]);
  expect(inner.items).toContainEqual({ type: 'function_call_output', callId: 'c3', output: 'User u1 is Ada Lovelace' });
});

test('the same through the CLI, and a bad decision for a nested call is refused by the top run', async () => {
  const top = newId('nested-cli');
  scriptThreeLevels(top);
  await runner.run('contract-helper', 'Draft an NDA for user u1', { workflowId: top });
  const cli = (...args: string[]) => countersignExit(args);

  const shown = await cli('show', top, '--json');
  expect(JSON.parse(shown.stdout).pending).toEqual([
    expect.objectContaining({ callId: 'c3', path: 'help_with_contract > check_identity > get_user_name' }),
  ]);
  const wrong = await cli('approve', top, 'c3', '--values', '{}');
  expect(wrong.code).toBe(1);
  const wrongKind = await cli('input', top, 'c3', '--values', '{"x":1}');
  expect(wrongKind.stderr.trim()).toBe(
    'countersign: call c3 (get_user_name) waits for approval, not "input": approve or reject it',
  );
  const ok = await cli('approve', top, 'c3', '--as', 'ops');
  expect(ok.code).toBe(0);
  expect(ok.stdout.trim()).toBe('forwarded get_user_name (call c3) as ops');
  expect((await cli('result', top, '--wait')).stdout.trim()).toBe('NDA drafted');
});

test('rejecting the asTool call itself: the child never starts', async () => {
  const top = newId('nested-gated');
  h.model.script(top, [
    { toolCalls: [{ name: 'gated_contract', arguments: { input: 'Draft' }, callId: 'g1' }] },
    { text: 'no contract' },
  ]);
  const paused = await runner.run('contract-helper', 'Draft', { workflowId: top });
  expect(paused.interruptions).toEqual([expect.objectContaining({ callId: 'g1', toolName: 'gated_contract' })]);
  expect(paused.interruptions[0]!.path).toBeUndefined();
  const done = await runner.run('contract-helper', paused.toState().reject('g1', { message: 'Legal is closed' }));
  expect(done.finalOutput).toBe('no contract');
  await expect(h.client.workflow.getHandle(`${top}/g1`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  await eventually(async () =>
    (await h.client.workflow.getHandle(top).describe()).status.name === 'COMPLETED' ? true : undefined,
  );
});

test('always-rules stay in the parent unless the asTool opts in', async () => {
  const top = newId('rules');
  h.model.script(top, [
    { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'p1' }, callId: 'r1' }] },
    { toolCalls: [{ name: 'ask_identity_private', arguments: { input: 'who is u2' }, callId: 'r2' }] },
    { toolCalls: [{ name: 'ask_identity_shared', arguments: { input: 'who is u3' }, callId: 'r4' }] },
    { text: 'done' },
  ]);
  h.model.script(`${top}/r2`, [
    { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u2' }, callId: 'r3' }] },
    { text: 'u2 found' },
  ]);
  h.model.script(`${top}/r4`, [
    { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u3' }, callId: 'r5' }] },
    { text: 'u3 found' },
  ]);
  let result = await runner.run('rule-sharer', 'go', { workflowId: top });
  result = await runner.run('rule-sharer', result.toState().approve('r1', { alwaysApprove: true }));
  // The private sub-run asks again: the parent's rule did not leak into it.
  expect(result.interruptions).toEqual([
    expect.objectContaining({ callId: 'r3', path: 'ask_identity_private > get_user_name' }),
  ]);
  result = await runner.run('rule-sharer', result.toState().approve('r3'));
  // The sharing sub-run inherits the rule: no pause, audited as auto_approved there.
  expect(result.status).toBe('Completed');
  expect(result.finalOutput).toBe('done');
  const shared = await h.client.workflow.getHandle(`${top}/r4`).query(runStateQuery);
  expect(shared.audit).toEqual([expect.objectContaining({ callId: 'r5', decision: 'auto_approved', via: 'rule' })]);
});

test('a nested decision the sub-run refuses comes back: pending on the top run again, the refusal audited, then decidable', async () => {
  const top = newId('nested-refused');
  scriptThreeLevels(top);
  const paused = await runner.run('contract-helper', 'Draft an NDA for user u1', { workflowId: top });
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['c3']);

  // Edited arguments that break the tool's schema: the top run passes them on; the innermost run refuses them.
  const answer = await runner.decide(top, [
    { callId: 'c3', decision: 'approve', approver: 'ann', editedArguments: { userId: 42 } },
  ]);
  expect(answer.applied).toEqual([expect.objectContaining({ callId: 'c3', outcome: 'forwarded' })]);
  const again = await eventually(async () => {
    const pending = await runner.pending(top);
    return pending.some((p) => p.callId === 'c3') ? pending : undefined;
  });
  expect(again).toEqual([
    expect.objectContaining({ callId: 'c3', path: 'help_with_contract > check_identity > get_user_name' }),
  ]);
  const refusal = await eventually(async () =>
    (await runner.audit(top)).find((a) => a.callId === 'c3' && a.decision === 'ignored'),
  );
  expect(refusal.ignoredBecause).toMatch(
    /^sub-run .*\/c1\/c2 refused it: editedArguments for call c3 \(get_user_name\) are invalid/,
  );

  // The call can be decided again, and this time it runs.
  const done = await runner.run(
    'contract-helper',
    (await runner.nextPause(top)).toState().approve('c3', { approver: 'ann' }),
  );
  expect(done.status).toBe('Completed');
  const inner = await h.client.workflow.getHandle(`${top}/c1/c2`).query(runStateQuery);
  expect(inner.audit.map((a) => a.decision)).toEqual(['ignored', 'approved']);
});
