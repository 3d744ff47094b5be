// The one way a tool's code is asked a yes or no when a call is planned: its needsApproval predicate, its onApproval,
// its input guardrails, and through them an adapter's SDK predicates (countersign/openai-agents, countersign/ai-sdk).
// Each runs within the worker's limit (COUNTERSIGN_PREDICATE_TIMEOUT), and whatever is not an answer it may give — a
// throw, a rejected promise, no answer in time, `'yes'`, `1`, `{}`, `null` — fails closed: a person decides, and the
// call carries one line saying why (`askedBecause`, in the pending call and its audit entries).
import { log } from '@temporalio/activity';
import { shorten } from '../core/approvals/callSummary';

/** What every reason ends with: the call goes before a person. */
export const PERSON_DECIDES = 'a person decides';

/** What is asked, and what answers it may give (`expected` names them for the reason: "a boolean"). */
export interface Predicate {
  /** How the reason names it: `needsApproval`, `onApproval`, `tool input guardrail no_pii`. */
  what: string;
  accepts: (answer: unknown) => boolean;
  expected: string;
  /** The worker's COUNTERSIGN_PREDICATE_TIMEOUT, in ms. */
  limitMs: number;
  /** What failing closed does, ending the reason: PERSON_DECIDES unless said (a tool's output guardrail withholds). */
  outcome?: string;
}

/** Its answer, one it may give; or why a person decides instead (one line). */
export type Asked = { answer: unknown } | { why: string };

/**
 * Thrown by an adapter's wrapper when the SDK predicate it wraps answered what that SDK does not allow: its message is
 * the reason as it stands (askPredicate does not wrap it in "threw").
 */
export class PersonDecides extends Error {
  override name = 'PersonDecides';
}

/** An answer as a reason shows it: `'yes'`, `1`, `{}`, `null`, short and on one line. */
export function shown(answer: unknown): string {
  if (typeof answer === 'string') return `'${shorten(answer, 60)}'`;
  if (typeof answer === 'function') return 'a function';
  if (typeof answer === 'bigint') return `${answer}n`;
  if (answer === null || typeof answer !== 'object') return String(answer);
  try {
    return shorten(JSON.stringify(answer), 80);
  } catch {
    return 'an object that is not JSON';
  }
}

/** The reason for an answer that is not one of `expected`. */
export const notAnAnswer = (what: string, answer: unknown, expected: string, outcome = PERSON_DECIDES): string =>
  `${what} answered ${shown(answer)}, not ${expected}: ${outcome}`;

/** Millisecond limits as people write them: 10s, 250ms. */
const limitText = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

const NO_ANSWER = Symbol('no answer in time');

/**
 * Runs `ask` within the predicate's limit and reads what it answers. Past the limit the predicate is left running (a
 * promise cannot be stopped) and its late answer is dropped: the call has gone to a person.
 */
export async function askPredicate(p: Predicate, ask: () => unknown): Promise<Asked> {
  const outcome = p.outcome ?? PERSON_DECIDES;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let answer: unknown;
  try {
    const late = new Promise<typeof NO_ANSWER>((resolve) => (timer = setTimeout(() => resolve(NO_ANSWER), p.limitMs)));
    const answered = Promise.resolve().then(ask);
    answered.catch(() => undefined); // a rejection after the limit is nobody's to handle
    answer = await Promise.race([answered, late]);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const why = err instanceof PersonDecides ? message : `${p.what} threw: ${shorten(message, 200)}: ${outcome}`;
    return warned(why);
  } finally {
    clearTimeout(timer);
  }
  if (answer === NO_ANSWER) return warned(`${p.what} did not answer within ${limitText(p.limitMs)}: ${outcome}`);
  return p.accepts(answer) ? { answer } : warned(notAnAnswer(p.what, answer, p.expected, outcome));
}

/** The worker's log says it too (outside an activity, e.g. a unit test of planning, there is no log to say it to). */
function warned(why: string): { why: string } {
  try {
    log.warn(why);
  } catch {
    // not in an activity
  }
  return { why };
}

/** An SDK predicate's answer, which must be a boolean; else a person decides (the SDKs coerce, Countersign does not). */
export function sdkBoolean(what: string, answer: unknown): boolean {
  if (typeof answer === 'boolean') return answer;
  throw new PersonDecides(notAnAnswer(what, answer, 'a boolean'));
}
