// zod's errors as the one line a person reads: where, and what is wrong.
import type { z } from 'zod';

/** First zod issue as one line: `decisions.0.callId: callId must be a non-empty string`. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid payload';
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}
