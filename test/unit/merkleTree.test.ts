// The checkpoints' Merkle tree against RFC 6962: the reference roots of its eight test leaves, the streaming
// frontier against the recursive MTH at every size, and consistency proofs made and checked for every pair of sizes
// up to 40 (powers of two and not), refused when a leaf, a root or a proof node is changed.
import { createHash } from 'node:crypto';
import {
  TreeFrontier,
  consistencyProof,
  leafHash,
  nodeHash,
  treeHash,
  verifyConsistency,
} from '../../storage/ledger/merkleTree';

// RFC 6962's reference leaves and the roots of their first 1..8 (certificate-transparency's test data).
const RFC_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
const RFC_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const leaves = (n: number) => Array.from({ length: n }, (_, i) => leafHash(`record ${i}`));

test("RFC 6962's reference tree: each size's root, and the empty tree's", () => {
  const hashed = RFC_LEAVES.map((hex) => leafHash(Buffer.from(hex, 'hex')));
  expect(RFC_ROOTS.map((_, i) => treeHash(hashed.slice(0, i + 1)).toString('hex'))).toEqual(RFC_ROOTS);
  expect(treeHash([]).toString('hex')).toBe(createHash('sha256').digest('hex'));
  expect(
    leafHash('').equals(
      createHash('sha256')
        .update(Buffer.from([0]))
        .digest(),
    ),
  ).toBe(true);
});

test('the left subtree is the largest power of two below the size (5 leaves: 4 and 1)', () => {
  const l = leaves(5);
  const four = nodeHash(nodeHash(l[0]!, l[1]!), nodeHash(l[2]!, l[3]!));
  expect(treeHash(l).equals(nodeHash(four, l[4]!))).toBe(true);
});

test('the frontier, grown one leaf at a time, has the recursive root at every size', () => {
  const l = leaves(70);
  const frontier = new TreeFrontier();
  expect(frontier.root().equals(treeHash([]))).toBe(true);
  for (let n = 1; n <= l.length; n++) {
    frontier.append(l[n - 1]!);
    expect([n, frontier.root().toString('hex')]).toEqual([n, treeHash(l.slice(0, n)).toString('hex')]);
  }
});

test('consistency proofs between every pair of sizes up to 40 verify; changed ones are refused', () => {
  const l = leaves(40);
  let checked = 0;
  for (let n = 1; n <= l.length; n++) {
    const tree = l.slice(0, n);
    const root2 = treeHash(tree);
    for (let m = 1; m <= n; m++) {
      const root1 = treeHash(tree.slice(0, m));
      const proof = consistencyProof(tree, m);
      expect([m, n, verifyConsistency(m, n, root1, root2, proof)]).toEqual([m, n, true]);
      if (m < n) {
        // Another old root (a leaf of the first m changed), another new root, or a proof node changed: no.
        const changed = [...tree];
        changed[m - 1] = leafHash('changed');
        expect(verifyConsistency(m, n, treeHash(changed.slice(0, m)), root2, proof)).toBe(false);
        expect(verifyConsistency(m, n, root1, treeHash(changed), proof)).toBe(false);
        if (proof.length) {
          const bent = proof.map((p, i) => (i === proof.length - 1 ? leafHash('bent') : p));
          expect(verifyConsistency(m, n, root1, root2, bent)).toBe(false);
        }
        checked++;
      }
    }
  }
  expect(checked).toBe((40 * 39) / 2);
});

test("RFC 6962's example proofs have the sizes its §2.1.3 gives (7 leaves: from 3, 4 and 6)", () => {
  const l = leaves(7);
  expect([3, 4, 6].map((m) => consistencyProof(l, m).length)).toEqual([4, 1, 3]);
  // From 4 of 7: the root of leaves 4..6 alone.
  expect(consistencyProof(l, 4)[0]!.equals(treeHash(l, 4, 7))).toBe(true);
});
