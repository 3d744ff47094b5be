// A ledger checkpoint (a signed tree head, as in Certificate Transparency): the size and Merkle root of the ledger's
// tree of records (ledgerLeaves.ts) when it was taken, the record count, and the leaves added since the checkpoint
// before it, so that a later check can name each record that went missing, not only say the roots differ. It is
// signed with an Ed25519 key the database does not hold and kept by a witness outside it (ledgerWitness.ts). compareWithCheckpoints walks the tree now, leaf by leaf, once, against every checkpoint.
import { type KeyObject, sign, verify } from 'node:crypto';
import { canonicalJson } from './ledgerChain';
import type { LedgerLeaf } from './ledgerLeaves';
import type { LedgerProblem } from './ledgerStore';
import { TreeFrontier } from './merkleTree';

export const CHECKPOINT_FORMAT = 'countersign-ledger-checkpoint/1';

/** One leaf as a checkpoint lists it: [workflowId, chainId, seq, leaf hash (base64url)]. */
export type CheckpointLeaf = [string, string, number, string];

export interface Checkpoint {
  format: typeof CHECKPOINT_FORMAT;
  ledgerId: string;
  /** The tree's size: every record ever given a place, pruned ones included. */
  treeSize: number;
  /** MTH of those leaves, base64url. */
  rootHash: string;
  /** Records the ledger kept when it was taken. */
  records: number;
  /** The size of the checkpoint before this one (its leaves are previousSize + 1 … treeSize). */
  previousSize: number;
  leaves: CheckpointLeaf[];
  takenAt: string;
  /** Which key signed (the `kid` of `countersign keys generate`). */
  keyId: string;
  /** Ed25519 over the canonical JSON of everything above, base64url. */
  signature: string;
}

/** The bytes a checkpoint's signature covers. */
const signedBytes = (c: Omit<Checkpoint, 'signature'>) => {
  const { signature: _, ...rest } = c as Checkpoint;
  return Buffer.from(canonicalJson(rest));
};

export function signCheckpoint(c: Omit<Checkpoint, 'signature'>, key: KeyObject): Checkpoint {
  return { ...c, signature: sign(null, signedBytes(c), key).toString('base64url') };
}

/** Why a checkpoint is not to be trusted (not one, another ledger's, an unknown key, a bad signature), or undefined. */
export function checkpointProblem(c: unknown, keys: Map<string, KeyObject>, ledgerId: string): string | undefined {
  const cp = c as Partial<Checkpoint> | null;
  if (!cp || typeof cp !== 'object' || cp.format !== CHECKPOINT_FORMAT) return `not a ${CHECKPOINT_FORMAT}`;
  if (typeof cp.signature !== 'string' || typeof cp.keyId !== 'string') return 'it is not signed';
  const key = keys.get(cp.keyId);
  if (!key) return `signed by key ${JSON.stringify(cp.keyId)}, which is not among the checkpoint keys`;
  let good = false;
  try {
    good = verify(null, signedBytes(cp as Checkpoint), key, Buffer.from(cp.signature, 'base64url'));
  } catch {
    good = false;
  }
  if (!good) return `bad signature: it was not signed by ${cp.keyId}'s key as it reads now (forged or changed)`;
  if (cp.ledgerId !== ledgerId) return `it is ledger ${cp.ledgerId}'s, not this one's (${ledgerId})`;
  const n = (cp.treeSize ?? 0) - (cp.previousSize ?? 0);
  if (!Array.isArray(cp.leaves) || cp.leaves.length !== n) return `it lists ${cp.leaves?.length} leaves, not ${n}`;
  return undefined;
}

type Key = { workflowId: string; chainId: string };
const named = (l: { workflowId: string; chainId: string; seq: number }) =>
  `run ${l.workflowId} (chain ${l.chainId}) seq ${l.seq}`;

/**
 * The tree now against each (signature-checked) checkpoint, oldest first: each place a checkpoint listed whose record
 * is gone, changed or another one now; then each checkpoint's root recomputed at its size. `next(after)` pages the
 * ledger's leaves; `chainState` says what a chain with records gone keeps (to tell a tail or a whole chain).
 */
