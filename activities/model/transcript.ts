// The model's transcript, kept out of history. The model needs the whole conversation on every turn; sending it
// as the activity's input would record it again in history each turn (quadratic growth). Instead the model-turn
// activity stores what is new since the last turn as one segment in the payload store (the same driver as
// Temporal's external storage, encrypted by the same codecs) and hands the workflow a small head reference. A
// segment points to the one before it; every few segments a full copy starts a new chain, so a cold worker
// reads a bounded number of segments. Content-addressed, so a retried activity stores nothing new.
import type { ConversationItem } from '../../contract/items';
import type { TranscriptHead } from '../../core/run/runCarry';
import {
  type Payload,
  type PayloadCodec,
  type SerializationContext,
  StorageDriverClaim,
  type StorageDriver,
  defaultPayloadConverter,
} from '@temporalio/common';
import { storeTargetOf } from '../../codec/valueCodec';
import { setNewest } from '../../core/newestEntries';

/** A chain longer than this is compacted into one full segment. */
const MAX_CHAIN = 32;
/** Full transcripts kept in memory, by head: a warm worker reads nothing back. */
const CACHE_ENTRIES = 256;
/** Chain depths known without a read; oldest forgotten first (a forgotten one costs one read of its segment). */
const DEPTH_ENTRIES = 4096;

interface Segment {
  prev?: TranscriptHead;
  depth: number;
  items: ConversationItem[];
}

export class TranscriptStore {
  private readonly cache = new Map<string, ConversationItem[]>();

  constructor(
    private readonly driver: StorageDriver,
    private readonly codecs: PayloadCodec[] = [],
  ) {}

  /** The whole conversation a head stands for. */
  async load(head: TranscriptHead): Promise<ConversationItem[]> {
    const key = keyOf(head);
    const cached = this.cache.get(key);
    if (cached) return this.remember(key, cached);
    const segment = await this.read(head);
    const items = segment.prev ? [...(await this.load(segment.prev)), ...segment.items] : segment.items;
    if (items.length !== head.count)
      throw new Error(`transcript ${key} holds ${items.length} items, its head says ${head.count}`);
    return this.remember(key, items);
  }

  /**
   * Stores `items` after the conversation `head` stands for; the head of the longer conversation. `owner`: the run,
   * whose other payloads share the segment's large values (codec/valueCodec.ts).
   */
  async append(
    head: TranscriptHead | undefined,
    items: ConversationItem[],
    owner?: SerializationContext,
  ): Promise<{ head: TranscriptHead; all: ConversationItem[] }> {
    const before = head ? await this.load(head) : [];
    if (head && items.length === 0) return { head, all: before };
    const depth = head ? ((await this.depthOf(head)) ?? MAX_CHAIN) + 1 : 0;
    const all = [...before, ...items];
    const segment: Segment = depth >= MAX_CHAIN || !head ? { depth: 0, items: all } : { prev: head, depth, items };
    const ref = await this.write(segment, owner);
    const next = { ref, count: all.length };
    this.remember(keyOf(next), all);
    return { head: next, all };
  }

  private readonly depths = new Map<string, number>();

  private async depthOf(head: TranscriptHead): Promise<number | undefined> {
    const known = this.depths.get(keyOf(head));
    if (known !== undefined) return known;
    return (await this.read(head)).depth;
  }

  private async write(segment: Segment, owner?: SerializationContext): Promise<Record<string, string>> {
    let payloads: Payload[] = [defaultPayloadConverter.toPayload(segment)];
    for (const codec of this.codecs) payloads = await codec.encode(payloads, owner);
    const [claim] = await this.driver.store(storeTargetOf(owner), payloads);
    const ref = { driver: this.driver.name, ...claim!.claimData };
    setNewest(this.depths, JSON.stringify(ref), segment.depth, DEPTH_ENTRIES);
    return ref;
  }

  private async read(head: TranscriptHead): Promise<Segment> {
    const { driver, ...claimData } = head.ref;
    if (driver !== this.driver.name)
      throw new Error(
        `the transcript is in payload store "${driver}", this worker uses "${this.driver.name}": configure the worker with the store its runs use`,
      );
    let payloads = await this.driver.retrieve({}, [new StorageDriverClaim(claimData)]);
    for (const codec of [...this.codecs].reverse()) payloads = await codec.decode(payloads);
    const segment = defaultPayloadConverter.fromPayload<Segment>(payloads[0]!);
    setNewest(this.depths, keyOf(head), segment.depth, DEPTH_ENTRIES);
    return segment;
  }

  private remember(key: string, items: ConversationItem[]): ConversationItem[] {
    setNewest(this.cache, key, items, CACHE_ENTRIES);
    return items;
  }
}

const keyOf = (head: TranscriptHead) => JSON.stringify(head.ref);
