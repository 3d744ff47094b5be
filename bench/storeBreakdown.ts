// What a file payload store holds, by kind: each stored payload (a content-addressed file, so a payload written
// twice is one file) is decoded and named by its shape (a model turn's input or result, a transcript segment, a
// tool's input, a continue-as-new carry, a view …, or a large value of its own, codec/valueCodec.ts).
// `npx tsx bench/storeBreakdown.ts <dir>` prints a folder's table; the growth section uses
// `storeBreakdown(dir, before)` for the files one run added.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { VALUE_ENCODING, VALUES_ENCODING, type ValuesEnvelope } from '../codec/valueCodec';

export interface KindFigures {
  files: number;
  bytes: number;
}

/** The files under a folder (relative paths), to tell later which a run added. */
export const storeFiles = (dir: string): Set<string> =>
  new Set((readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile()));

/** Bytes under a folder (the file store is content-addressed: what grows is what was written). */
export const folderBytes = (dir: string): number =>
  [...storeFiles(dir)].reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

const has = (v: Record<string, unknown>, ...keys: string[]) => keys.every((k) => k in v);

/** A stored value's kind, by its shape. */
export function kindOf(value: unknown): string {
  if (Array.isArray(value))
    return value.every((v) => v && typeof v === 'object' && 'callId' in v) ? 'pending approvals (query)' : 'array';
  if (!value || typeof value !== 'object') return typeof value;
  const v = value as Record<string, unknown>;
  if (has(v, 'depth', 'items')) return 'transcript segment';
  if (has(v, 'book', 'startedAt', 'turnCalls')) return 'continue-as-new carry';
  if (has(v, 'runId', 'agent', 'items', 'context')) return 'model turn input';
  if (has(v, 'calls', 'items')) return 'model turn result';
  if (has(v, 'runId', 'callId', 'toolName', 'arguments')) return 'tool input';
  if (has(v, 'callKey', 'arguments')) return 'standing-grant check (useGrant update)';
  if (has(v, 'output', 'ok')) return 'tool result';
  if (has(v, 'status', 'cursor')) return 'items' in v ? 'run snapshot (query, result)' : 'run view (nextPause)';
  if (has(v, 'events')) return 'events page (query)';
  if (has(v, 'items', 'next', 'total')) return 'conversation page (query)';
  if (has(v, 'agent', 'input')) return 'run input';
  return `other (${Object.keys(v).slice(0, 4).join(', ')})`;
}

/** Bytes and files per kind, for the files not in `before`. */
export function storeBreakdown(dir: string, before: Set<string> = new Set()): Map<string, KindFigures> {
  const out = new Map<string, KindFigures>();
  for (const f of storeFiles(dir)) {
    if (before.has(f)) continue;
    const bytes = readFileSync(join(dir, f));
    const payload = temporal.api.common.v1.Payload.decode(bytes);
    const encoding = Buffer.from(payload.metadata?.encoding ?? []).toString();
    let kind = encoding;
    const json = () => JSON.parse(Buffer.from(payload.data ?? []).toString('utf8'));
    if (encoding === 'json/plain') kind = kindOf(json());
    else if (encoding === VALUES_ENCODING) {
      const d = json() as ValuesEnvelope | { envelope: unknown };
      // An envelope, or (written by the transcript store, which stores what the codecs give it) a reference to one.
      kind =
        'envelope' in d
          ? 'transcript segment: the reference to its envelope'
          : `${kindOf(d.value)}, its large values by reference`;
    } else if (encoding === VALUE_ENCODING) kind = 'large value (one per distinct string)';
    else if (encoding === 'binary/encrypted') kind = 'encrypted';
    const k = out.get(kind) ?? { files: 0, bytes: 0 };
    out.set(kind, { files: k.files + 1, bytes: k.bytes + bytes.length });
  }
  return new Map([...out.entries()].sort((a, b) => b[1].bytes - a[1].bytes));
}

export function renderBreakdown(kinds: Map<string, KindFigures>): string {
  const total = [...kinds.values()].reduce((s, k) => s + k.bytes, 0);
  const mb = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(1)} KB`);
  return [
    '| kind | payloads | bytes | share |',
    '| --- | ---: | ---: | ---: |',
    ...[...kinds.entries()].map(
      ([kind, k]) => `| ${kind} | ${k.files} | ${mb(k.bytes)} | ${((100 * k.bytes) / (total || 1)).toFixed(0)}% |`,
    ),
    `| all | ${[...kinds.values()].reduce((s, k) => s + k.files, 0)} | ${mb(total)} | |`,
  ].join('\n');
}

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: tsx bench/storeBreakdown.ts <payload store folder>');
  console.log(renderBreakdown(storeBreakdown(dir)));
}
