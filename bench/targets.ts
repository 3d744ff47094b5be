// The targets table first in bench/results/latest.md: each goal (issue 24's, as issue 46 set them again), Countersign
// and its floor measured in the same run, the ratio, the goal and whether it is met.
import { perTurn } from './alternatives';
import type { BenchResults } from './report';

interface Target {
  measure: string;
  countersign: string;
  floor: string;
  ratio: string;
  goal: string;
  met: boolean;
}

export const f1 = (x: number) => x.toFixed(1);
const x2 = (a: number, b: number) => `${(a / Math.max(b, 1e-9)).toFixed(2)}×`;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1e3).toFixed(1)} KB`;

/** A ratio row: met when countersign / floor ≤ limit. */
function ratioRow(
  measure: string,
  cs: number,
  floor: number,
  floorName: string,
  unit: (v: number) => string,
  limit: number,
): Target {
  return {
    measure,
    countersign: unit(cs),
    floor: `${floorName} ${unit(floor)}`,
    ratio: x2(cs, floor),
    goal: `≤ ${limit.toFixed(2)}×`,
    met: cs / floor <= limit,
  };
}

function rows(r: BenchResults): Target[] {
  const out: Target[] = [];
  const s = r.scale;
  const ms = (v: number) => `${f1(v)} ms`;
  if (s) {
    const n = s.countersign.runs.toLocaleString('en');
    out.push(
      ratioRow(
        `worker RSS, ${n} runs waiting (cache ${s.countersign.cache})`,
        s.countersign.waitingRssMb,
        s.floorAgent.waitingRssMb,
        'agent floor',
        (v) => `${v.toFixed(0)} MB`,
        1.0,
      ),
    );
    out.push(
      ratioRow(
        'worker CPU per 1,000 approvals',
        s.countersign.workerCpuPer1000,
        s.floorAgent.workerCpuPer1000,
        'agent floor',
        (v) => `${f1(v)} s`,
        1.2,
      ),
    );
    out.push(
      ratioRow(
        `approve ${n} waiting runs, all completed`,
        s.countersign.approveSeconds,
        s.floorAgent.approveSeconds,
        'agent floor',
        (v) => `${f1(v)} s`,
        1.2,
      ),
    );
  }
  const t = r.roundTrip;
  if (t)
    out.push(
      ratioRow(
        'decision → approved tool starts, p50',
        t.roundTripMs.countersignToTool.p50,
        t.roundTripMs.floorToTool.p50,
        'bare floor',
        ms,
        1.2,
      ),
    );
  const a = r.alternatives;
  const cs = a && perTurn(a.countersign);
  const floorTurn = a?.floorAgent && perTurn(a.floorAgent);
  if (cs !== undefined && floorTurn !== undefined)
    out.push(ratioRow('per model turn, default mode', cs, floorTurn, 'agent floor', ms, 1.05));
  const fast = a?.countersignFast && perTurn(a.countersignFast);
  const inProc = a && perTurn(a.inProcess);
  if (fast !== undefined && inProc !== undefined) {
    out.push({
      measure: 'per model turn, fast mode, added vs in-process `@openai/agents`',
      countersign: `+${f1(fast - inProc)} ms`,
      floor: `in-process ${ms(inProc)}`,
      ratio: '—',
      goal: '≤ +40 ms',
      met: fast - inProc <= 40,
    });
  }
  const c = r.replayCost;
  if (c)
    out.push(
      ratioRow(
        'worker CPU to replay a seed run (an evicted run gets a decision)',
        c.countersign.cpuMs,
        c.floorAgent.cpuMs,
        'agent floor',
        ms,
        1.5,
      ),
    );
  const g = r.growth;
  if (g?.newsletters.contentBytes) {
    const n = g.newsletters;
    out.push({
      measure: 'payload store bytes written, 12 × 280 KB newsletters',
      countersign: mb(n.storeBytes),
      floor: `${mb(n.contentBytes!)} of content`,
      ratio: x2(n.storeBytes, n.contentBytes!),
      goal: '≤ 2.00× content',
      met: n.storeBytes <= 2 * n.contentBytes!,
    });
  }
  if (g) {
    const by = (system: string) => g.turns.filter((row) => row.system === system).sort((p, q) => p.turns - q.turns);
    const csRows = by('countersign');
    const floorRows = by('floorAgent');
    if (csRows.length && csRows.length === floorRows.length) {
      const worst = Math.max(...csRows.map((row, i) => row.bytesPerTurn / floorRows[i]!.bytesPerTurn));
      const range = (rs: typeof csRows) =>
        `${kb(Math.min(...rs.map((row) => row.bytesPerTurn)))}–${kb(Math.max(...rs.map((row) => row.bytesPerTurn)))}`;
      out.push({
        measure: `history bytes per turn (${csRows.map((row) => row.turns).join(' / ')} turns)`,
        countersign: range(csRows),
        floor: `agent floor ${range(floorRows)}`,
        ratio: `${worst.toFixed(2)}× (worst)`,
        goal: '≤ 1.60×',
        met: worst <= 1.6,
      });
    }
  }
  if (s?.countersign2) {
    const n = s.countersign.runs.toLocaleString('en');
    out.push({
      measure: `two workers, approve ${n}`,
      countersign: `${f1(s.countersign2.approveSeconds)} s`,
      floor: `one worker ${f1(s.countersign.approveSeconds)} s`,
      ratio: x2(s.countersign2.approveSeconds, s.countersign.approveSeconds),
      goal: '< 1.00× (faster than one)',
      met: s.countersign2.approveSeconds < s.countersign.approveSeconds,
    });
  }
  if (t?.historyEvents.floorAgentCycle !== undefined) {
    const h = t.historyEvents;
    out.push({
      measure: 'history events per approval (decision → approved tool completed)',
      countersign: `${h.countersignCycle}`,
      floor: `agent floor ${h.floorAgentCycle}`,
      ratio: `+${h.countersignCycle - h.floorAgentCycle!}`,
      goal: '≤ 8 (none added)',
      met: h.countersignCycle <= 8,
    });
  }
  const acts = t?.actions;
  if (acts?.countersign && acts.floorAgent) {
    // Issue 46: an approval costs at most one Temporal Cloud action more than the agent floor's, ledger on or off.
    const floor = acts.floorAgent.cycle.total;
    for (const [name, x] of [
      ['', acts.countersign],
      [', with the ledger', acts.countersignLedger],
    ] as const)
      if (x)
        out.push({
          measure: `Temporal Cloud actions per approval${name} (decision → approved tool completed)`,
          countersign: `${x.cycle.total}`,
          floor: `agent floor ${floor}`,
          ratio: `+${x.cycle.total - floor}`,
          goal: '≤ floor + 1',
          met: x.cycle.total <= floor + 1,
        });
  }
  if (r.workerStart) {
    const w = r.workerStart.compiledMs;
    out.push({
      measure: 'worker launch → polling (compiled), p50 (max)',
      countersign: `${w.p50.toFixed(0)} (${w.max.toFixed(0)}) ms`,
      floor: '—',
      ratio: '—',
      goal: '≤ 1000 ms',
      met: w.p50 <= 1000,
    });
  }
  return out;
}

export function renderTargets(r: BenchResults): string[] {
  const all = rows(r);
  if (!all.length) return [];
  return [
    '### Targets (Countersign 1.0), each measured against its floor in this run',
    '',
    '| measure | Countersign | floor | ratio | goal | met |',
    '| --- | ---: | ---: | ---: | ---: | :---: |',
    ...all.map(
      (x) => `| ${x.measure} | ${x.countersign} | ${x.floor} | ${x.ratio} | ${x.goal} | ${x.met ? 'met' : 'not met'} |`,
    ),
  ];
}
