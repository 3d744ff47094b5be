// One person, one name. Every intake (CLI --as, signals, the decide update, the inbox, links, Slack, decision
// tokens' sub, grants, reviews) checks an approver's name with approverNameProblem and compares names only through
// canonicalApprover, so "Ann", " ann" and an NFD spelling are the same person to quorum, excludeRequester, approver
// lists, grants and reviews alike. The audit keeps the spelling as written; only comparisons use the canonical form.
export const MAX_APPROVER_NAME = 200;

// Control characters (C0, DEL, C1) and format characters (bidirectional overrides, zero-width joiners, BOM): a name
// holding one could look like another person's on a screen.
const HIDDEN = /[\p{Cc}\p{Cf}]/u;

/** The name quoted with its hidden characters spelled out (\u202e), so the refusal itself cannot reorder or erase text. */
const shown = (name: string): string =>
  JSON.stringify(name).replace(/[\p{Cc}\p{Cf}]/gu, (c) => {
    const hex = c.codePointAt(0)!.toString(16);
    return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
  });

/** Why this is not an approver's name (undefined: it is one). One line, naming the rule. */
export function approverNameProblem(name: string): string | undefined {
  const trimmed = name.normalize('NFC').trim();
  if (!trimmed) return 'an approver name must not be empty';
  if (HIDDEN.test(trimmed))
    return `approver name ${shown(trimmed.slice(0, 40))} holds a control or invisible formatting character: use plain text`;
  if (trimmed.length > MAX_APPROVER_NAME)
    return `an approver name is at most ${MAX_APPROVER_NAME} characters (this one has ${trimmed.length})`;
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
