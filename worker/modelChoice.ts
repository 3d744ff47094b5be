// Decides the model a worker talks to: the real provider when OPENAI_API_KEY (or OPENAI_BASE_URL, for keyless
// local servers such as Ollama) is set, otherwise the scripted demo model on loopback. The demo model is a
// development tool: it is loaded only in that last case, by a path resolved at run time, so a worker with a model
// configured never loads it (test/unit/productionGraph.test.ts checks both the imports and the loaded modules).
import { join } from 'node:path';
import type { ModelEndpoint } from '../temporal.config';

/** What the worker needs of a started demo model (devtools/scriptedModel.ts). */
export interface DemoModel {
  baseURL: string;
  close(): Promise<void>;
}

const DEMO_MODEL_MODULE = join(__dirname, '..', 'devtools', 'scriptedModel');

export async function resolveModel(
  settings: ModelEndpoint,
  demoModelPort = 0,
): Promise<{ model: ModelEndpoint; scripted?: DemoModel }> {
  if (settings.apiKey) return { model: settings };
  if (settings.baseURL) return { model: { ...settings, apiKey: 'no-key' } };
  const { startScriptedModel } = require(DEMO_MODEL_MODULE) as {
    startScriptedModel(o: { port: number }): Promise<DemoModel>;
  };
  const scripted = await startScriptedModel({ port: demoModelPort });
  return { model: { ...settings, baseURL: scripted.baseURL, apiKey: 'scripted-demo' }, scripted };
}

export const scriptedModelWarning = (scripted: DemoModel) =>
  `[countersign] using the scripted demo model at ${scripted.baseURL}: scripted demo model — set OPENAI_API_KEY for a real model`;
