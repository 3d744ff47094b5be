// Replay-corpus scenario: a server-managed conversation (core/run/serverConversation.ts), as the run's own option on
// the demo agent. Runs with neither the option nor an agent that sets it take no new path: this history proves it.
import { email, type Scenarios } from './common';

export const serverConversationScenarios: Scenarios = {
  // An approval, then a rejection: each next turn sends only the answer, with the last response's id.
  'server-conversation': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [email(1)] },
      { toolCalls: [{ name: 'delete_record', arguments: { record_id: 'R1' }, callId: 'd1' }] },
      { text: 'done' },
    ]);
    const first = await runner.run('email-assistant', 'go', { workflowId: id, conversation: 'server' });
    const second = await runner.run('email-assistant', first.toState().approve('m1', { approver: 'ann' }));
    const done = await runner.run('email-assistant', second.toState().reject('d1', { message: 'no', approver: 'ann' }));
    const sent = h.model.requests.filter((r) => r.runId === id);
    if (done.finalOutput !== 'done' || sent.length !== 3 || !sent.every((r, n) => !n || r.body.previous_response_id))
      throw new Error(`unexpected run: ${done.status}, ${sent.length} model requests`);
  },
};
