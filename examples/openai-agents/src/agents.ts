// The agents and tools of the OpenAI Agents JS SDK's human-in-the-loop example (examples/agent-patterns/
// human-in-the-loop.ts in openai/openai-agents-js), as the SDK wrote them: plain `@openai/agents` objects, nothing
// from Countersign. worker.ts serves them durably; run.ts is the SDK's approval loop on Countersign's Runner.
import { z } from 'zod';
import { Agent, tool } from '@openai/agents';

const getWeatherTool = tool({
  name: 'get_weather',
  description: 'Get weather conditions for one city. The result does not include temperature.',
  parameters: z.object({
    city: z.string().describe('City whose weather conditions to retrieve.'),
  }),
  execute: async ({ city }) => {
    return `The weather in ${city} is sunny`;
  },
});

// The specialist, offered to the main agent as a tool below.
const weatherAgent = new Agent({
  name: 'Weather agent',
  instructions:
    'Use the available tool to report weather conditions for every requested city. Report conditions only, without temperatures.',
  handoffDescription: 'Handles weather-related queries',
  tools: [getWeatherTool],
});

const getTemperatureTool = tool({
  name: 'get_temperature',
  description: 'Get the current temperature for one city. Call separately for each requested city.',
  parameters: z.object({
    city: z.string().describe('City whose current temperature to retrieve.'),
  }),
  // Only Oakland's temperature waits for a person.
  needsApproval: async (_ctx, { city }) => city.includes('Oakland'),
  execute: async ({ city }) => {
    return `The temperature in ${city} is 20° Celsius`;
  },
});

// The agent people talk to: it calls the weather agent as a tool.
export const agent = new Agent({
  name: 'Basic test agent',
  instructions:
    'Use the available tools to answer weather questions. Retrieve every requested kind of information for every requested city before answering.',
  tools: [
    getTemperatureTool,
    weatherAgent.asTool({
      toolName: 'ask_weather_agent',
      toolDescription: 'Get weather conditions for one or more locations. This tool does not return temperatures.',
      // An approval on the agent-as-tool itself: asked whenever the input mentions San Francisco.
      needsApproval: async (_ctx, { input }) => input.includes('San Francisco'),
    }),
  ],
});
