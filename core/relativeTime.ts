// Times as a person reads them next to a decision: "3 min ago", "in 2 h". Pure: the caller says what now is.

const UNITS = [
  { below: 60, seconds: 1, word: 's', short: 's' },
  { below: 3600, seconds: 60, word: ' min', short: 'm' },
  { below: 86400, seconds: 3600, word: ' h', short: 'h' },
  { below: Infinity, seconds: 86400, word: ' d', short: 'd' },
] as const;

/** `iso` relative to `now` (ms): "just now", "3 min ago", "in 2 h", "5 d ago"; compact (tables): "42s ago", "3m ago", "in 2h". */
export function relativeTime(iso: string, now: number, o: { compact?: boolean } = {}): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return iso;
  const n = Math.abs(seconds);
  if (!o.compact && n < 60) return seconds >= 0 ? 'just now' : 'in under a minute';
  const unit = UNITS.find((u) => n < u.below)!;
  const span = `${Math.floor(n / unit.seconds)}${o.compact ? unit.short : unit.word}`;
  return seconds >= 0 ? `${span} ago` : `in ${span}`;
}

/** An absolute time to the minute, for text read later (a message, the Web UI): "2026-11-22 10:31 UTC". */
export const utcMinute = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
