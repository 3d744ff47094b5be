// Loaded once per workflow thread and shared by every run on it (the bundler's `preloadModules`), instead of being
// evaluated again for each run: zod alone would otherwise cost every cached run about a megabyte.
// The SDK deep-freezes what is loaded here, so zod's lazily filled caches are filled first.
import { z } from 'zod';

z.object({ warm: z.string() }).safeParse({ warm: 'up' });
