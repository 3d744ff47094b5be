// Bad input to a command: one line, exit code 2 (cli.ts's main), and nothing read, written or deleted, since every
// value is checked before the command connects or opens anything. Other failures keep exit code 1.
import { CountersignError } from '../client/errors';

export class UsageError extends CountersignError {
  override name = 'UsageError';
}

/** `check()`'s value; its one-line CountersignError as a UsageError. */
export function usage<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof CountersignError && !(err instanceof UsageError)) throw new UsageError(err.message);
    throw err;
  }
}
