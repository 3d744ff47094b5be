// One person, one name. Every intake (CLI --as, signals, the decide update, the inbox, links, Slack, decision
// tokens' sub, grants, reviews) checks an approver's name with approverNameProblem and compares names only through
// canonicalApprover, so "Ann", " ann" and an NFD spelling are the same person to quorum, excludeRequester, approver
// lists, grants and reviews alike. The audit keeps the spelling as written; only comparisons use the canonical form.
// Where a name enters (serve tokens, the Slack mapping, approver keys, a proxy's header or assertion, --as), it is
// also checked against the names already known there: one that could pass for another's (аnn in Cyrillic, ａｎｎ
// beside ann; contract/nameSkeleton.ts) or mixes scripts is refused. A run checks only the written rule: it cannot
// read the configuration, and its histories must replay.
import { mixesScripts, nameSkeleton, scriptsOf } from './nameSkeleton';

export const MAX_APPROVER_NAME = 200;

// Control characters (C0, DEL, C1) and format characters (bidirectional overrides, zero-width joiners, BOM): a name
// holding one could look like another person's on a screen.
const HIDDEN = /[\p{Cc}\p{Cf}]/u;

/** `text` with the characters `which` matches spelled out (\u202e), so a refusal cannot reorder, erase or pass for text. */
const spelled = (text: string, which: RegExp): string =>
  text.replace(which, (c) => {
    const hex = c.codePointAt(0)!.toString(16);
    return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
  });
const shown = (name: string): string => spelled(JSON.stringify(name), /[\p{Cc}\p{Cf}]/gu);
/** Quoted, then spelled beyond ASCII, so two look-alikes read apart: "аnn" (\u0430nn). */
const apart = (name: string): string => {
  const quoted = shown(name);
  const ascii = spelled(quoted, /[^\x20-\x7e]/gu);
  return ascii === quoted ? quoted : `${quoted} (${ascii.slice(1, -1)})`;
};

/** What a name is checked against where it enters: the names already known there, and whether scripts may mix. */
export interface NamesKnown {
  /** Approvers known at this entry (configured tokens, the Slack mapping, keys, the call's approvers and approvals). */
  known?: Iterable<string>;
  /** COUNTERSIGN_MIXED_SCRIPT_NAMES: names may mix scripts (the look-alike check still applies). */
  mixedScripts?: boolean;
}

/**
 * Why this is not an approver's name (undefined: it is one). One line, naming the rule. With `entry`, also a name
 * that could pass for a known approver's (same skeleton, another person), and, unless allowed, one mixing scripts.
 */
export function approverNameProblem(name: string, entry?: NamesKnown): string | undefined {
  const trimmed = name.normalize('NFC').trim();
  if (!trimmed) return 'an approver name must not be empty';
  if (HIDDEN.test(trimmed))
    return `approver name ${shown(trimmed.slice(0, 40))} holds a control or invisible formatting character: use plain text`;
  if (trimmed.length > MAX_APPROVER_NAME)
    return `an approver name is at most ${MAX_APPROVER_NAME} characters (this one has ${trimmed.length})`;
  if (!entry) return undefined;
  const skeleton = nameSkeleton(trimmed);
  for (const other of entry.known ?? [])
    if (!sameApprover(other, trimmed) && nameSkeleton(other) === skeleton)
      return `approver name ${apart(trimmed)} could pass for ${apart(other.normalize('NFC').trim())}, another approver's: use a name that cannot be mistaken for it (or the same spelling, if it is that person)`;
  if (!entry.mixedScripts && mixesScripts(trimmed))
    return `approver name ${apart(trimmed)} mixes scripts (${scriptsOf(trimmed).join(', ')}), as names made to pass for others do: write it in one script, or set COUNTERSIGN_MIXED_SCRIPT_NAMES=true`;
  return undefined;
}

/** Each of `names` checked against the others before it (a configured list: tokens, a mapping, a key set). */
export function namesProblem(names: readonly string[], entry: NamesKnown = {}): string | undefined {
  for (const [i, name] of names.entries()) {
    const problem = approverNameProblem(name, { ...entry, known: [...(entry.known ?? []), ...names.slice(0, i)] });
    if (problem) return problem;
  }
  return undefined;
}

/** The form names are compared in: Unicode NFC, surrounding whitespace removed, lower case. */
export function canonicalApprover(name: string): string {
  return name.normalize('NFC').trim().toLowerCase().normalize('NFC');
}

/** Whether two spellings name the same approver. */
export const sameApprover = (a: string, b: string): boolean => canonicalApprover(a) === canonicalApprover(b);

/**
 * How a check compares and admits names. `canonicalNames` is the rule; the run's decision handlers hand the checks a
 * rule that falls back to names as written for histories recorded before it (workflows/approverNames.ts).
 */
export interface NameRule {
  same(a: string, b: string): boolean;
  problem(name: string): string | undefined;
}

export const canonicalNames: NameRule = { same: sameApprover, problem: approverNameProblem };

/** Whether `name` is one of `names` (an approvers list, who approved so far) under `rule`. */
export const amongApprovers = (names: readonly string[], name: string, rule: NameRule = canonicalNames): boolean =>
  names.some((n) => rule.same(n, name));
