// The ledger's JSON kept compactly: raw DEFLATE with a preset dictionary of the field names and words a call's trail
// repeats (a 300-byte trail keeps about 90 bytes; plain DEFLATE keeps about 165, since a short text has no repeats of
// its own to point back at). The first byte names the dictionary, so a later one can be added beside it; the
// dictionary of version 1 is fixed forever (what it packed is read back with it).
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const DICTIONARIES: Record<number, Buffer> = {
  1: Buffer.from(
    '"reviewable":{"review":true,"cutOff":true,"pending":{"path":"approvedBy":["keyId":"reason":"onTimeout":"approve",' +
      '"quorum":{"needed":2,"verified":true,"via":"update","argumentsDigest":"agentName":"runAgent":"counted":[],' +
      '"first":{"toolName":"requestedAt":"2026-"terminal":{"callId":"call-"decision":"auto_approved","granted",' +
      '"expired","cancelled","timed_out","rejected","approved","approver":"decidedAt":"2026-',
  ),
};
const CURRENT = 1;

/** `text` packed: its dictionary's number, then raw DEFLATE. */
export function pack(text: string): Buffer {
  const packed = deflateRawSync(text, { dictionary: DICTIONARIES[CURRENT]! });
  return Buffer.concat([Buffer.from([CURRENT]), packed]);
}

/** The text `pack` was given; a one-line error for bytes it did not write. */
export function unpack(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dictionary = DICTIONARIES[b[0] ?? -1];
  if (!dictionary) throw new Error(`packed ledger data of unknown version ${b[0]}`);
  return inflateRawSync(b.subarray(1), { dictionary }).toString('utf8');
}
