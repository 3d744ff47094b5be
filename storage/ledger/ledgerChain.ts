// Tamper evidence for the approvals ledger: each kept record's hash is SHA-256 over its chain's previous hash and
// the canonical JSON of its body (which names its chain, seq, position and the previous record's seq), so a changed
// record breaks its own hash and a removed one leaves a gap the next record's prev_seq points into. A pruned chain
// starts from an anchor (the last pruned record's seq and hash) and still verifies.
import { createHash } from 'node:crypto';
import type { LedgerProblem } from './ledgerStore';

/** JSON with object keys sorted and undefined fields left out: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const keys = Object.keys(value as object)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** What a kept record's hash covers. `record` is the LedgerEntry or LedgerReview. */
export interface ChainBody {
  workflowId: string;
  chainId: string;
  seq: number;
  /** Position in the chain (1, 2, …): the order records were appended in. */
  pos: number;
  /** The previous record's seq (null for the chain's first record). */
  prevSeq: number | null;
  kind: 'entry' | 'review';
  record: object;
}

/** base64url SHA-256 over the previous hash ('' for the first record) and the body's canonical JSON. */
export function chainHash(prevHash: string, body: ChainBody): string {
  return createHash('sha256').update(prevHash).update('\n').update(canonicalJson(body)).digest('base64url');
}

/** A kept row as verification reads it. */
export interface ChainRow {
  seq: number;
  pos: number;
  prevSeq: number | null;
  hash: string;
  /** The stored body's text (canonical JSON). */
  body: string;
  callId: string;
}

export interface ChainHead {
  lastSeq: number;
  /** The last record's position (absent in heads read before it was checked). */
  lastPos?: number;
  lastHash: string;
  /** The last pruned record, when the chain was pruned. */
  anchorSeq: number | null;
  anchorHash: string | null;
}

/**
 * Recomputes one chain from its first kept row (or prune anchor): `changed` when a row's hash does not match what
 * it holds, `removed` when a row's prev_seq points at a row no longer there, or the head's last row is gone.
 */
export function verifyChain(
  key: { workflowId: string; chainId: string },
  rows: ChainRow[],
  head: ChainHead | undefined,
): LedgerProblem[] {
  const problems: LedgerProblem[] = [];
  const problem = (seq: number, kind: LedgerProblem['problem'], detail: string) =>
    problems.push({ ...key, seq, problem: kind, detail });
  let prevHash = head?.anchorHash ?? '';
  let prevSeq: number | null = head?.anchorSeq ?? null;
  const sorted = [...rows].sort((a, b) => a.pos - b.pos);
  for (const row of sorted) {
    if (row.prevSeq !== prevSeq) {
      if (row.prevSeq !== null && !sorted.some((r) => r.seq === row.prevSeq))
        problem(row.prevSeq, 'removed', `record ${row.prevSeq}, before record ${row.seq}, is missing`);
      else problem(row.seq, 'changed', `record ${row.seq} names record ${row.prevSeq} before it, not ${prevSeq}`);
    } else {
      const why = rowProblem(key, row, prevHash);
      if (why) problem(row.seq, 'changed', why);
    }
    // Go on from the row as stored: one changed or missing record is named once, the rest still verify.
    prevHash = row.hash;
    prevSeq = row.seq;
  }
  if (head && head.lastSeq !== prevSeq && !sorted.some((r) => r.seq === head.lastSeq))
    problem(head.lastSeq, 'removed', `the chain's last record ${head.lastSeq} is missing`);
  else if (head && sorted.length && head.lastHash !== prevHash && head.lastSeq === prevSeq)
    problem(head.lastSeq, 'changed', `record ${head.lastSeq}'s hash differs from the one the chain's head kept`);
  else if (head?.lastPos !== undefined && sorted.length && head.lastPos !== sorted[sorted.length - 1]!.pos)
    problem(
      head.lastSeq,
      'removed',
      `the chain's head names position ${head.lastPos}, its last record is at ${sorted[sorted.length - 1]!.pos}`,
    );
  return problems;
}

function rowProblem(key: { workflowId: string; chainId: string }, row: ChainRow, prevHash: string): string | undefined {
  let body: ChainBody;
  try {
    body = JSON.parse(row.body) as ChainBody;
  } catch {
    return `record ${row.seq}'s body is not JSON`;
  }
  const record = body.record as { callId?: unknown } | undefined;
  if (
    body.workflowId !== key.workflowId ||
    body.chainId !== key.chainId ||
    body.seq !== row.seq ||
    body.pos !== row.pos ||
    body.prevSeq !== row.prevSeq ||
    record?.callId !== row.callId
  )
    return `record ${row.seq}'s columns differ from its body`;
  if (chainHash(prevHash, body) !== row.hash) return `record ${row.seq}'s hash does not match its content`;
  return undefined;
}