export async function compareWithCheckpoints(
  checkpoints: Checkpoint[],
  next: (after: number) => Promise<LedgerLeaf[]>,
  chainState: (key: Key) => Promise<{ records: number; lastSeq: number | null }>,
): Promise<LedgerProblem[]> {
  const sorted = [...checkpoints].sort((a, b) => a.treeSize - b.treeSize);
  const problems: LedgerProblem[] = [];
  const gone = new Map<string, { key: Key; seqs: number[] }>();
  const now = new TreeFrontier();
  const listed = new TreeFrontier();
  let page: LedgerLeaf[] = [];
  let at = 0;
  let place = 0;
  let broken = false;
  let end = false;
  let gap = false;
  for (const cp of sorted) {
    if (cp.previousSize !== place) {
      // A checkpoint between is missing from the witness: its leaves are not known; only roots are compared on.
      problems.push(witnessProblem(cp, `the checkpoints before it end at size ${place}, not ${cp.previousSize}`));
      gap = true;
      place = cp.previousSize;
    }
    for (const [workflowId, chainId, seq, leaf] of cp.leaves) {
      place++;
      while (!end && (at >= page.length || page[at]!.index < place)) {
        if (at < page.length) at++;
        else {
          page = await next(place - 1);
          at = 0;
          end = !page.length;
        }
      }
      const have = page[at]?.index === place ? page[at] : undefined;
      const want = { workflowId, chainId, seq, leaf: Buffer.from(leaf, 'base64url') };
      listed.append(want.leaf);
      if (!have) {
        const k = `${workflowId}\n${chainId}`;
        const had = gone.get(k);
        if (had) had.seqs.push(seq);
        else gone.set(k, { key: { workflowId, chainId }, seqs: [seq] });
        broken = true;
        continue;
      }
      now.append(have.leaf);
      if (have.leaf.equals(want.leaf)) continue;
      const same = have.workflowId === workflowId && have.chainId === chainId && have.seq === seq;
      problems.push({
        workflowId,
        chainId,
        seq,
        problem: 'changed',
        detail: same
          ? `the record differs from the one checkpointed at place ${place} (checkpoint of ${cp.takenAt})`
          : `place ${place} held this record when checkpointed (${cp.takenAt}); it now holds ${named(have)}: records were reordered or replaced`,
      });
    }
    // After a gap in the witness's checkpoints neither tree is whole: their roots can no longer be compared.
    if (gap) continue;
    if (!listed.root().equals(Buffer.from(cp.rootHash, 'base64url')))
      problems.push(witnessProblem(cp, "its leaves do not give its root: the witness's copy is damaged"));
    else if (!broken && !now.root().equals(Buffer.from(cp.rootHash, 'base64url')))
      problems.push(witnessProblem(cp, `the ledger's tree at size ${cp.treeSize} no longer has its root`));
  }
  for (const { key, seqs } of gone.values()) problems.push(await goneProblem(key, seqs, chainState));
  return problems;
}

function witnessProblem(cp: Checkpoint, detail: string): LedgerProblem {
  return {
    workflowId: '',
    chainId: '',
    seq: cp.treeSize,
    problem: 'changed',
    detail: `checkpoint of size ${cp.treeSize} (${cp.takenAt}): ${detail}`,
  };
}

async function goneProblem(
  key: Key,
  seqs: number[],
  chainState: (key: Key) => Promise<{ records: number; lastSeq: number | null }>,
): Promise<LedgerProblem> {
  const state = await chainState(key);
  const first = seqs.reduce((a, b) => Math.min(a, b)); // a chain may have many: no spread
  const list = seqs.length > 5 ? `${seqs.slice(0, 5).join(', ')}, …` : seqs.join(', ');
  const what =
    state.records === 0
      ? `the whole chain is gone: ${seqs.length} checkpointed record(s) (seq ${list}), e.g. a run deleted after its history left Temporal`
      : state.lastSeq !== null && first > state.lastSeq
        ? `the chain's tail is gone: ${seqs.length} checkpointed record(s) after seq ${state.lastSeq} (seq ${list})`
        : `${seqs.length} checkpointed record(s) are gone (seq ${list})`;
  return { ...key, seq: first, problem: 'removed', detail: what };
}
