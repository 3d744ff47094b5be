// The paged queries' input (`conversation`, `auditLog`, `events`): `{ after?, limit? }`, checked against its schema.
// A bad one fails the query with one line; the run is untouched (a query changes nothing).
import { ApplicationFailure } from '@temporalio/workflow';
import { Failure } from '../contract/failureTypes';
import { type PageRequest, pageRequestSchema } from '../contract/messages';
import { describeZodError } from '../contract/zodErrors';

export function pageOf(raw: unknown): NonNullable<PageRequest> {
  const parsed = pageRequestSchema.safeParse(raw ?? undefined);
  if (parsed.success) return parsed.data ?? {};
  throw ApplicationFailure.create({
    type: Failure.InvalidQueryInput,
    message: `invalid page request: ${describeZodError(parsed.error)}; send {"after": <cursor, 0 or more>, "limit": <1 to 1000>}`,
    nonRetryable: true,
  });
}
