// Which calls a grant's `where` matches: each named argument equals its constraint (JSON equality, key order aside),
// lies in its range, or matches its `*` pattern; arguments not named are free. Pure; the grants workflow and signed
// grant tokens use it, on arguments parsed once (the grants workflow reads the update's text once per use).
import { type Where, isRange, isRecord } from '../../contract/grantMessages';

/** `*` matches any run of characters, everything else itself. Iterative (no regular expression): linear-ish, never exponential. */
export function globMatch(pattern: string, text: string): boolean {
  let [p, t, star, mark] = [0, 0, -1, 0];
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** JSON equality, key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every(
      (k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

function satisfies(c: unknown, value: unknown): boolean {
  if (isRange(c))
    return (
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (c.min === undefined || value >= c.min) &&
      (c.max === undefined || value <= c.max)
    );
  if (typeof c === 'string' && c.includes('*')) return typeof value === 'string' && globMatch(c, value);
  return sameJson(c, value);
}

/** A call's arguments as the grants update carries them (JSON text), read once: undefined when they are not JSON. */
export function argumentsOf(argumentsJson: string): unknown {
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return undefined;
  }
}

/**
 * Every constraint holds on the call's parsed arguments; a constrained argument that is missing fails; arguments not
 * named are free (with no constraints, any call matches, even one whose arguments are not an object).
 */
export function matchesWhere(where: Where, args: unknown): boolean {
  const names = Object.keys(where);
  if (names.length === 0) return true;
  return isRecord(args) && names.every((n) => Object.hasOwn(args, n) && satisfies(where[n], args[n]));
}
