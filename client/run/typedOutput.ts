// result.finalOutputAs(schema): a run's final output as a typed value (the Agents SDK's final_output_as).
import type { z } from 'zod';
import { describeZodError } from '../../contract/zodErrors';
import { OutputTypeError } from '../errors';

export function readFinalOutput<T>(workflowId: string, finalOutput: string | undefined, schema: z.ZodType<T>): T {
  if (finalOutput === undefined)
    throw new OutputTypeError(`run ${workflowId} has no final output yet: read it once the run has completed`);
  let value: unknown;
  try {
    value = JSON.parse(finalOutput);
  } catch {
    value = finalOutput; // a plain-text answer: a z.string() schema reads it as is
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new OutputTypeError(
      `run ${workflowId}: the final output does not match the schema: ${describeZodError(parsed.error)}`,
    );
  return parsed.data;
}
