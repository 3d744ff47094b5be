// Replay-corpus scenarios: handoffs and sub-runs, and the decisions a top run passes to its sub-run
// (scripts/record-histories.ts records them).
import type { Runner } from '../../client';
import { rejectSignal } from '../../contract/messages';
import type { Harness } from '../../test/support/harness';
import { email, untilCallPending, type Scenarios } from './common';

const getUserName = (userId: string, callId: string) => ({ name: 'get_user_name', arguments: { userId }, callId });

/**
 * Scripts the contract-helper's run `id`: it asks its sub-agent once (call c1) and is done; the sub-run `${id}/c1`
 * makes the calls one turn each (by default get_user_name u1 as c2), then answers 'Ada'.
 */
export function scriptNestedContractHelper(h: Harness, id: string, subRunCalls = [getUserName('u1', 'c2')]) {
  h.model.script(id, [
    { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'NDA' }, callId: 'c1' }] },
    { text: 'done' },
  ]);
  h.model.script(`${id}/c1`, [...subRunCalls.map((call) => ({ toolCalls: [call] })), { text: 'Ada' }]);
}

/**
 * Starts the contract-helper run scripted above and approves the sub-run's c2 with arguments the sub-run refuses
 * (invalid); returns once c2 is pending on the top run again.
 */
export async function startWithRefusedSubRunEdit(runner: Runner, id: string) {
  await runner.run('contract-helper', 'go', { workflowId: id });
  await runner.decide(id, [{ callId: 'c2', decision: 'approve', editedArguments: { userId: 7 } }]);
  await untilCallPending(runner, id, 'c2');
}

export const subRunScenarios: Scenarios = {
  handoff: async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [{ name: 'transfer_to_email_assistant', arguments: {}, callId: 'h1' }] },
      { toolCalls: [email(1)] },
      { text: 'done' },
    ]);
    const paused = await runner.run('triage-assistant', 'go', { workflowId: id });
    await runner.run('triage-assistant', paused.toState().approve('m1'));
  },
  'nested-sub-agents': async (h, runner, id) => {
    scriptNestedContractHelper(h, id);
    const paused = await runner.run('contract-helper', 'go', { workflowId: id });
    await runner.run('contract-helper', paused.toState().approve('c2'));
  },
  // A nested decision the sub-run refuses (invalid edited arguments) comes back to the top run, then is approved.
  'nested-refused-decision': async (h, runner, id) => {
    scriptNestedContractHelper(h, id);
    await startWithRefusedSubRunEdit(runner, id);
    await runner.run('contract-helper', (await runner.nextPause(id)).toState().approve('c2'));
  },
  // Decisions for a sub-run's calls go on as they came (patch countersign-relayed-decisions): an edit the sub-run
  // refuses comes back, then an approval through the update, a rejection through a signal to the top run.
  'relayed-sub-run-decisions': async (h, runner, id) => {
    scriptNestedContractHelper(h, id, [getUserName('u1', 'c2'), getUserName('u2', 'c3')]);
    await startWithRefusedSubRunEdit(runner, id);
    await runner.decide(id, [{ callId: 'c2', decision: 'approve', approver: 'ann', reason: 'checked the NDA' }]);
    await untilCallPending(runner, id, 'c3');
    await h.client.workflow
      .getHandle(id)
      .signal(rejectSignal, { callId: 'c3', message: 'not this one', approver: 'bob' });
    await h.client.workflow.getHandle(id).result();
  },
};
