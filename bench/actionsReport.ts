// The Temporal Cloud actions and history events of the seed run and of one approval, side by side: Countersign with
// and without the approvals ledger, the bare and agent floors (roundtrip section), and `@temporalio/openai-agents`
// (its driver, in the alternatives or adapter section). Counted by bench/actions.ts.
import { type Actions, actionsBeyond } from './actions';
import type { BenchResults } from './report';

type Figures = { run?: Actions; cycle?: Actions; runEvents?: number; cycleEvents?: number };

/** Each system's activities by what they do, so that they compare across systems. */
const ROLE: Record<string, string> = {
  runTool: 'tool',
  floorTool: 'tool',
  sendEmail: 'tool',
  modelTurn: 'model call',
  floorModel: 'model call',
  invokeModelActivity: 'model call',
  recordLedger: 'ledger write',
};
const byRole = (a: Actions): Actions => {
  const activityTypes: Record<string, number> = {};
  for (const [t, n] of Object.entries(a.activityTypes))
    activityTypes[ROLE[t] ?? t] = (activityTypes[ROLE[t] ?? t] ?? 0) + n;
  return { ...a, activityTypes };
};

const kinds = (a: Actions) =>
  [
    ['start', a.workflowStarts],
    ['signal', a.signals],
    ['update', a.updates],
    ['local activity', a.localActivities],
    ...Object.entries(a.activityTypes),
    ['upsert', a.upserts],
    ['timer', a.timers],
    ['child', a.childStarts],
  ]
    .filter(([, n]) => n)
    .map(([k, n]) => (n === 1 ? k : `${n} ${k}`))
    .join(' + ');

export function renderActions(r: BenchResults): string[] {
  const t = r.roundTrip;
  if (!t?.actions) return [];
  const h = t.historyEvents;
  const agents = r.alternatives?.temporalAgents ?? r.adapter?.temporalAgents;
  const systems: Array<[string, Figures]> = [
    ['Countersign', { ...t.actions.countersign, runEvents: h.countersignRun, cycleEvents: h.countersignCycle }],
    [
      'Countersign with the ledger',
      { ...t.actions.countersignLedger, runEvents: h.countersignLedgerRun, cycleEvents: h.countersignLedgerCycle },
    ],
    ['bare floor', { ...t.actions.floor, runEvents: h.floorRun, cycleEvents: h.floorCycle }],
    ['agent floor', { ...t.actions.floorAgent, runEvents: h.floorAgentRun, cycleEvents: h.floorAgentCycle }],
    [
      '`@temporalio/openai-agents`',
      { ...agents?.actions, runEvents: agents?.runEvents, cycleEvents: agents?.cycleEvents },
    ],
  ];
  const cell = (x: number | undefined) => (x === undefined ? '—' : String(x));
  const row = (measure: string, f: (s: Figures) => number | undefined) =>
    `| ${measure} | ${systems.map(([, s]) => cell(f(s))).join(' | ')} |`;
  const beyond = (name: string, x?: Actions, y?: Actions) => {
    if (!x || !y) return [];
    const [a, floor] = [byRole(x), byRole(y)];
    const d = Object.entries(actionsBeyond(a, floor)).map(([k, n]) => `${n > 0 ? '+' : ''}${n} ${k}`);
    return [`- ${name}: ${kinds(a)} (against the agent floor: ${d.length ? d.join(', ') : 'the same'})`];
  };
  const a = t.actions;
  return [
    '### Temporal Cloud actions and history events: the seed run and one approval',
    '',
    'Counted from one history each (bench/actions.ts) as Temporal Cloud documents its actions; one approval is the decision (signal or accepted update) → the approved tool completed. The seed run: one model turn asks for `send_email`, one approval, the tool, a second turn.',
    '',
    `| measure | ${systems.map(([n]) => n).join(' | ')} |`,
    `| --- | ${systems.map(() => '---:').join(' | ')} |`,
    row('actions, one approval', (s) => s.cycle?.total),
    row('actions, whole run', (s) => s.run?.total),
    row('history events, one approval', (s) => s.cycleEvents),
    row('history events, whole run', (s) => s.runEvents),
    '',
    'One approval, action by action (the agent floor: signal + tool):',
    '',
    ...beyond('Countersign', a.countersign?.cycle, a.floorAgent?.cycle),
    ...beyond('Countersign with the ledger', a.countersignLedger?.cycle, a.floorAgent?.cycle),
    ...beyond('`@temporalio/openai-agents`', agents?.actions?.cycle, a.floorAgent?.cycle),
    '',
    'The whole run (the agent floor: start + signal + 2 model calls + tool):',
    '',
    ...beyond('Countersign', a.countersign?.run, a.floorAgent?.run),
    ...beyond('Countersign with the ledger', a.countersignLedger?.run, a.floorAgent?.run),
    ...beyond('`@temporalio/openai-agents`', agents?.actions?.run, a.floorAgent?.run),
  ];
}
