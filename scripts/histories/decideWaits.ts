// Replay-corpus scenario: the `decide` update sent with waitForPause (patch countersign-decide-waits), as
// Runner.run(state) sends it: the decisions apply, and the update answers at the run's next pause or its end, with no
// separate nextPause update (scripts/record-histories.ts records it).
import { email, type Scenarios } from './common';

export const decideWaitScenarios: Scenarios = {
  // An approval answered at the next pause (a second call waiting), then a rejection answered at the run's end.
  'decide-waits-for-pause': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }, { toolCalls: [email(2)] }, { text: 'done' }]);
    const paused = await runner.run('email-assistant', 'mail', { workflowId: id, approvalTimeout: '1h' });
    const next = await runner.run('email-assistant', paused.toState().approve('m1', { approver: 'ann' }));
    if (next.status !== 'AwaitingApproval') throw new Error(`expected a second pause, got ${next.status}`);
    const done = await runner.run('email-assistant', next.toState().reject('m2', { message: 'no', approver: 'ann' }));
    if (done.status !== 'Completed') throw new Error(`expected the run to complete, got ${done.status}`);
  },
};
