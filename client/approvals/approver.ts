// Who decides when no one is named: the operating-system user (kept apart so the CLI's start stays light). And the
// name a command decides as, checked by the one name rule (contract/approverName.ts) before anything is sent.
import { userInfo } from 'node:os';
import { type NamesKnown, approverNameProblem } from '../../contract/approverName';
import { CountersignError } from '../errors';

export function defaultApprover(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The name given (`--as`), else the OS user; a name the rule refuses (empty, hidden characters, over-long; with
 * `names`, mixed scripts or a look-alike of a known approver) is refused in one line.
 */
export function decidingAs(name?: string, names?: NamesKnown): string | undefined {
  const approver = name ?? defaultApprover();
  const problem = approver === undefined ? undefined : approverNameProblem(approver, names);
  if (problem) throw new CountersignError(problem);
  return approver;
}
