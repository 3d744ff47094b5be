// The words of a decision, once: the verbs a person sends (`Decision.decision` on the wire), the outcomes a run
// reports for them (`AppliedDecision.outcome`, `AuditEntry.decision`), the one function from a verb to its
// outcome, and the one table of what each outcome means (ends a wait, approves, tone). The wire spells them exactly
// so (version 1); everything else imports them from here.
import { z } from 'zod';
import { shareAcrossRuns } from './sharedModules';

/** What a person (or a client for them) sends about a pending call: the verbs of the `decide` update. */
export const DECISION_VERBS = ['approve', 'reject', 'input', 'result', 'extend', 'retry', 'done', 'failed'] as const;
export type DecisionVerb = (typeof DECISION_VERBS)[number];

/** The verbs a yes or no is said with: the ones an always-rule, a grant or a signed token carries. */
export type YesNo = Extract<DecisionVerb, 'approve' | 'reject'>;

/** `Decision.decision` on the wire, with its one-line refusal. */
export const decisionVerbSchema = shareAcrossRuns('decisionWords.decisionVerbSchema', () =>
  z.enum(DECISION_VERBS, {
    error: 'must be "approve", "reject", "input", "result", "extend", "retry", "done" or "failed"',
  }),
);

/** A person's answer to an `uncertain` call: run it again, it ran (with the result the model gets), or it failed. */
export const UNCERTAIN_ANSWERS = ['retry', 'done', 'failed'] as const;
export type UncertainAnswer = (typeof UNCERTAIN_ANSWERS)[number];

/**
 * What a decision came to, as `AppliedDecision.outcome` and the audit say it. `forwarded`: the call lives in a sub-run;
 * the decision was passed on to it (its audit records the outcome). `approval_counted`: one approval of a call that
 * needs a quorum; it waits for more. `extended`: it may wait longer. `granted`: a standing grant approved it (the
 * approver is the grant's author). `auto_…`: the run's code decided (an always-rule, the tool's onApproval).
 */
export const DECISION_OUTCOMES = [
  'approved',
  'rejected',
  'auto_approved',
  'auto_rejected',
  'granted',
  'input_provided',
  'result_provided',
  'forwarded',
  'approval_counted',
  'extended',
  ...UNCERTAIN_ANSWERS,
] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/**
 * What the audit records besides decisions' outcomes. `expired`: the call's time ran out and it did not run (onTimeout
 * 'reject' or 'fail'); `timed_out`: it ran out with onTimeout 'approve' and it ran; `cancelled`: the run ended (failed,
 * timed out, cancelled) while it waited; `ignored`: a decision that changed nothing; `audited`: an audit-only call ran;
 * `uncertain`: a tool that is not idempotent may or may not have run (a person's answer follows: `retry`, `done`,
 * `failed`, or `rejected`); `stale`: an approved call's target changed before it ran (its fingerprint differs);
 * `tripped`: an agent guardrail's tripwire ended the run (onTripwire 'fail'; the entry names the guardrail);
 * `outcome`: what the caller of an ask-only call (a coding agent's hook, the approvals API) reported it did.
 */
export const AUDIT_DECISIONS = [
  ...DECISION_OUTCOMES,
  'timed_out',
  'expired',
  'cancelled',
  'ignored',
  'audited',
  'uncertain',
  'stale',
  'tripped',
  'outcome',
] as const;
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

/** How an outcome is shown: good (green), bad (red), neutral (dim), waiting (yellow: a person is asked). */
export type Tone = 'good' | 'bad' | 'neutral' | 'waiting';

/** What one audit outcome means: every reader (records, metrics, traces, the report, the CLI) asks this table. */
export interface OutcomeMeaning {
  /**
   * `call`: it ends the call's wait and settles the call; it is what the call came to (its record's status).
   * `wait`: it ends an uncertain call's wait, and the call's outcome stays what it was (`retry`, `done`, `failed`).
   * false: the call still waits, waits again (`stale`, `uncertain`), or never waited (`audited`, `tripped`).
   */
  ends: 'call' | 'wait' | false;
  /** true: the call ran on this word (an approval rate counts it); false: a no; null: no yes or no (input, a step). */
  approves: boolean | null;
  tone: Tone;
}

/**
 * The one table of outcomes. A new word in AUDIT_DECISIONS fails to compile here until it is classified. Its order
 * is the order settled calls are listed in (`--status` choices, the report's CSV columns).
 */
