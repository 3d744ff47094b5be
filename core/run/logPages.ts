// Reading a growing log (the conversation, the audit) in bounded pieces: pages after a cursor, and the newest
// window. Every piece stops at about 1 MB of JSON, so no query answer or result nears Temporal's 2 MB limit. Pure.
import type { ConversationItem } from '../../contract/items';
import type { AuditEntry } from '../../contract/runViews';

/** A page (query answer) stops after about this much JSON, so no answer nears Temporal's 2 MB payload limit. */
export const PAGE_BYTES = 1_000_000;
export const DEFAULT_PAGE = 100;
/** How much of the newest items and audit entries a snapshot shows. */
export interface Window {
  entries: number;
  bytes: number;
}
/** `runState` shows at most this much of the newest items and of the audit. */
export const SNAPSHOT_WINDOW: Window = { entries: 200, bytes: PAGE_BYTES };
/** The workflow result holds less: it is one payload recorded in history. */
export const RESULT_WINDOW: Window = { entries: 100, bytes: 256_000 };

/** Entries up to about PAGE_BYTES of JSON (always at least one). */
export function page<T>(entries: T[]): T[] {
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    bytes += JSON.stringify(entries[i]).length;
    if (bytes > PAGE_BYTES && i > 0) return entries.slice(0, i);
  }
  return entries;
}

/** Where the newest window of a log starts: at most `budget` entries and about `budget` bytes (always the newest one). */
export function windowStart(entries: ReadonlyArray<ConversationItem | AuditEntry>, budget: Window): number {
  let start = Math.max(0, entries.length - budget.entries);
  let bytes = 0;
  for (let i = entries.length - 1; i >= start; i--) {
    bytes += JSON.stringify(entries[i]).length;
    if (bytes > budget.bytes && i < entries.length - 1) {
      start = i + 1;
      break;
    }
  }
  return start;
}
