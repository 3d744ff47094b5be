// What core's state rules throw when they refuse a change (a grant, a review, a decision): the message says why, for
// the person who asked, and the failure type is what the refusal travels as once a workflow turns it into an
// ApplicationFailure. GrantError, ReviewError and DecisionError extend it; callers keep matching on those. The
// client's errors share CountersignError (client/errors.ts); other layers' errors (ConfigError, EncryptionKeyError,
// AgentNotFoundError, BodyTooLarge …) say a setup or input is wrong where no workflow refuses anything, and stay
// plain Errors of their own layer, which core may not import.
import type { FailureType } from '../contract/failureTypes';

export abstract class Refusal extends Error {
  /** The failure type a workflow refuses the request with (contract/failureTypes.ts). */
  abstract readonly failureType: FailureType;
}
