// The floors' activities. floorModel makes the same kind of request Countersign's model activity makes (the real
// `openai` client, Responses API, the scripted model), so a work-matched floor pays for the same model call.
import OpenAI from 'openai';
import { RUN_ID_HEADER } from '../activities/model/modelTurn';
import type { FloorActivities } from './floorWorkflow';

export function floorActivities(modelBaseURL: string): FloorActivities {
  const openai = new OpenAI({ baseURL: modelBaseURL, apiKey: 'bench', maxRetries: 0 });
  return {
    floorTool: async () => 'done',
    floorModel: async (runId) => {
      const r = await openai.responses.create(
        { model: 'scripted', input: 'Send the report to alice' },
        { headers: { [RUN_ID_HEADER]: runId } },
      );
      return r.output_text;
    },
  };
}
