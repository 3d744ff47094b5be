// Replay-corpus scenarios: timers, deadlines and the ways a run ends or continues as new (scripts/record-histories.ts
// records them).
import { approveSignal } from '../../contract/messages';
import { email, startRun, untilClosed, untilPending, type Scenarios } from './common';

export const timerScenarios: Scenarios = {
  'timed-out-with-reminders': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }, { text: 'gave up' }]);
    await startRun(h, id, {
      agent: 'email-assistant',
      input: 'go',
      approvalTimeout: '3s',
      remindEvery: '1s',
      escalateAfter: '2s',
      escalateTo: 'ops',
    });
    await h.client.workflow.getHandle(id).result();
  },
  'continued-as-new': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1), email(2)] }, { text: 'done' }]);
    await startRun(h, id, { agent: 'email-assistant', input: 'go', continueAsNewAfterEvents: 12 });
    const handle = h.client.workflow.getHandle(id);
    await untilPending(handle, 2);
    for (let i = 0; i < 6; i++) await handle.signal(approveSignal, { callId: `noise-${i}` });
    await runner.decide(id, [{ callId: 'm1', decision: 'approve' }]);
    for (let i = 0; i < 6; i++) await handle.signal(approveSignal, { callId: `noise-b${i}` });
    await runner.decide(id, [{ callId: 'm2', decision: 'reject' }]);
    await handle.result();
  },
  'failed-max-turns': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [{ name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l1' }] }]);
    await runner.run('email-assistant', 'loop', { workflowId: id, maxTurns: 1 }).catch(() => undefined);
  },
  // Recorded on the modular workflow: the model's transcript kept outside history, compact continue-as-new carries.
  'transcript-continued-as-new': async (h, runner, id) => {
    h.model.script(id, [
      { toolCalls: [email(1)] },
      { toolCalls: [email(2), { name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l1' }] },
      { toolCalls: [email(3)] },
      { text: 'done' },
    ]);
    let r = await runner.run('email-assistant', 'go', { workflowId: id, continueAsNewAfterEvents: 20 });
    while (r.interruptions.length) {
      const state = r.toState();
      for (const i of r.interruptions) state.approve(i, { approver: 'ann' });
      r = await runner.run('email-assistant', state);
    }
  },
  'cancelled-while-waiting': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }]);
    await runner.run('email-assistant', 'go', { workflowId: id });
    await h.client.workflow.getHandle(id).cancel();
    await untilClosed(h, id);
  },
  // A typed final answer (outputType) that is wrong once, right the second time; with run-level model settings.
  'typed-output-retry': async (h, runner, id) => {
    h.model.script(id, [{ text: '{"city":"Paris"}' }, { text: '{"city":"Paris","temperatureC":20}' }]);
    await runner.run('forecaster', 'Weather in Paris?', { workflowId: id, modelSettings: { temperature: 0.2 } });
  },
  'run-deadline': async (h, runner, id) => {
    h.model.script(id, [{ toolCalls: [email(1)] }]);
    await startRun(h, id, { agent: 'email-assistant', input: 'go', runTimeout: '2s' });
    await untilClosed(h, id);
  },
};
