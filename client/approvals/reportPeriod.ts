// The times the approvals readers take from people: `--since` / `--until` (a duration back from now, or an ISO date),
// a report's `--month YYYY-MM`, and prune's `--older-than 7y`. Each bad value is refused in one line naming the flag
// and an example, before anything is read or deleted.
import { durationMs } from '../../contract/approvalPolicy';
import { CountersignError } from '../errors';

const DURATION_HINT = 'a duration such as 30m, 24h or 7d';
// A day, or a full time with its zone: a time without a zone would mean the reader's local time.
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

const positiveMs = (text: string): number | undefined => {
  try {
    const ms = durationMs(text);
    return Number.isFinite(ms) && ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
};

/** A calendar-true ISO date (2026-02-30 is not one), as an ISO time; undefined for anything else. */
function isoDate(text: string): string | undefined {
  if (!ISO_DATE.test(text)) return undefined;
  const at = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(at)) return undefined;
  const iso = new Date(at).toISOString();
  return text.length === 10 && iso.slice(0, 10) !== text ? undefined : iso;
}

/** The ISO time `since` (a duration) before `now`; a one-line error for anything that is not a positive duration. */
export function sinceIso(since: string, now = Date.now()): string {
  const ms = positiveMs(since);
  if (ms === undefined) throw new CountersignError(`--since must be ${DURATION_HINT}, got ${JSON.stringify(since)}`);
  return new Date(now - ms).toISOString();
}

/**
 * A `--since` or `--until` value as an ISO time: a duration counts back from `now` (`7d`), a date is taken as
 * written (`2026-11-01` is that day's start in UTC; a full time needs its zone).
 */
export function timeIso(flag: '--since' | '--until', value: string, now = Date.now()): string {
  const ms = positiveMs(value);
  if (ms !== undefined) return new Date(now - ms).toISOString();
  const iso = isoDate(value);
  if (iso) return iso;
  throw new CountersignError(
    `${flag} must be ${DURATION_HINT}, got ${JSON.stringify(value)} (or give an ISO date such as 2026-11-01 or 2026-11-01T09:00:00Z)`,
  );
}

/** `--month 2026-11`: from its first instant (UTC) to the next month's, `until` exclusive. */
export function monthRange(month: string): { sinceIso: string; untilIso: string } {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  const [year, mon] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(mon >= 1 && mon <= 12 && year >= 1970))
    throw new CountersignError(`--month must be a month such as 2026-11 (YYYY-MM), got ${JSON.stringify(month)}`);
  return {
    sinceIso: new Date(Date.UTC(year, mon - 1, 1)).toISOString(),
    untilIso: new Date(Date.UTC(year, mon, 1)).toISOString(),
  };
}

/** The period a report covers: a month, or since/until (either may be left open); the month excludes the others. */
export function reportPeriod(
  o: { month?: string; since?: string; until?: string },
  now = Date.now(),
): { sinceIso?: string; untilIso?: string } {
  if (o.month !== undefined && (o.since !== undefined || o.until !== undefined))
    throw new CountersignError('give either --month or --since/--until, not both');
  if (o.month !== undefined) return monthRange(o.month);
  const sinceAt = o.since === undefined ? undefined : timeIso('--since', o.since, now);
  const untilAt = o.until === undefined ? undefined : timeIso('--until', o.until, now);
  if (sinceAt && untilAt && sinceAt >= untilAt)
    throw new CountersignError(`--since (${sinceAt}) must be before --until (${untilAt})`);
  return { ...(sinceAt ? { sinceIso: sinceAt } : {}), ...(untilAt ? { untilIso: untilAt } : {}) };
}

const DAY_MS = 86_400_000;

/**
 * `--older-than 7y`: the ISO time before which records go. Years and months are calendar ones (7y before
 * 2026-11-26 is 2019-11-26); less than a day is refused, so a typo cannot empty a ledger that is still being written.
 */
export function olderThanIso(value: string, now = Date.now()): string {
  const m = /^(\d+)(y|mo|d|h)$/.exec(value);
  if (!m)
    throw new CountersignError(
      `--older-than must be a whole number of years, months, days or hours such as 7y, 18mo, 90d or 36h, got ${JSON.stringify(value)}`,
    );
  const [n, unit] = [Number(m[1]), m[2] as 'y' | 'mo' | 'd' | 'h'];
  const at = new Date(now);
  if (unit === 'y') at.setUTCFullYear(at.getUTCFullYear() - n);
  else if (unit === 'mo') at.setUTCMonth(at.getUTCMonth() - n);
  else at.setTime(now - n * (unit === 'd' ? DAY_MS : 3_600_000));
  if (now - at.getTime() < DAY_MS)
    throw new CountersignError(
      `--older-than must be at least 1d, got ${JSON.stringify(value)}: prune keeps the last day`,
    );
  return at.toISOString();
}
