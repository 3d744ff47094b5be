// The Merkle tree a ledger checkpoint signs, as Certificate Transparency defines it (RFC 6962 §2.1, RFC 9162 §2.1):
// leaves hashed with a 0x00 prefix, nodes with 0x01, the left subtree of n leaves the largest power of two below n.
// A tree head (size, root) signed at one size, and the tree at a later size, agree exactly when the later tree only
// appended leaves: that is what a consistency proof shows without the leaves. Pure (node:crypto only).
import { createHash } from 'node:crypto';

const sha256 = (...parts: Buffer[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

/** A leaf's hash: SHA-256(0x00 ‖ data). */
export const leafHash = (data: string | Buffer): Buffer => sha256(LEAF, Buffer.from(data));
/** An inner node's hash: SHA-256(0x01 ‖ left ‖ right). */
export const nodeHash = (left: Buffer, right: Buffer): Buffer => sha256(NODE, left, right);

/** The largest power of two below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) over leaf hashes; the empty tree's is SHA-256 of nothing. */
export function treeHash(leaves: Buffer[], from = 0, to = leaves.length): Buffer {
  const n = to - from;
  if (n === 0) return sha256();
  if (n === 1) return leaves[from]!;
  const k = split(n);
  return nodeHash(treeHash(leaves, from, from + k), treeHash(leaves, from + k, to));
}

/** PROOF(m, D[n]) (RFC 6962 §2.1.2): the nodes that show the tree of the first m leaves is a prefix of this one. */
export function consistencyProof(leaves: Buffer[], m: number): Buffer[] {
  if (!Number.isInteger(m) || m < 0 || m > leaves.length) throw new Error(`no tree of ${m} leaves in ${leaves.length}`);
  if (m === 0 || m === leaves.length) return [];
  return subproof(leaves, m, 0, leaves.length, true);
}

function subproof(leaves: Buffer[], m: number, from: number, to: number, whole: boolean): Buffer[] {
  const n = to - from;
  if (m === n) return whole ? [] : [treeHash(leaves, from, to)];
  const k = split(n);
  if (m <= k) return [...subproof(leaves, m, from, from + k, whole), treeHash(leaves, from + k, to)];
  return [...subproof(leaves, m - k, from + k, to, false), treeHash(leaves, from, from + k)];
}

/** RFC 9162 §2.1.4.2: does `proof` show the tree (size2, root2) extends the tree (size1, root1)? */
export function verifyConsistency(
  size1: number,
  size2: number,
  root1: Buffer,
  root2: Buffer,
  proof: Buffer[],
): boolean {
  if (size1 > size2 || size1 < 0) return false;
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  if (size1 === 0) return proof.length === 0;
  if (!proof.length) return false;
  const path = (size1 & (size1 - 1)) === 0 ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn & 1) {
    fn >>>= 1;
    sn >>>= 1;
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn & 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!(fn & 1))
        while (!(fn & 1) && fn !== 0) {
          fn >>>= 1;
          sn >>>= 1;
        }
    } else sr = nodeHash(sr, c);
    fn >>>= 1;
    sn >>>= 1;
  }
  return fr.equals(root1) && sr.equals(root2) && sn === 0;
}

/**
 * A tree grown one leaf at a time in O(log n) memory: the perfect subtrees its size decomposes into (CT's compact
 * range). `root()` at any size is MTH of the leaves so far, so one pass over a million leaves gives the root at every
 * checkpointed size.
 */
export class TreeFrontier {
  private readonly stack: Array<{ size: number; hash: Buffer }> = [];
  size = 0;

  append(leaf: Buffer): void {
    let node = { size: 1, hash: leaf };
    while (this.stack.length && this.stack[this.stack.length - 1]!.size === node.size) {
      const left = this.stack.pop()!;
      node = { size: left.size * 2, hash: nodeHash(left.hash, node.hash) };
    }
    this.stack.push(node);
    this.size++;
  }

  root(): Buffer {
    if (!this.stack.length) return sha256();
    let acc = this.stack[this.stack.length - 1]!.hash;
    for (let i = this.stack.length - 2; i >= 0; i--) acc = nodeHash(this.stack[i]!.hash, acc);
    return acc;
  }
}
