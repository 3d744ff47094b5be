// A value as JSON data: what history, the pending list and a failure's details can hold. What JSON cannot carry is
// dropped (undefined fields, functions); a value JSON cannot encode at all (a cycle, a BigInt) becomes its text.
export function jsonData(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}