export const OUTCOME_MEANINGS = {
  approved: { ends: 'call', approves: true, tone: 'good' },
  rejected: { ends: 'call', approves: false, tone: 'bad' },
  expired: { ends: 'call', approves: false, tone: 'bad' },
  cancelled: { ends: 'call', approves: false, tone: 'neutral' },
  auto_approved: { ends: 'call', approves: true, tone: 'good' },
  auto_rejected: { ends: 'call', approves: false, tone: 'bad' },
  granted: { ends: 'call', approves: true, tone: 'good' },
  timed_out: { ends: 'call', approves: true, tone: 'good' }, // onTimeout 'approve': it ran
  input_provided: { ends: 'call', approves: null, tone: 'good' },
  result_provided: { ends: 'call', approves: null, tone: 'good' },
  forwarded: { ends: false, approves: null, tone: 'neutral' }, // the sub-run's audit settles it
  approval_counted: { ends: false, approves: null, tone: 'good' }, // a quorum waits for more
  extended: { ends: false, approves: null, tone: 'neutral' },
  retry: { ends: 'wait', approves: null, tone: 'neutral' },
  done: { ends: 'wait', approves: null, tone: 'good' },
  failed: { ends: 'wait', approves: null, tone: 'bad' },
  ignored: { ends: false, approves: null, tone: 'neutral' },
  audited: { ends: false, approves: null, tone: 'neutral' },
  uncertain: { ends: false, approves: null, tone: 'waiting' },
  stale: { ends: false, approves: null, tone: 'bad' },
  tripped: { ends: false, approves: null, tone: 'bad' },
  outcome: { ends: false, approves: null, tone: 'neutral' }, // after the call: what its caller did
} as const satisfies Record<AuditDecision, OutcomeMeaning>;

type Meanings = typeof OUTCOME_MEANINGS;
const meaningOf: Readonly<Record<AuditDecision, OutcomeMeaning>> = OUTCOME_MEANINGS;
const WORDS = Object.keys(OUTCOME_MEANINGS) as AuditDecision[];

/** The outcomes that settle a call: what a call's approval record says it came to. */
export type CallEnd = { [W in AuditDecision]: Meanings[W]['ends'] extends 'call' ? W : never }[AuditDecision];
/** The settling outcomes that say yes or no: how an approval ended (an input or a result says neither). */
export type ApprovalEnd = { [W in CallEnd]: Meanings[W]['approves'] extends boolean ? W : never }[CallEnd];

/** Is `word` an audit outcome (a ledger status may also be `pending` or a review's)? */
export const isAuditDecision = (word: string): word is AuditDecision => Object.hasOwn(OUTCOME_MEANINGS, word);
/** The call no longer waits after it (settled, or its uncertain wait answered). */
export const endsWait = (word: AuditDecision): boolean => meaningOf[word].ends !== false;
export const settlesCall = (word: AuditDecision): word is CallEnd => meaningOf[word].ends === 'call';
export const endsApproval = (word: AuditDecision): word is ApprovalEnd =>
  settlesCall(word) && meaningOf[word].approves !== null;
/** The call ran on this word: what an approval rate counts as approving (a ledger status that is no outcome: no). */
export const approvesCall = (word: string): boolean => isAuditDecision(word) && meaningOf[word].approves === true;
export const toneOf = (word: AuditDecision): Tone => meaningOf[word].tone;

/** The settling outcomes in the table's order. */
export const CALL_ENDS: readonly CallEnd[] = WORDS.filter(settlesCall);

/**
 * `list` as it is, checked to name every word of `W`: a list kept in an order of its own (documented metric labels)
 * fails to compile until a word the table adds to `W` is in it.
 */
export const listingEvery =
  <W extends string>() =>
  <const L extends readonly W[]>(
    list: L & ([Exclude<W, L[number]>] extends [never] ? unknown : { missing: Exclude<W, L[number]> }),
  ): L =>
    list;

/** Who decided: a person (a signal, the update), the run's code (an always-rule, the tool's onApproval), a grant. */
export type DecidedBy = 'person' | 'code' | 'grant';

/** What besides the verb says what a decision came to. */
export interface OutcomeTerms {
  /** Default: a person. */
  by?: DecidedBy;
  /** The call may or may not have run (kind `uncertain`): an approve is a retry, a result says done or failed. */
  uncertain?: boolean;
  /** The decision carries an error (a `result` that says the call failed). */
  withError?: boolean;
  /** An approval that counts toward a quorum still short of it. */
  counted?: boolean;
  /** The call lives in a sub-run: the decision was passed on to it. */
  forwarded?: boolean;
}

/** What a decision says about an uncertain call: `approve` is a retry, `result` is done or failed; `reject` is none. */
export function uncertainAnswer(verb: DecisionVerb, withError: boolean): UncertainAnswer | undefined {
  if (verb === 'retry' || verb === 'approve') return 'retry';
  if (verb === 'done' || verb === 'failed') return verb;
  if (verb === 'result') return withError ? 'failed' : 'done';
  return undefined;
}

/** The outcome a verb comes to: `approve` → `approved` (`auto_approved` by code, `granted` by a grant), and so on. */
export function outcomeOf(verb: DecisionVerb, terms: OutcomeTerms = {}): DecisionOutcome {
  if (terms.forwarded) return 'forwarded';
  if (verb === 'extend') return 'extended';
  if (verb === 'approve' && terms.counted) return 'approval_counted';
  const answer = terms.uncertain ? uncertainAnswer(verb, terms.withError ?? false) : undefined;
  if (answer) return answer;
  if (terms.by === 'grant') return 'granted';
  const byCode = terms.by === 'code';
  switch (verb) {
    case 'approve':
      return byCode ? 'auto_approved' : 'approved';
    case 'reject':
      return byCode ? 'auto_rejected' : 'rejected';
    case 'input':
      return 'input_provided';
    case 'result':
      return 'result_provided';
    default:
      return verb; // retry, done, failed: they answer uncertain calls only
  }
}
