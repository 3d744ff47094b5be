// Decides the model a worker talks to: the real provider when OPENAI_API_KEY (or OPENAI_BASE_URL, for keyless
// local servers such as Ollama) is set, otherwise the scripted demo model on loopback.
import { startScriptedModel, type ScriptedModel } from '../devtools/scriptedModel';
import type { ModelSettings } from '../temporal.config';

export async function resolveModel(settings: ModelSettings): Promise<{ model: ModelSettings; scripted?: ScriptedModel }> {
  if (settings.apiKey) return { model: settings };
  if (settings.baseURL) return { model: { ...settings, apiKey: 'no-key' } };
  const port = Number(process.env.COUNTERSIGN_SCRIPTED_MODEL_PORT ?? 0);
  const scripted = await startScriptedModel({ port });
  return { model: { ...settings, baseURL: scripted.baseURL, apiKey: 'scripted-demo' }, scripted };
}
