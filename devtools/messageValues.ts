// The values a user message holds, for the scripted model's planner of any agent (devtools/anyAgentBrain.ts):
// emails, URLs, dates, ids (A-17, DR-42, ORD123), numbers, currency codes, quoted strings and capitalised names
// (Alice, San Francisco; not a sentence's first word), each with the words
// around it ("order A-17" → before: order), so a property named orderId can take the id that follows "order".
// Words are compared by stem: "refunds", "refunded" and "refund" are the same word.

export type ValueKind = 'email' | 'url' | 'date' | 'id' | 'number' | 'currency' | 'quoted' | 'name';

export interface MessageValue {
  kind: ValueKind;
  /** The text as written (a number's digits, a quoted string without its quotes). */
  text: string;
  /** Where it starts in the message: values are offered in the order they were written. */
  at: number;
  /** Up to three words before it and one after, stemmed ("on order A-17" → ['on', 'order']; "80 EUR" → after ['eur']). */
  before: string[];
  after: string[];
}

const FILLER = new Set([
  'the',
  'a',
  'an',
  'no',
  'nr',
  'number',
  'num',
  'is',
  'of',
  'to',
  'for',
  'with',
  'on',
  'at',
  'by',
  'and',
  'it',
  'be',
]);
const CURRENCIES = new Set([
  'EUR',
  'USD',
  'GBP',
  'CHF',
  'JPY',
  'CAD',
  'AUD',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CNY',
  'INR',
  'BRL',
  'MXN',
  'NZD',
]);
/** An email address anywhere in a text (global: use with match or matchAll). */
export const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const PATTERNS: Array<[ValueKind, RegExp]> = [
  ['email', EMAIL],
  ['url', /\bhttps?:\/\/[^\s"'<>]+[^\s"'<>.,;:!?)]/g],
  ['date', /\b\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z?)?\b/g],
  ['id', /\b[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]\d[A-Za-z0-9]*\b|\b[A-Za-z]+\d+[A-Za-z0-9]*\b/g],
  ['currency', /\b[A-Z]{3}\b/g],
  ['number', /(?<![\w.])-?\d+(?:\.\d+)?(?![\w@])/g],
  ['name', /(?<![.!?]\s*)(?<!^\s*)\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b/g],
];

/** A word's stem: lower case, without a plural or past ending ("refunded" → "refund", "orders" → "order"). */
export function stem(word: string): string {
  const w = word.toLowerCase();
  for (const end of ['ing', 'ed', 'es', 's'])
    if (w.length - end.length >= 4 && w.endsWith(end)) return w.slice(0, -end.length);
  return w;
}

/** The words of a name: orderId, order_id and order-id all give ['order', 'id']. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** The message's words, stemmed, with where each starts. */
export function wordsOf(text: string): Array<{ word: string; at: number }> {
  return [...text.matchAll(/[A-Za-z][A-Za-z0-9']*/g)].map((m) => ({
    word: stem(m[0].replace(/'.*$/, '')),
    at: m.index,
  }));
}

const isQuotedKind = (text: string): ValueKind | undefined =>
  PATTERNS.find(
    ([kind, re]) => kind !== 'currency' && kind !== 'name' && new RegExp(`^(?:${re.source})$`).test(text),
  )?.[0];

/** Every value in the message, in the order written. A quoted string that is one email, id or number counts as that. */
export function messageValues(message: string): MessageValue[] {
  const found: Array<{ kind: ValueKind; text: string; at: number; end: number }> = [];
  let rest = message;
  const mask = (at: number, end: number) => (rest = rest.slice(0, at) + ' '.repeat(end - at) + rest.slice(end));
  for (const m of message.matchAll(/"([^"]*)"|“([^”]*)”|(?<![\w])'([^']+)'(?![\w])/g)) {
    const text = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (text) found.push({ kind: isQuotedKind(text) ?? 'quoted', text, at: m.index, end: m.index + m[0].length });
    mask(m.index, m.index + m[0].length);
  }
  for (const [kind, re] of PATTERNS) {
    for (const m of rest.matchAll(re)) {
      if (kind === 'currency' && !CURRENCIES.has(m[0])) continue;
      found.push({ kind, text: m[0], at: m.index, end: m.index + m[0].length });
      mask(m.index, m.index + m[0].length);
    }
  }
  const words = [...rest.matchAll(/[A-Za-z][A-Za-z0-9']*/g)].map((m) => ({
    word: stem(m[0].replace(/'.*$/, '')),
    at: m.index,
    end: m.index + m[0].length,
  }));
  return found
    .sort((a, b) => a.at - b.at)
    .map(({ kind, text, at, end }) => ({
      kind,
      text,
      at,
      before: words
        .filter((w) => w.end <= at)
        .slice(-3)
        .map((w) => w.word),
      after: words
        .filter((w) => w.at >= end)
        .slice(0, 1)
        .map((w) => w.word),
    }));
}

/**
 * How well a value's neighbouring words name the property: 3 when the value itself starts with one of its words
 * (SKU-9 for sku), 2 when the word before it does ("order A-17" for orderId), 1 the word after ("2 kg" for weightKg).
 */
export function nearness(value: MessageValue, words: string[]): number {
  const own = words.filter((w) => !FILLER.has(w)).map(stem);
  const meaningful = (ws: string[]) => ws.filter((w) => !FILLER.has(w));
  if (own.some((w) => value.text.toLowerCase().startsWith(w) && /^[a-z]+[-_]?\d/i.test(value.text))) return 3;
  if (
    meaningful(value.before)
      .slice(-1)
      .some((w) => own.includes(w))
  )
    return 2;
  return meaningful(value.after)
    .slice(0, 1)
    .some((w) => own.includes(w))
    ? 1
    : 0;
}

// Words that say nothing about which tool is meant: "issue_refund" is named by "refund", not by "issue".
export const VAGUE = new Set([
  'get',
  'set',
  'do',
  'make',
  'run',
  'call',
  'issue',
  'perform',
  'execute',
  'handle',
  'process',
  'tool',
  'the',
  'a',
  'an',
  'of',
  'for',
  'and',
  'or',
  'with',
  'by',
  'from',
  'on',
  'in',
  'at',
  'to',
  'my',
  'new',
  'this',
  'that',
  'it',
  'is',
  'are',
  'be',
  'can',
  'will',
  'your',
  'you',
  'when',
  'use',
  'user',
  'given',
  'returns',
  'return',
]);

/** Lower case, with _ and - as spaces: how names are compared with what a message says. */
export const plain = (s: string) => s.toLowerCase().replace(/[_-]+/g, ' ');
/** The message says the phrase as a whole word (or words). */
export const mentions = (message: string, phrase: string) =>
  new RegExp(`(?:^|[^a-z0-9_])${plain(phrase).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:$|[^a-z0-9_])`).test(
    plain(message),
  );
