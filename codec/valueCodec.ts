// Large values stored once. A tool call's arguments travel in many payloads: the model's answer (as an item and as
// the planned call), the transcript, the next model turn's input, the tool's input, the pending view, the
// continue-as-new carry. Each is a different payload, so a content-addressed store would keep each whole. This codec
// runs first among the payload codecs: in a JSON payload of at least the store's threshold, every string of at least
// VALUE_MIN_BYTES goes to the payload store as a value of its own, named by its content, and so does the rest of the
// payload (the envelope: the value with those strings left out, and their references). History keeps a reference
// to the envelope (encoding json/countersign-values), as it would to the whole payload. The same string in any
// number of payloads is one file. With encryption keys, values and envelopes are encrypted with a nonce derived
// from their content (the same value is the same file); the reference in history is encrypted after this codec, as
// any payload. Readers need this codec and the same store: every process builds both in storage/payloadStorage.ts.
import { createHash } from 'node:crypto';
import {
  type Payload,
  type PayloadCodec,
  type SerializationContext,
  type StorageDriver,
  StorageDriverClaim,
  type StorageDriverStoreContext,
} from '@temporalio/common';
import { setNewest } from '../core/newestEntries';
import type { EncryptionCodec } from './encryptionCodec';

export const VALUES_ENCODING = 'json/countersign-values';
export const VALUE_ENCODING = 'binary/countersign-value';
/** Strings shorter than this stay in their payload. */
export const VALUE_MIN_BYTES = 4 * 1024;
const STORED_ENTRIES = 4096;
/**
 * How long "this process stored that value" is believed without storing it again (which touches it). The payload gc
 * deletes only objects untouched for its minimum age (storage/payloadGc.ts), which must be longer than this.
 */
export const STORED_FRESH_MS = 5 * 60_000;
const READ_CACHE_BYTES = 32 * 1024 * 1024;

type Path = Array<string | number>;
/** A stored value: where it is, its UTF-8 size, and where it goes back in the payload. */
export interface ValueRef {
  ref: Record<string, string>;
  bytes: number;
  paths: Path[];
}
/** A stored envelope's data: the value with each stored string as null, and the references that fill them in. */
export interface ValuesEnvelope {
  value: unknown;
  values: ValueRef[];
}

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
/** A payload field's bytes as text. */
export const payloadText = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');

/** What a `json/countersign-values` payload holds: the reference to its stored envelope (or, written inline, the envelope). */
export const valuesPayloadOf = (payload: Payload) =>
  JSON.parse(payloadText(payload.data)) as ValuesEnvelope | { envelope: Record<string, string>; bytes?: number };
const encodingOf = (p: Payload) => payloadText(p.metadata?.encoding);

/**
 * Where a payload's values are stored: under its namespace (the prefix Temporal's S3 driver gives its objects), shared
 * by every workflow there, so that a value in a run's payloads, its continuations' and the grants check's is one
 * object. Without a context (a transcript written outside an activity), at the store's root.
 */
export function storeTargetOf(context?: SerializationContext): StorageDriverStoreContext {
  return context?.namespace ? { target: { kind: 'workflow', namespace: context.namespace } } : {};
}

/** `value` with every string of at least `min` bytes replaced by null; those strings, with where they were. */
export function splitValues(value: unknown, min = VALUE_MIN_BYTES): { skeleton: unknown; found: Map<string, Path[]> } {
  const found = new Map<string, Path[]>();
  const walk = (v: unknown, path: Path): unknown => {
    if (typeof v === 'string') {
      if (v.length * 3 < min || Buffer.byteLength(v, 'utf8') < min) return v;
      found.set(v, [...(found.get(v) ?? []), path]);
      return null;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...path, i]));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...path, k])]));
    return v;
  };
  return { skeleton: walk(value, []), found };
}

/** The skeleton with each value back at its paths. */
export function joinValues(skeleton: unknown, values: Array<{ value: string; paths: Path[] }>): unknown {
  let root = skeleton;
  for (const { value, paths } of values)
    for (const path of paths) {
      if (path.length === 0) {
        root = value;
        continue;
      }
      let at = root as Record<string | number, unknown>;
      for (const [i, step] of path.entries()) {
        // Only the value's own places: a path that is not in the skeleton is a corrupt envelope, never a prototype.
        if (!at || typeof at !== 'object' || !Object.hasOwn(at, step))
          throw new Error(`stored envelope has no place ${JSON.stringify(path)} for a value`);
        if (i === path.length - 1) at[step] = value;
        else at = at[step] as Record<string | number, unknown>;
      }
    }
  return root;
}

export class LargeValueCodec implements PayloadCodec {
  /** Where and sha256 of a value → its reference and when it was stored: not stored (or encrypted) again while fresh. */
  private readonly stored = new Map<string, { ref: Record<string, string>; at: number }>();
  /** Values by reference, newest last, up to READ_CACHE_BYTES. */
  private readonly values = new Map<string, string>();
  private cachedBytes = 0;

