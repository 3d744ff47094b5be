// A decision as the plain signal a run takes for it (approve, reject, provideInput, provideResult, extend): the
// inverse of decisionIntake's decisionFromSignal. A run from before patch relayedDecisions passes a sub-run's decision
// on this way; the client sends a decision this way when no worker serves the run (a signal is kept in the run's
// history until a worker takes it; the decide update needs a worker to answer).
import type { Decision } from '../../contract/messages';
import type { SignalKind } from './decisionIntake';

/** A decision as the signal a run takes for it. */
export function signalFor(d: Decision): { name: SignalKind; payload: Record<string, unknown> } {
  const who = {
    callId: d.callId,
    ...(d.approver ? { approver: d.approver } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
  };
  // A token goes along as it came: the sub-run checks it itself (a parent's word is no proof).
  const token = d.token !== undefined ? { token: d.token } : {};
  if (d.decision === 'approve' || d.decision === 'reject') {
    const approve = d.decision === 'approve';
    const always = d.always ? { [approve ? 'alwaysApprove' : 'alwaysReject']: true } : {};
    const edited = approve && d.editedArguments !== undefined ? { editedArguments: d.editedArguments } : {};
    const message = !approve && d.message ? { message: d.message } : {};
    return { name: d.decision, payload: { ...who, ...always, ...edited, ...message, ...token } };
  }
  if (d.decision === 'input') return { name: 'provideInput', payload: { ...who, values: d.values ?? {} } };
  if (d.decision === 'extend') return { name: 'extend', payload: { ...who, by: d.by } };
  if (d.decision === 'retry') return { name: 'approve', payload: who }; // an uncertain call takes approve as retry, provideResult as done / failed
  return {
    name: 'provideResult',
    payload: {
      callId: d.callId,
      ...(d.approver ? { approver: d.approver } : {}),
      ...(d.error !== undefined ? { error: d.error } : { result: d.result as string }),
    },
  };
}
