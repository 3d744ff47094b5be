// One way a client makes a decision: the CLI, RunState, live sessions and the inbox all hand a person's words to
// buildDecision, which checks them once (the approver by the one name rule, the rest by the contract's schema), signs
// the yes or no when a key is given (the approver is then the key's), and returns the contract's `Decision` as the
// `decide` update takes it. The run checks it again, as it checks whatever arrives; nothing here is trusted there.
// A refusal reads as the run's own would (`invalid decide request: …`), whichever side finds it.
import { type Decision, decisionSchema } from '../../contract/messages';
import { approverNameProblem } from '../../contract/approverName';
import { describeZodError } from '../../contract/zodErrors';
import type { YesNo } from '../../contract/decisionWords';
import { type ApproverPrivateKey, readPrivateKey, withToken } from '../signing/decisionSigning';
import { CountersignError } from '../errors';

/** Sign the decision: with this key (or its JWK file), over this run and the call exactly as the run shows it. */
export interface DecisionSigning {
  key: ApproverPrivateKey | string;
  workflowId: string;
  call: { arguments: string; fingerprint?: string };
  /** How long the token holds (default 15 minutes). */
  ttlSeconds?: number;
}

export interface DecisionBuilding {
  sign?: DecisionSigning;
  /** What a refusal is thrown as (default: CountersignError), e.g. RunState's RunStateError. */
  refuse?: (message: string) => Error;
}

const signable = (d: Decision): d is Decision & { decision: YesNo } =>
  d.decision === 'approve' || d.decision === 'reject';

/**
 * The decision, checked and (with `sign`) signed, in the contract's form; a one-line refusal otherwise. Signed, its
 * approver is the key's, whoever was named.
 */
export function buildDecision(words: Decision, options: DecisionBuilding = {}): Decision {
  const refuse = options.refuse ?? ((message: string) => new CountersignError(message));
  const { sign } = options;
  const key = sign && (typeof sign.key === 'string' ? readPrivateKey(sign.key) : sign.key);
  const approver = key ? key.kid : words.approver;
  const nameProblem = approver === undefined ? undefined : approverNameProblem(approver);
  if (nameProblem) throw refuse(nameProblem);
  if (key && !signable(words))
    throw refuse(`only an approve or reject decision is signed, not "${words.decision}": send it without a key`);
  const d = key && sign && signable(words) ? withToken(key, sign.workflowId, words, sign.call, sign.ttlSeconds) : words;
  const parsed = decisionSchema.safeParse(d);
  if (!parsed.success) throw refuse(`invalid decide request: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
