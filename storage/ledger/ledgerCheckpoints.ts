// `countersign ledger checkpoint` and `ledger verify --checkpoints`: a signed tree head of the whole ledger, kept by a
// witness outside its database (ledgerWitness.ts), and the check that the ledger only grew since each one. The key
// is an Ed25519 JWK as `countersign keys generate` writes it: the private one signs (COUNTERSIGN_LEDGER_CHECKPOINT_KEY),
// a key set of public ones verifies (COUNTERSIGN_LEDGER_CHECKPOINT_KEYS, else the private key's public half).
import { type KeyObject, createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  type CheckpointLeaf,
  checkpointProblem,
  compareWithCheckpoints,
  signCheckpoint,
} from './ledgerCheckpoint';
import type { LedgerProblem, LedgerStore } from './ledgerStore';
import { TreeFrontier } from './merkleTree';
import { setting } from '../../temporal.config';
import { keepCheckpoint, readCheckpoints, witnessOf } from './ledgerWitness';

const PAGE = 5_000;

/** What a checkpoint that was taken says, and where it went (`unchanged`: no record since the last one, none taken). */
export interface TakenCheckpoint {
  treeSize: number;
  records: number;
  rootHash?: string;
  where?: string;
  unchanged?: true;
}

/** The private JWK `countersign keys generate` writes ({ kty: OKP, crv: Ed25519, x, d, kid }). */
function signingKey(file: string): { kid: string; key: KeyObject } {
  const full = path.resolve(file);
  let jwk: { kid?: unknown; x?: unknown; d?: unknown };
  try {
    jwk = JSON.parse(readFileSync(full, 'utf8')) as typeof jwk;
  } catch (err) {
    throw new Error(`checkpoint key ${full}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof jwk.kid !== 'string' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string')
    throw new Error(
      `checkpoint key ${full}: not a private key (kid, x and d); make one with countersign keys generate ledger-checkpoint`,
    );
  try {
    const key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
    return { kid: jwk.kid, key };
  } catch (err) {
    throw new Error(`checkpoint key ${full} is not a usable Ed25519 key: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** The public keys checkpoints are checked with: a JWKS file, or a JWK (the private key's public half). */
export function checkpointKeys(file: string): Map<string, KeyObject> {
  let data: { keys?: unknown[]; kid?: unknown; x?: unknown };
  try {
    data = JSON.parse(readFileSync(path.resolve(file), 'utf8')) as typeof data;
  } catch (err) {
    throw new Error(`checkpoint keys ${path.resolve(file)}: ${(err as Error).message.split('\n')[0]}`);
  }
  const keys = new Map<string, KeyObject>();
  for (const k of (Array.isArray(data.keys) ? data.keys : [data]) as Array<{
    kid?: unknown;
    x?: unknown;
    crv?: unknown;
  }>)
    if (typeof k.kid === 'string' && typeof k.x === 'string' && (k.crv ?? 'Ed25519') === 'Ed25519')
      keys.set(k.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x }, format: 'jwk' }));
  if (!keys.size) throw new Error(`checkpoint keys ${path.resolve(file)}: no Ed25519 key with a kid and x in it`);
  return keys;
}

/** Places the records written since, signs the tree head and hands it to the witness. */
export async function takeCheckpoint(
  ledger: LedgerStore,
  o: { witness?: string; keyFile?: string; now?: Date } = {},
): Promise<TakenCheckpoint> {
  const witnessSetting = o.witness ?? setting('COUNTERSIGN_LEDGER_WITNESS');
  const keyFile = o.keyFile ?? setting('COUNTERSIGN_LEDGER_CHECKPOINT_KEY');
  if (!witnessSetting)
    throw new Error('no witness: set COUNTERSIGN_LEDGER_WITNESS (a folder, s3://bucket/prefix or a webhook)');
  if (!keyFile)
    throw new Error(
      'no checkpoint key: set COUNTERSIGN_LEDGER_CHECKPOINT_KEY to a private key made with countersign keys generate ledger-checkpoint',
    );
  const witness = witnessOf(witnessSetting);
  const { kid, key } = signingKey(keyFile); // a bad key is refused before the ledger changes
  const { size, records, checkpointed } = await ledger.placeLeaves();
  if (size === checkpointed && checkpointed > 0) return { treeSize: size, records, unchanged: true };
  const frontier = new TreeFrontier();
  const leaves: CheckpointLeaf[] = [];
  for (let after = 0; after < size;) {
    const page = await ledger.leaves(after, PAGE);
    if (!page.length) break;
    for (const l of page) {
      if (l.index > size) break;
      if (l.index !== frontier.size + 1)
        throw new Error(
          `the ledger's record at place ${frontier.size + 1} is missing: run ledger verify --checkpoints before taking another`,
        );
      frontier.append(l.leaf);
      if (l.index > checkpointed) leaves.push([l.workflowId, l.chainId, l.seq, l.leaf.toString('base64url')]);
    }
    after = page[page.length - 1]!.index;
  }
  const checkpoint = signCheckpoint(
    {
      format: CHECKPOINT_FORMAT,
      ledgerId: ledger.id!,
      treeSize: frontier.size,
      rootHash: frontier.root().toString('base64url'),
      records,
      previousSize: checkpointed,
      leaves,
      takenAt: (o.now ?? new Date()).toISOString(),
      keyId: kid,
    },
    key,
  );
  const where = await keepCheckpoint(witness, checkpoint);
  await ledger.markCheckpointed(checkpoint.treeSize);
  return { treeSize: checkpoint.treeSize, records, rootHash: checkpoint.rootHash, where };
}

export interface CheckpointCheck {
  /** Checkpoints read, and those whose signature held. */
  read: number;
  trusted: number;
  /** The largest trusted size (every record up to it is vouched for). */
  treeSize: number;
  problems: LedgerProblem[];
}

/** Every checkpoint the witness keeps: its signature, then the ledger's tree at its size. */
export async function checkCheckpoints(
  ledger: LedgerStore,
  o: { witness: string; keysFile?: string },
): Promise<CheckpointCheck> {
  const keysFile =
    o.keysFile ?? setting('COUNTERSIGN_LEDGER_CHECKPOINT_KEYS') ?? setting('COUNTERSIGN_LEDGER_CHECKPOINT_KEY');
  if (!keysFile)
    throw new Error(
      'no checkpoint keys: set COUNTERSIGN_LEDGER_CHECKPOINT_KEYS to the key set keys generate wrote (or --checkpoint-keys)',
    );
  const keys = checkpointKeys(keysFile);
  const found = await readCheckpoints(witnessOf(o.witness));
  const problems: LedgerProblem[] = [];
  const trusted: Checkpoint[] = [];
  for (const { from, value } of found) {
    const why = checkpointProblem(value, keys, ledger.id!);
    if (why)
      problems.push({
        workflowId: '',
        chainId: '',
        seq: 0,
        problem: 'changed',
        detail: `checkpoint ${from} refused: ${why}`,
      });
    else trusted.push(value as Checkpoint);
  }
  problems.push(
    ...(await compareWithCheckpoints(
      trusted,
      (after) => ledger.leaves(after, PAGE),
      (key) => ledger.chainState(key),
    )),
  );
  return {
    read: found.length,
    trusted: trusted.length,
    treeSize: Math.max(0, ...trusted.map((c) => c.treeSize)),
    problems,
  };
}
