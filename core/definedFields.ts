// An object without the keys whose value is undefined: an optional field left unset stays absent once the object
// is spread, stored in history or compared, so defaults downstream apply. Pure.
export function definedFields<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
