// How the adapters read another SDK's objects: by shape, never by class (they may come from another copy or version
// of the SDK, where `instanceof` would say no). One set of guards for every mapping file of every adapter.

/** An SDK object read field by field. */
export type Obj = Record<string, unknown>;
/** Any function the SDK or the team left on an object. */
export type Fn = (...args: never[]) => unknown;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;
export const isFn = (v: unknown): v is Fn => typeof v === 'function';