  constructor(
    private readonly driver: StorageDriver,
    private readonly thresholdBytes: number,
    private readonly encryption?: EncryptionCodec,
  ) {}

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const target = storeTargetOf(context);
    return Promise.all(payloads.map((p) => this.encodeOne(p, target)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => this.decodeOne(p)));
  }

  private async encodeOne(payload: Payload, target: StorageDriverStoreContext): Promise<Payload> {
    if ((payload.data?.length ?? 0) < this.thresholdBytes || encodingOf(payload) !== 'json/plain') return payload;
    const { skeleton, found } = splitValues(JSON.parse(payloadText(payload.data)));
    if (found.size === 0) return payload; // Temporal's external storage takes it whole, as before
    const values = await Promise.all(
      [...found].map(async ([value, paths]) => ({
        ref: await this.storeValue(value, target),
        bytes: Buffer.byteLength(value, 'utf8'),
        paths,
      })),
    );
    const envelope: ValuesEnvelope = { value: skeleton, values };
    // The payload was over the threshold: what is left of it goes to the store too, and history keeps a reference.
    const data = utf8(JSON.stringify(envelope));
    const ref = await this.put({ metadata: { ...payload.metadata, encoding: utf8(VALUES_ENCODING) }, data }, target);
    return {
      metadata: { ...payload.metadata, encoding: utf8(VALUES_ENCODING) },
      data: utf8(JSON.stringify({ envelope: ref, bytes: data.length })),
    };
  }

  private async decodeOne(payload: Payload): Promise<Payload> {
    if (encodingOf(payload) !== VALUES_ENCODING) return payload;
    const read = valuesPayloadOf(payload);
    const envelope =
      'envelope' in read
        ? (JSON.parse(payloadText((await this.get(read.envelope, VALUES_ENCODING)).data)) as ValuesEnvelope)
        : read;
    const values = await Promise.all(
      envelope.values.map(async (v) => ({ value: await this.loadValue(v), paths: v.paths })),
    );
    return {
      metadata: { ...payload.metadata, encoding: utf8('json/plain') },
      data: utf8(JSON.stringify(joinValues(envelope.value, values))),
    };
  }

  /** Stores a payload (encrypted, the same bytes for the same payload) and returns its reference. */
  private async put(payload: Payload, target: StorageDriverStoreContext): Promise<Record<string, string>> {
    const [claim] = await this.driver.store(target, [
      this.encryption ? this.encryption.encodeDeterministic(payload) : payload,
    ]);
    return { driver: this.driver.name, ...claim!.claimData };
  }

  private async get(ref: Record<string, string>, encoding: string): Promise<Payload> {
    const { driver, ...claimData } = ref;
    if (driver !== this.driver.name)
      throw new Error(
        `a value of this payload is in payload store "${driver}", this process uses "${this.driver.name}": configure the store its runs use`,
      );
    let [payload] = await this.driver.retrieve({}, [new StorageDriverClaim(claimData)]);
    if (this.encryption) [payload] = await this.encryption.decode([payload!]);
    if (encodingOf(payload!) !== encoding)
      throw new Error(
        `stored payload ${JSON.stringify(ref)} is ${encodingOf(payload!) || 'unreadable'}, not ${encoding}: is COUNTERSIGN_ENCRYPTION_KEYS set as when it was written?`,
      );
    return payload!;
  }

  private async storeValue(value: string, target: StorageDriverStoreContext): Promise<Record<string, string>> {
    const hash = `${JSON.stringify(target.target ?? {})} ${createHash('sha256').update(value, 'utf8').digest('hex')}`;
    const known = this.stored.get(hash);
    if (known && Date.now() - known.at < STORED_FRESH_MS) return known.ref;
    const at = Date.now(); // before the store touched it: never believed fresher than it is
    const ref = await this.put({ metadata: { encoding: utf8(VALUE_ENCODING) }, data: utf8(value) }, target);
    setNewest(this.stored, hash, { ref, at }, STORED_ENTRIES);
    this.remember(JSON.stringify(ref), value);
    return ref;
  }

  private async loadValue(v: ValueRef): Promise<string> {
    const key = JSON.stringify(v.ref);
    const cached = this.values.get(key);
    if (cached !== undefined) {
      this.values.delete(key); // the newest again
      this.values.set(key, cached);
      return cached;
    }
    const value = payloadText((await this.get(v.ref, VALUE_ENCODING)).data);
    if (Buffer.byteLength(value, 'utf8') !== v.bytes)
      throw new Error(
        `stored value ${key} holds ${Buffer.byteLength(value, 'utf8')} bytes, its reference says ${v.bytes}`,
      );
    return this.remember(key, value);
  }

  private remember(key: string, value: string): string {
    if (this.values.has(key)) return value;
    this.values.set(key, value);
    this.cachedBytes += value.length;
    while (this.cachedBytes > READ_CACHE_BYTES && this.values.size > 1) {
      const [oldest, v] = this.values.entries().next().value!;
      this.values.delete(oldest);
      this.cachedBytes -= v.length;
    }
    return value;
  }
}
