// bench/results/latest.md: every measured section as a markdown table, with the machine it ran on.
import type { RoundTripResult } from './roundTrip';
import type { ScaleResult } from './scale';

export interface BenchResults {
  machine?: string;
  roundTrip?: RoundTripResult;
  scale?: { countersign: ScaleResult; floorAgent: ScaleResult; floor: ScaleResult };
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

export function renderResults(r: BenchResults): string {
  const parts = [`Benchmarks on ${r.machine}; local dev server (in-memory SQLite); scripted model on loopback.`];
  if (r.roundTrip) parts.push(roundTrip(r.roundTrip).join('\n'));
  if (r.scale) parts.push(scale(r.scale).join('\n'));
  return parts.join('\n\n');
}
