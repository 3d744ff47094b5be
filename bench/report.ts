// bench/results/latest.md: every measured section as a markdown table, with the machine it ran on.
import type { AlternativesResult } from './alternatives';
import type { GrowthResult } from './growth';
import type { RoundTripResult } from './roundTrip';
import type { ScaleResult } from './scale';
import type { DeltaLatencyResult } from './deltaLatency';

export interface BenchResults {
  machine?: string;
  roundTrip?: RoundTripResult;
  scale?: { countersign: ScaleResult; floorAgent: ScaleResult; floor: ScaleResult };
  alternatives?: AlternativesResult;
  growth?: GrowthResult;
  deltas?: DeltaLatencyResult;
}

const f1 = (x: number) => x.toFixed(1);
const ratio = (a: number, b: number) => (a / Math.max(b, 1e-9)).toFixed(2);

function roundTrip(r: RoundTripResult): string[] {
  const t = r.roundTripMs;
  const h = r.historyEvents;
  return [
    `### Approval round trip and events per approval (${r.iterations} runs, one at a time)`,
    '',
    '| measure | Countersign | bare floor | ratio |',
    '| --- | ---: | ---: | ---: |',
    `| decision → tool activity starts, p50 / p99 (ms) | ${f1(t.countersignToTool.p50)} / ${f1(t.countersignToTool.p99)} | ${f1(t.floorToTool.p50)} / ${f1(t.floorToTool.p99)} | ${ratio(t.countersignToTool.p50, t.floorToTool.p50)} |`,
    `| decision → next model call starts, p50 / p99 (ms) | ${f1(t.countersignToNextModelCall.p50)} / ${f1(t.countersignToNextModelCall.p99)} | — | — |`,
    `| history events, decision → approved tool completed | ${h.countersignCycle} | ${h.floorCycle} | +${h.countersignCycle - h.floorCycle} |`,
    `| history events, whole run (2 model turns, 1 approval) | ${h.countersignRun} | ${h.floorRun} | — |`,
  ];
}

function scale(s: NonNullable<BenchResults['scale']>): string[] {
  const row = (name: string, r: ScaleResult) =>
    `| ${name} | ${f1(r.pauseSeconds)} | ${r.idleRssMb.toFixed(0)} / ${r.waitingRssMb.toFixed(0)} / ${r.peakRssMb.toFixed(0)} | ${f1(r.approveSeconds)} | ${f1(r.completedPerSecond)} | ${ratio(s.floor.completedPerSecond, r.completedPerSecond)} | ${ratio(s.floorAgent.completedPerSecond, r.completedPerSecond)} |`;
  return [
    `### ${s.countersign.runs} runs paused at once (worker cache ${s.countersign.cache} workflows)`,
    '',
    '| system | all paused after (s) | worker RSS idle / all waiting / peak (MB) | approve all → all completed (s) | completed / s | time vs bare floor | time vs agent floor |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('Countersign (`npm run worker`)', s.countersign),
    row('agent floor: model → signal → tool → model', s.floorAgent),
    row('bare floor: signal → tool', s.floor),
  ];
}

