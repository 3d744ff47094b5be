// The `openai` package, loaded by the first model call rather than by every worker start: its modules are about
// 0.1 s of a worker's launch → polling, and a worker takes workflow tasks before it needs them.
import type OpenAI from 'openai';

export const openai = (): typeof OpenAI => (require('openai') as typeof import('openai')).default;
