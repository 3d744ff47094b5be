// What a run can read from the payload store, found from its history: the mark half of the payload gc
// (storage/payloadGc.ts). References hide at several depths, and each is followed:
// - Temporal's external storage: a payload replaced by an ExternalStorageReference (driver name and claim);
// - the value codec (codec/valueCodec.ts): a `json/countersign-values` payload naming a stored envelope, whose values
//   are stored too (values are text: marked, never read);
// - the model's transcript (activities/model/transcript.ts): `{ ref: { driver, …claim }, count }` in a JSON payload,
//   whose segment names the one before it;
// - encryption (codec/encryptionCodec.ts): any of these inside an encrypted payload, so without the keys nothing is
//   known to be unreferenced and the sweep refuses.
import { type Payload, type StorageDriver, StorageDriverClaim } from '@temporalio/common';
import { ENCRYPTED_ENCODING, type EncryptionCodec, EncryptionKeyError } from '../codec/encryptionCodec';
import { VALUES_ENCODING, payloadText, valuesPayloadOf } from '../codec/valueCodec';
import type { StoreObjects } from './storeObjects';

const REFERENCE_TYPE = 'temporal.api.sdk.v1.ExternalStorageReference';

/** A reason the sweep cannot tell what is unreferenced; nothing is deleted. */
export class GcRefused extends Error {
  override name = 'GcRefused';
}

export class StoreReferences {
  /** Objects some payload reaches. */
  readonly reachable = new Set<string>();
  /** Objects a reference names that are not in the store (already lost: reported, not fatal). */
  readonly missing = new Set<string>();
  /** References to another store (another driver name or bucket): never swept here. */
  foreign = 0;
  private readonly followed = new Set<string>();

  constructor(
    private readonly store: StoreObjects,
    private readonly driver: StorageDriver,
    private readonly encryption?: EncryptionCodec,
  ) {}

  /** Every payload anywhere in `node` (a page of history events, a description of a run), and all they reach. */
  async markIn(node: unknown): Promise<void> {
    const payloads: Payload[] = [];
    collectPayloads(node, payloads);
    for (const payload of payloads) await this.markPayload(payload);
  }

  private async markPayload(payload: Payload): Promise<void> {
    const encoding = payloadText(payload.metadata?.encoding);
    if (encoding === 'json/protobuf' && payloadText(payload.metadata?.messageType) === REFERENCE_TYPE) {
      const ref = JSON.parse(payloadText(payload.data)) as { driverName?: string; claimData?: Record<string, string> };
      if (ref.driverName !== this.driver.name || !ref.claimData) return void this.foreign++;
      return this.follow(ref.claimData);
    }
    if (encoding === ENCRYPTED_ENCODING) return this.markPayload(await this.decrypt(payload));
    if (encoding === VALUES_ENCODING) {
      const read = valuesPayloadOf(payload);
      if ('envelope' in read) return this.followRef(read.envelope);
      for (const v of read.values) this.markRef(v.ref);
      return this.scan(read.value);
    }
    if (encoding === 'json/plain') return this.scan(JSON.parse(payloadText(payload.data)));
  }

  private async decrypt(payload: Payload): Promise<Payload> {
    if (!this.encryption)
      throw new GcRefused(
        'the runs have encrypted payloads, whose references only the keys can read: set COUNTERSIGN_ENCRYPTION_KEYS (every key still in use) and run it again',
      );
    try {
      return (await this.encryption.decode([payload]))[0]!;
    } catch (err) {
      if (err instanceof EncryptionKeyError)
        throw new GcRefused(
          `${err.message}: add every key still in use to COUNTERSIGN_ENCRYPTION_KEYS and run it again`,
        );
      throw err;
    }
  }

  /** Transcript heads and segments' `prev`: any `{ driver, …claim }` of this store inside JSON. */
  private async scan(value: unknown): Promise<void> {
    if (Array.isArray(value)) {
      for (const v of value) await this.scan(v);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const o = value as Record<string, unknown>;
    if (typeof o.driver === 'string' && Object.values(o).every((v) => typeof v === 'string'))
      return this.followRef(o as Record<string, string>);
    for (const v of Object.values(o)) await this.scan(v);
  }

  private markRef(ref: Record<string, string>): void {
    const { driver, ...claimData } = ref;
    const id = driver === this.driver.name ? this.store.idOf(claimData) : undefined;
    if (id) this.reachable.add(id);
    else this.foreign++;
  }

  private async followRef(ref: Record<string, string>): Promise<void> {
    const { driver, ...claimData } = ref;
    if (driver !== this.driver.name) return void this.foreign++;
    return this.follow(claimData);
  }

  /** Marks the claimed object and whatever it references; each object is read once per sweep. */
  private async follow(claimData: Record<string, string>): Promise<void> {
    const key = JSON.stringify(Object.entries(claimData).sort());
    if (this.followed.has(key)) return;
    this.followed.add(key);
    const id = this.store.idOf(claimData);
    if (!id) return void this.foreign++; // another bucket's, or JSON that only looks like a reference
    this.reachable.add(id);
    let payload: Payload;
    try {
      [payload] = (await this.driver.retrieve({}, [new StorageDriverClaim(claimData)])) as [Payload];
    } catch (err) {
      // Gone already: nothing it referenced can be read through it. Any other failure (a network error, a denied
      // read) leaves its references unknown, so the sweep stops.
      if (!(await this.store.has(id))) return void this.missing.add(id);
      throw err;
    }
    await this.markPayload(payload);
  }
}

function isPayload(node: Record<string, unknown>): boolean {
  const metadata = node.metadata as Record<string, unknown> | undefined | null;
  return !!metadata && typeof metadata === 'object' && metadata.encoding instanceof Uint8Array;
}

/** Payloads wherever they sit in a protobuf message: inputs, results, failures' details, headers, memos, markers. */
function collectPayloads(node: unknown, into: Payload[]): void {
  if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
  if (Array.isArray(node)) {
    for (const n of node) collectPayloads(n, into);
    return;
  }
  const o = node as Record<string, unknown>;
  if (isPayload(o)) {
    into.push(o as Payload);
    return;
  }
  for (const v of Object.values(o)) collectPayloads(v, into);
}
