// Shared by every run on a workflow thread instead of being built again for each one: the bundler preloads this
// module (`preloadModules`), and a run's module-level code runs for every run it starts or replays. zod and the
// wire contract's schemas would otherwise cost each cached run about a megabyte and each workflow start most of its CPU.
// The SDK deep-freezes what is preloaded, so zod's lazily filled caches are filled first.
import { z } from 'zod';

z.object({ warm: z.string() }).safeParse({ warm: 'up' });

const built = new Map<string, unknown>();

/**
 * The value `build` returns, built by the first run on this thread and handed to every later one. Only for
 * values that hold no per-run state (zod schemas are pure validators; the lazy caches they fill are memos).
 */
export function shareAcrossRuns<T>(key: string, build: () => T): T {
  if (!built.has(key)) built.set(key, build());
  return built.get(key) as T;
}
