// The handlers every run that books calls answers with: the decision signals, the `decide` update and the queries
// (contract/messages.ts). An agent's run and a gated MCP call's run (gatewayCall.ts) register the same ones, so the
// CLI, the inbox and the client library read and decide both alike.
import { condition, setHandler } from '@temporalio/workflow';
import type { AgentRunState } from '../core/run/agentRunState';
import { auditPage, conversationPage, snapshotOf, viewOf } from '../core/run/stateViews';
import {
  addInputSignal,
  approveSignal,
  auditLogQuery,
  childStateSignal,
  conversationQuery,
  decideUntilPauseUpdate,
  eventsQuery,
  extendSignal,
  nextPauseUpdate,
  parentDecisionSignal,
  pendingApprovalsQuery,
  provideInputSignal,
  provideResultSignal,
  rejectSignal,
  runStateQuery,
} from '../contract/messages';
import type { DecisionDesk } from './decisionDesk';
import type { SubRuns } from './subRuns';
import { pageOf } from './pageRequests';

export function setRunHandlers(state: AgentRunState, desk: DecisionDesk, subRuns: SubRuns): void {
  setHandler(childStateSignal, (report) => subRuns.onReport(report));
  setHandler(approveSignal, (p) => desk.signal('approve', p));
  setHandler(rejectSignal, (p) => desk.signal('reject', p));
  setHandler(provideInputSignal, (p) => desk.signal('provideInput', p));
  setHandler(provideResultSignal, (p) => desk.signal('provideResult', p));
  setHandler(extendSignal, (p) => desk.signal('extend', p));
  setHandler(parentDecisionSignal, (d) => desk.relayed(d));
  setHandler(addInputSignal, (p) => desk.addInput(p));
  const untilPause = () => condition(() => state.quiescent()).then(() => viewOf(state));
  setHandler(decideUntilPauseUpdate, (p) => desk.decide(p, untilPause), { validator: (p) => desk.validate(p) });
  setHandler(nextPauseUpdate, untilPause);
  setHandler(pendingApprovalsQuery, () => state.allPending());
  setHandler(runStateQuery, () => snapshotOf(state));
  setHandler(conversationQuery, (page) => conversationPage(state, pageOf(page)));
  setHandler(auditLogQuery, (page) => auditPage(state, pageOf(page)));
  setHandler(eventsQuery, (page) => state.events.page(pageOf(page)));
}
