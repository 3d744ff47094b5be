// What core's state rules throw when they refuse a change (a grant, a review, a decision): the message says why, for
// the person who asked, and the failure type is what the refusal travels as once a workflow turns it into an
// ApplicationFailure. GrantError, ReviewError and DecisionError extend it; callers keep matching on those.
import type { FailureType } from '../contract/failureTypes';

export abstract class Refusal extends Error {
  /** The failure type a workflow refuses the request with (contract/failureTypes.ts). */
  abstract readonly failureType: FailureType;
}
