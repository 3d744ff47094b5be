// Replay-corpus scenario: the `decide` update sent with waitForPause (patch countersign-decide-waits), as
// Runner.run(state) sends it: the decisions apply, and the update answers at the run's next pause or its end, with no
// separate nextPause update (scripts/record-histories.ts records it); and the same run taking both changes from its
// snapshot's revision (workflows/patches.ts).
import { email, type Scenarios } from './common';

/** An approval answered at the next pause (a second call waiting), then a rejection answered at the run's end. */
const approveThenReject: Scenarios[string] = async (h, runner, id) => {
  h.model.script(id, [{ toolCalls: [email(1)] }, { toolCalls: [email(2)] }, { text: 'done' }]);
  const paused = await runner.run('email-assistant', 'mail', { workflowId: id, approvalTimeout: '1h' });
  const next = await runner.run('email-assistant', paused.toState().approve('m1', { approver: 'ann' }));
  if (next.status !== 'AwaitingApproval') throw new Error(`expected a second pause, got ${next.status}`);
  const done = await runner.run('email-assistant', next.toState().reject('m2', { message: 'no', approver: 'ann' }));
  if (done.status !== 'Completed') throw new Error(`expected the run to complete, got ${done.status}`);
};

export const decideWaitScenarios: Scenarios = {
  // Recorded before snapshots carried a revision: the patch markers of publish-once and decide-waits are in it.
  'decide-waits-for-pause': approveThenReject,
  // The same run described at SNAPSHOT_REVISION 1: both changes taken from the snapshot, no patch marker.
  'snapshot-revision': approveThenReject,
  // Described at revision 6: change leanPromises too (activities awaited without withAgent's async frame, no waits at
  // the end for what is not in flight; its webhook keeps notifications in flight).
  'lean-promises': approveThenReject,
};