function alternatives(a: AlternativesResult, r: RoundTripResult | undefined): string[] {
  const cs = r?.historyEvents;
  const perTurn = (x: { runMs: { p50: number }; turnsPerRun: number }) => x.runMs.p50 / x.turnsPerRun;
  return [
    `### Against Temporal's OpenAI Agents integration and the in-process OpenAI Agents SDK (${a.iterations} runs each)`,
    '',
    'Seed scenario "Send the report to alice": one model turn asks for `send_email`, a person approves, the tool runs, a second turn answers.',
    '',
    '| measure | Countersign | `@temporalio/openai-agents` (approve, then continue-as-new) | bare floor |',
    '| --- | ---: | ---: | ---: |',
    `| history events, decision → approved tool completed | ${cs?.countersignCycle ?? '—'} | ${a.temporalAgents.cycleEvents} | ${cs?.floorCycle ?? '—'} |`,
    `| history events, whole run | ${cs?.countersignRun ?? '—'} | ${a.temporalAgents.runEvents} (two runs) | ${cs?.floorRun ?? '—'} |`,
    `| decision → approved tool starts, p50 (ms) | ${r ? f1(r.roundTripMs.countersignToTool.p50) : '—'} | ${f1(a.temporalAgents.decisionToToolMs.p50)} | ${r ? f1(r.roundTripMs.floorToTool.p50) : '—'} |`,
    '',
    '| durability tax (approval given at once) | Countersign (durable) | `@openai/agents` in-process (not durable) | added per turn |',
    '| --- | ---: | ---: | ---: |',
    `| whole run, p50 / p99 (ms) | ${f1(a.countersign.runMs.p50)} / ${f1(a.countersign.runMs.p99)} | ${f1(a.inProcess.runMs.p50)} / ${f1(a.inProcess.runMs.p99)} | — |`,
    `| per model turn, p50 (ms) | ${f1(perTurn(a.countersign))} | ${f1(perTurn(a.inProcess))} | +${f1(perTurn(a.countersign) - perTurn(a.inProcess))} |`,
  ];
}

const kb = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${Math.round(bytes)} B`);

function growth(g: GrowthResult): string[] {
  const n = g.newsletters;
  return [
    `### History growth with run length (one tool call a turn, every ${g.approveEvery}th approved; payload storage on, ${g.thresholdBytes / 1024} KiB threshold)`,
    '',
    '| system | turns | runs | history events | history bytes | bytes / turn | largest payload in history | written to payload store | wall time (s) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...g.turns.map(
      (r) =>
        `| ${r.system === 'countersign' ? 'Countersign' : 'agent floor'} | ${r.turns} | ${r.runs} | ${r.events} | ${kb(r.bytes)} | ${kb(r.bytesPerTurn)} | ${kb(r.largestPayload)} | ${r.system === 'countersign' ? kb(r.storeBytes) : '—'} | ${f1(r.ms / 1000)} |`,
    ),
    '',
    '12 newsletters of about 280 KB to alice, one `send_email` a turn, each approved; `continueAsNewAfterEvents: 40`.',
    '',
    '| completed | wall time (ms) | runs (continue-as-new) | history events | history bytes | largest payload in history | written to payload store |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${n.completed ? 'yes' : `no: ${n.error ?? 'not completed'}`} | ${n.ms.toFixed(0)} | ${n.runs} (${n.runs - 1}) | ${n.events} | ${kb(n.bytes)} | ${kb(n.largestPayload)} | ${kb(n.storeBytes)} |`,
  ];
}

function deltas(d: DeltaLatencyResult): string[] {
  return [
    `### Model text deltas: the scripted model's chunk → runner.runStreamed (${d.runs} runs, responses API)`,
    '',
    '| measure | p50 (ms) | p95 (ms) | max (ms) |',
    '| --- | ---: | ---: | ---: |',
    `| first delta of a turn | ${f1(d.firstDeltaMs.p50)} | ${f1(d.firstDeltaMs.p95)} | ${f1(d.firstDeltaMs.max)} |`,
    `| every delta | ${f1(d.anyDeltaMs.p50)} | ${f1(d.anyDeltaMs.p95)} | — |`,
  ];
}

export function renderResults(r: BenchResults): string {
  const parts = [`Benchmarks on ${r.machine}; local dev server (in-memory SQLite); scripted model on loopback.`];
  if (r.roundTrip) parts.push(roundTrip(r.roundTrip).join('\n'));
  if (r.scale) parts.push(scale(r.scale).join('\n'));
  if (r.alternatives) parts.push(alternatives(r.alternatives, r.roundTrip).join('\n'));
  if (r.growth) parts.push(growth(r.growth).join('\n'));
  if (r.deltas) parts.push(deltas(r.deltas).join('\n'));
  return parts.join('\n\n');
}
