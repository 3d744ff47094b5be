// Bad input to a command: one line, exit code 2 (cli.ts's main), and nothing read, written or deleted, since every
// value is checked before the command connects or opens anything. Other failures keep exit code 1.
import type { Command } from 'commander';
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

/**
 * `command`'s own parse errors (an unknown option, a value not among the choices, a missing one) as a UsageError: one
 * line through main(), exit 2, instead of commander's message and help (exit 1). Subcommands added after inherit it.
 */
export function usageExits(command: Command): Command {
  return command
    .showHelpAfterError(false)
    .configureOutput({ outputError: () => undefined })
    .exitOverride((err) => {
      // Help (asked for, or shown for a command without its subcommand) exits as commander does; the rest is bad input.
      if (err.exitCode !== 0 && !err.code.startsWith('commander.help'))
        throw new UsageError(err.message.replace(/^error: /, ''));
    });
}
