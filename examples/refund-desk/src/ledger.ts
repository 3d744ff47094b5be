// The side effect: a payments ledger (a JSON-lines file standing in for a payments API). Every refund carries an
// idempotency key, and a key seen before returns the earlier refund instead of paying twice — so a tool activity
// that Temporal retries after a crash still refunds once.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export interface Refund {
  idempotencyKey: string;
  orderId: string;
  amountCents: number;
  at: string;
}

export const ledgerFile = () => process.env.LEDGER_FILE ?? 'ledger.jsonl';

export function refunds(): Refund[] {
  if (!existsSync(ledgerFile())) return [];
  return readFileSync(ledgerFile(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Refund);
}

export function refund(orderId: string, amountCents: number, idempotencyKey: string): Refund {
  const earlier = refunds().find((r) => r.idempotencyKey === idempotencyKey);
  if (earlier) return earlier;
  const entry: Refund = { idempotencyKey, orderId, amountCents, at: new Date().toISOString() };
  appendFileSync(ledgerFile(), `${JSON.stringify(entry)}\n`);
  return entry;
}
