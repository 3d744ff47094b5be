// The ledger's tamper evidence: canonical JSON, the SHA-256 chain, and what verification names.
import { createHash } from 'node:crypto';
import { type ChainBody, type ChainRow, canonicalJson, chainHash, verifyChain } from '../../storage/ledger/ledgerChain';

const key = { workflowId: 'run-1', chainId: 'first-run' };

/** A chain of n rows (seq 2, 4, 6, …: refusals leave gaps in seq that prev_seq bridges). */
function chain(n: number, from: { pos: number; seq: number | null; hash: string } = { pos: 0, seq: null, hash: '' }) {
  const rows: ChainRow[] = [];
  let prevSeq = from.seq;
  let prevHash = from.hash;
  for (let i = 1; i <= n; i++) {
    const seq = (from.seq ?? 0) + 2 * i;
    const body: ChainBody = {
      ...key,
      seq,
      pos: from.pos + i,
      prevSeq,
      kind: 'entry',
      record: { callId: `c${seq}`, decision: 'approved', seq },
    };
    const hash = chainHash(prevHash, body);
    rows.push({ seq, pos: body.pos, prevSeq, hash, body: canonicalJson(body), callId: `c${seq}` });
    prevSeq = seq;
    prevHash = hash;
  }
  const last = rows[rows.length - 1]!;
  return {
    rows,
    head: {
      lastSeq: last.seq,
      lastHash: last.hash,
      anchorSeq: from.seq,
      anchorHash: from.seq === null ? null : from.hash,
    },
  };
}

test('canonical JSON sorts keys at every depth and leaves undefined fields out', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: undefined, w: 'é' }], c: null } })).toBe(
    '{"a":{"c":null,"d":[1,{"w":"é","y":2}]},"b":1}',
  );
  expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
});

test('a hash is base64url SHA-256 over the previous hash and the canonical body', () => {
  const body: ChainBody = { ...key, seq: 1, pos: 1, prevSeq: null, kind: 'entry', record: { callId: 'c1' } };
  const expected = createHash('sha256')
    .update(`prev\n${canonicalJson(body)}`)
    .digest('base64url');
  expect(chainHash('prev', body)).toBe(expected);
  expect(chainHash('other', body)).not.toBe(expected);
});

test('an intact chain verifies', () => {
  const { rows, head } = chain(5);
  expect(verifyChain(key, rows, head)).toEqual([]);
});

test('a changed record is named, once; the records after it still verify', () => {
  const { rows, head } = chain(5);
  const body = JSON.parse(rows[2]!.body) as ChainBody;
  (body.record as { decision: string }).decision = 'rejected';
  rows[2] = { ...rows[2]!, body: canonicalJson(body) };
  expect(verifyChain(key, rows, head)).toEqual([
    { ...key, seq: 6, problem: 'changed', detail: "record 6's hash does not match its content" },
  ]);
});

test('a changed record whose hash was recomputed breaks the next one', () => {
  const { rows, head } = chain(4);
  const body = JSON.parse(rows[1]!.body) as ChainBody;
  (body.record as { decision: string }).decision = 'rejected';
  rows[1] = { ...rows[1]!, body: canonicalJson(body), hash: chainHash(rows[0]!.hash, body) };
  expect(verifyChain(key, rows, head).map((p) => [p.seq, p.problem])).toEqual([[6, 'changed']]);
});

test('a removed record is named by the gap its successor points into; a removed last record by the head', () => {
  const { rows, head } = chain(5);
  expect(verifyChain(key, [...rows.slice(0, 2), ...rows.slice(3)], head)).toEqual([
    { ...key, seq: 6, problem: 'removed', detail: 'record 6, before record 8, is missing' },
  ]);
  expect(verifyChain(key, rows.slice(0, 4), head)).toEqual([
    { ...key, seq: 10, problem: 'removed', detail: "the chain's last record 10 is missing" },
  ]);
  expect(verifyChain(key, [], head).map((p) => [p.seq, p.problem])).toEqual([[10, 'removed']]);
});

test('a pruned chain verifies from its anchor; the first kept record removed is still named', () => {
  const full = chain(6);
  const anchor = full.rows[2]!;
  const head = { ...full.head, anchorSeq: anchor.seq, anchorHash: anchor.hash };
  expect(verifyChain(key, full.rows.slice(3), head)).toEqual([]);
  expect(verifyChain(key, full.rows.slice(4), head).map((p) => [p.seq, p.problem])).toEqual([[8, 'removed']]);
  // a continued chain made from an anchor verifies too
  const more = chain(3, { pos: 3, seq: anchor.seq, hash: anchor.hash });
  expect(verifyChain(key, more.rows, more.head)).toEqual([]);
});

test('a row moved to another chain or seq no longer matches its body', () => {
  const { rows, head } = chain(3);
  expect(verifyChain({ ...key, chainId: 'other' }, rows, head).map((p) => p.problem)).toEqual([
    'changed',
    'changed',
    'changed',
  ]);
});

test("records reordered in their chain (positions swapped) are named; a head whose position is not its last record's too", () => {
  const { rows, head } = chain(4);
  const swapped = rows.map((r, i) => (i === 1 ? { ...r, pos: 3 } : i === 2 ? { ...r, pos: 2 } : r));
  expect(verifyChain(key, swapped, head).map((p) => [p.seq, p.problem])).toEqual([
    [6, 'changed'],
    [4, 'changed'],
    [8, 'changed'],
  ]);
  // The tail deleted and the head's seq and hash copied from the record before, its position left: named.
  const shorter = rows.slice(0, 3);
  const copied = { ...head, lastSeq: shorter[2]!.seq, lastHash: shorter[2]!.hash, lastPos: 4 };
  expect(verifyChain(key, shorter, copied)).toEqual([
    { ...key, seq: 6, problem: 'removed', detail: "the chain's head names position 4, its last record is at 3" },
  ]);
  expect(verifyChain(key, shorter, { ...copied, lastPos: 3 })).toEqual([]); // all three fixed: only a checkpoint tells
});
