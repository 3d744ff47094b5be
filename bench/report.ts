// bench/results/latest.md: every measured section as a markdown table, with the machine it ran on.
import { type AdapterBenchResult, renderAdapterBench } from './adapterBench';
import { type AlternativesResult, perTurn } from './alternatives';
import type { GrowthResult } from './growth';
import type { RoundTripResult } from './roundTrip';
import type { ScaleResult } from './scale';
import type { DeltaLatencyResult } from './deltaLatency';
import type { WorkerStartResult } from './workerStart';
import type { ReplayCostResult } from './replayCost';
import { f1, renderTargets } from './targets';
import { type LedgerBenchResult, renderLedgerBench } from './ledgerBench';
import { renderActions } from './actionsReport';
import { type GatewayBenchResult, renderGatewayBench } from './gatewayBench';

export interface BenchResults {
  machine?: string;
  workerStart?: WorkerStartResult;
  replayCost?: ReplayCostResult;
  roundTrip?: RoundTripResult;
  scale?: { countersign: ScaleResult; countersign2?: ScaleResult; floorAgent: ScaleResult; floor?: ScaleResult };
  alternatives?: AlternativesResult;
  adapter?: AdapterBenchResult;
  growth?: GrowthResult;
  deltas?: DeltaLatencyResult;
  ledger?: LedgerBenchResult;
  gateway?: GatewayBenchResult;
}

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
    ...(h.floorAgentRun !== undefined
      ? [
          `| agent floor: history events, whole run / decision → tool completed | ${h.floorAgentRun} / ${h.floorAgentCycle} | — | — |`,
        ]
      : []),
  ];
}

function replayCost(c: ReplayCostResult): string[] {
  return [
    `### Replaying a whole seed run (what a decision costs a worker that evicted the run; ${c.replays} replays each)`,
    '',
    '| history | events | worker CPU per replay (ms) | ratio |',
    '| --- | ---: | ---: | ---: |',
    `| Countersign | ${c.countersign.events} | ${f1(c.countersign.cpuMs)} | ${ratio(c.countersign.cpuMs, c.floorAgent.cpuMs)} |`,
    `| agent floor | ${c.floorAgent.events} | ${f1(c.floorAgent.cpuMs)} | 1.00 |`,
  ];
}

function workerStart(w: WorkerStartResult): string[] {
  return [
    '### Worker start: launch → polling',
    '',
    '| worker | p50 (ms) | max (ms) | starts |',
    '| --- | ---: | ---: | ---: |',
    `| compiled, prebuilt workflow bundle (\`npm run build\`, then \`npm run worker:dist\`) | ${w.compiledMs.p50.toFixed(0)} | ${w.compiledMs.max.toFixed(0)} | ${w.compiledMs.runs} |`,
    `| from TypeScript sources (\`npm run worker\`: tsx, webpack at start) | ${w.sourcesMs.p50.toFixed(0)} | ${w.sourcesMs.max.toFixed(0)} | ${w.sourcesMs.runs} |`,
    ...(w.compared
      ? [
          `| compared, started in turn with the first (\`BENCH_START_COMPARE\`: ${w.compared.main}) | ${w.compared.p50.toFixed(0)} | ${w.compared.max.toFixed(0)} | ${w.compared.runs} |`,
        ]
      : []),
  ];
}

function scale(s: NonNullable<BenchResults['scale']>): string[] {
  const row = (name: string, r: ScaleResult) =>
    `| ${name} | ${f1(r.pauseSeconds)} | ${r.idleRssMb.toFixed(0)} / ${r.waitingRssMb.toFixed(0)} / ${r.peakRssMb.toFixed(0)} | ${f1(r.approveSeconds)} | ${f1(r.completedPerSecond)} | ${f1(r.workerCpuPer1000)} / ${f1(r.serverCpuPer1000)} | ${ratio(s.floorAgent.completedPerSecond, r.completedPerSecond)} |`;
  return [
    `### ${s.countersign.runs} runs paused at once (worker cache ${s.countersign.cache} workflows)`,
    '',
    '| system | all paused after (s) | worker RSS idle / all waiting / peak (MB) | approve all → all completed (s) | completed / s | CPU s per 1000 approvals, worker / server | time vs agent floor |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('Countersign, one worker process', s.countersign),
    ...(s.countersign2 ? [row('Countersign, two worker processes (memory and CPU summed)', s.countersign2)] : []),
    row('agent floor: model → signal → tool → model', s.floorAgent),
    ...(s.floor ? [row('bare floor: signal → tool', s.floor)] : []),
  ];
}

function alternatives(a: AlternativesResult, r: RoundTripResult | undefined): string[] {
  const cs = r?.historyEvents;
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
    ...(a.countersignFast
      ? [
          `| per model turn in fast mode, p50 (ms) | ${f1(perTurn(a.countersignFast))} | ${f1(perTurn(a.inProcess))} | +${f1(perTurn(a.countersignFast) - perTurn(a.inProcess))} |`,
        ]
      : []),
    ...(a.floorAgent
      ? [
          `| per model turn, the agent floor (durable, no approval book), p50 (ms) | ${f1(perTurn(a.floorAgent))} | ${f1(perTurn(a.inProcess))} | +${f1(perTurn(a.floorAgent) - perTurn(a.inProcess))} |`,
        ]
      : []),
  ];
}

const kb = (bytes: number) =>
  bytes >= 1e6
    ? `${(bytes / 1e6).toFixed(2)} MB`
    : bytes >= 1e3
      ? `${(bytes / 1e3).toFixed(1)} KB`
      : `${Math.round(bytes)} B`;

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
  const parts = [
    `Benchmarks on ${r.machine}; local dev server (in-memory SQLite, eager activity dispatch on); scripted model on loopback.`,
  ];
  const goals = renderTargets(r);
  if (goals.length) parts.push(goals.join('\n'));
  if (r.workerStart) parts.push(workerStart(r.workerStart).join('\n'));
  if (r.roundTrip) parts.push(roundTrip(r.roundTrip).join('\n'));
  const actions = renderActions(r);
  if (actions.length) parts.push(actions.join('\n'));
  if (r.replayCost) parts.push(replayCost(r.replayCost).join('\n'));
  if (r.scale) parts.push(scale(r.scale).join('\n'));
  if (r.alternatives) parts.push(alternatives(r.alternatives, r.roundTrip).join('\n'));
  if (r.adapter) parts.push(renderAdapterBench(r.adapter).join('\n'));
  if (r.growth) parts.push(growth(r.growth).join('\n'));
  if (r.deltas) parts.push(deltas(r.deltas).join('\n'));
  if (r.ledger) parts.push(renderLedgerBench(r.ledger).join('\n'));
  if (r.gateway) parts.push(renderGatewayBench(r.gateway, r.roundTrip?.roundTripMs.countersignToTool.p50).join('\n'));
  return parts.join('\n\n');
}
