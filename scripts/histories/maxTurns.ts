// Replay-corpus scenarios: onMaxTurns (workflows/maxTurns.ts), as the run's own option on the demo agent. Runs with
// neither the option nor an agent that sets it take no new path, so these are the histories that prove the paths.
import { type Scenarios, untilClosed } from './common';

/** A call the agent has no tool for: answered at once (tool not found), so the turn ends without a person. */
const unknownCall = (n: number) => ({ toolCalls: [{ name: 'look_around', arguments: {}, callId: `l${n}` }] });

export const maxTurnsScenarios: Scenarios = {
  // 'final_output': two turns used, then one more with tool_choice 'none' whose answer completes the run.
  'max-turns-final-output': async (h, runner, id) => {
    h.model.script(id, [unknownCall(1), unknownCall(2), { text: 'Here is what I found.' }]);
    const done = await runner.run('email-assistant', 'look', {
      workflowId: id,
      maxTurns: 2,
      onMaxTurns: 'final_output',
    });
    if (done.finalOutput !== 'Here is what I found.') throw new Error(`unexpected end: ${done.status}`);
  },
  // 'ask': a person allows one more turn (input turns), the run takes it and asks again; rejected, it fails.
  'max-turns-ask': async (h, runner, id) => {
    h.model.script(id, [unknownCall(1), unknownCall(2)]);
    const paused = await runner.run('email-assistant', 'look', {
      workflowId: id,
      maxTurns: 1,
      onMaxTurns: 'ask',
      approvalTimeout: '1h',
    });
    const again = await runner.run(
      'email-assistant',
      paused.toState().provideInput('max_turns:1', { turns: 1 }, { approver: 'ann' }),
    );
    if (again.interruptions[0]?.callId !== 'max_turns:2') throw new Error(`expected a second ask, got ${again.status}`);
    const failed = await runner
      .run('email-assistant', again.toState().reject('max_turns:2', { message: 'Stop here.', approver: 'ann' }))
      .catch((err: unknown) => err);
    if (!(failed instanceof Error) || !failed.message.includes('ann stopped the run: Stop here.'))
      throw new Error(`expected the run to fail as stopped, got ${String(failed)}`);
    await untilClosed(h, id); // the run's last workflow task is in the history
  },
};
