// Decides the model a worker talks to: the real provider when OPENAI_API_KEY (or OPENAI_BASE_URL, for keyless
// local servers such as Ollama) is set, otherwise the scripted demo model on loopback.
import { startScriptedModel, type ScriptedModel } from '../devtools/scriptedModel';
import type { ModelSettings } from '../temporal.config';

export async function resolveModel(settings: ModelSettings, env: NodeJS.ProcessEnv = process.env): Promise<{ model: ModelSettings; scripted?: ScriptedModel }> {
  if (settings.apiKey) return { model: settings };
  if (settings.baseURL) return { model: { ...settings, apiKey: 'no-key' } };
  const port = Number(env.COUNTERSIGN_SCRIPTED_MODEL_PORT ?? 0);
  const scripted = await startScriptedModel({ port });
  return { model: { ...settings, baseURL: scripted.baseURL, apiKey: 'scripted-demo' }, scripted };
}

export const scriptedModelWarning = (scripted: ScriptedModel) =>
  `[countersign] using the scripted demo model at ${scripted.baseURL}: scripted demo model — set OPENAI_API_KEY for a real model`;
