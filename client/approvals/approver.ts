// Who decides when no one is named: the operating-system user (kept apart so the CLI's start stays light).
import { userInfo } from 'node:os';

export function defaultApprover(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
}
