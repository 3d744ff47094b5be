// Shared by every run on a workflow thread instead of being built again for each one. The worker preloads the whole
// workflow graph (worker/workflowBundle.ts): its modules are evaluated once per thread, so each run starts, replays and
// stays cached without instantiating them again. The SDK deep-freezes what preloaded modules export, and zod fills
// members in lazily on first use, which a frozen schema refuses; so an exported schema is a stand-in whose target is
// built at first use and kept here, in a Map the freeze does not reach.
import { z } from 'zod';

z.object({ warm: z.string() }).safeParse({ warm: 'up' });

const built = new Map<string, unknown>();

function buildOnce<T>(key: string, build: () => T): T {
  if (!built.has(key)) built.set(key, build());
  return built.get(key) as T;
}

/**
 * The value `build` returns, built by the first run that uses it and shared by every later one. Only for values that
 * hold no per-run state (zod schemas are pure validators; the lazy members they fill are memos). What is returned
 * forwards every read, call and `in` to that value, so freezing it freezes only an empty stand-in.
 */
export function shareAcrossRuns<T extends object>(key: string, build: () => T): T {
  let shared: object | undefined; // the Map holds it for every stand-in of this key; this skips the lookup
  const target = () => (shared ??= buildOnce(key, build));
  return new Proxy(
    {},
    {
      get: (_, prop) => Reflect.get(target(), prop),
      set: (_, prop, value) => Reflect.set(target(), prop, value),
      has: (_, prop) => Reflect.has(target(), prop),
    },
  ) as T;
}
