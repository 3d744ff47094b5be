// JSON-object options of the CLI (--values, --where, --model-settings): parsed, or refused in one line with an example.
import { CountersignError } from '../client/errors';

export function jsonObjectOption(
  flag: string,
  text: string,
  example: string,
  notAnObject = `${flag} must be a JSON object, e.g. ${example}`,
): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CountersignError(`${flag} must be JSON, e.g. ${example}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CountersignError(notAnObject);
  return value as Record<string, unknown>;
}
