// The builders temporal.config.ts declares its variables with (a flag, a port, a duration, a variable another reader
// parses), so that each declaration there is one line of its table. Nothing here reads the environment.
import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

/** Who reads a variable when Countersign's loader does not: shown in the table, never parsed here. */
export type ReadBy =
  | '@temporalio/envconfig'
  | 'the AWS SDK'
  | 'scripts/temporal-toolchain.mjs'
  | 'scripts/test-prerequisites.mjs'
  | 'the tests'
  | 'the jest reporter';
/** A variable another reader parses: its meaning (and the default that reader applies) for the table. */
export const readBy = (who: ReadBy, description: string, shownDefault?: string) =>
  z
    .string()
    .optional()
    .meta({ description, readBy: who, ...(shownDefault ? { shownDefault } : {}) });
/** `true` or `false`, default false. */
export const flag = (description: string) =>
  z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).default('false').describe(description);
/** A port number from `min` to 65535. */
export const port = (example: string, min = 0) =>
  z.coerce
    .number({ error: `must be a port number such as ${example}` })
    .int(`must be a port number such as ${example}`)
    .min(min, `must be ${min} to 65535`)
    .max(65535, `must be ${min} to 65535`);

/** A duration such as 30m, 6h or 7d in milliseconds (0 too, with `zero`); undefined when `text` is not one. */
export function durationMsOf(text: string, zero = false): number | undefined {
  try {
    const ms = msToNumber(text.trim() as never);
    return Number.isFinite(ms) && (ms > 0 || (zero && ms === 0)) ? ms : undefined;
  } catch {
    return undefined;
  }
}
/** A duration such as 6h, as text (durationMsOf reads it). */
export const duration = (example: string, zero = false) =>
  z
    .string()
    .refine(
      (v) => durationMsOf(v, zero) !== undefined,
      `must be a duration such as ${example}${zero ? ' (or 0)' : ''}`,
    );
