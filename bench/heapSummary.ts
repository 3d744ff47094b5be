// `npx tsx bench/heapSummary.ts <file.heapsnapshot> [runs] [base.heapsnapshot]`: what a worker's heap holds, by kind:
// self bytes and counts per constructor or string kind, the largest first, and (given the number of cached runs) per
// run; with a base snapshot, only what the runs added. Reads V8's snapshot format (nodes as flat fields described by
// snapshot.meta) without a profiler.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const [file, runsArg, baseFile] = process.argv.slice(2);
if (!file) throw new Error('usage: npx tsx bench/heapSummary.ts <file.heapsnapshot> [cached runs] [base.heapsnapshot]');

function kinds(path: string, sign: number, byKind: Map<string, { bytes: number; count: number }>): number {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [fType, fName, fSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + fType!]!]!;
    const name = snap.strings[snap.nodes[i + fName!]!]!;
    const bytes = snap.nodes[i + fSize!]!;
    total += bytes;
    const kind =
      type === 'object' || type === 'closure'
        ? `${type} ${name.slice(0, 60)}`
        : type === 'string' || type === 'concatenated string' || type === 'sliced string'
          ? 'strings'
          : type;
    const k = byKind.get(kind) ?? { bytes: 0, count: 0 };
    k.bytes += sign * bytes;
    k.count += sign;
    byKind.set(kind, k);
  }
  return total;
}
const byKind = new Map<string, { bytes: number; count: number }>();
const total = kinds(file, 1, byKind) - (baseFile ? kinds(baseFile, -1, byKind) : 0);
const runs = Number(runsArg ?? 0);
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
console.log(
  `${file}${baseFile ? ` over ${baseFile}` : ''}: ${mb(total)} MB of heap objects${runs ? `, ${(total / runs / 1024).toFixed(0)} KB per cached run if all were theirs` : ''}`,
);
console.log('| kind | MB | count |' + (runs ? ' KB per run |' : ''));
console.log('| --- | ---: | ---: |' + (runs ? ' ---: |' : ''));
for (const [kind, k] of [...byKind.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 40))
  console.log(
    `| ${kind.replace(/\|/g, '\\|')} | ${mb(k.bytes)} | ${k.count} |${runs ? ` ${(k.bytes / runs / 1024).toFixed(1)} |` : ''}`,
  );
