// The demo weather assistant: temperature readings for Oakland need approval (a predicate), weather never does.
import { z } from 'zod';
import { defineAgent } from '../defineAgent';
import { defineTool } from '../defineTool';

const city = z.object({ city: z.string().describe('City name, e.g. Oakland') });

export const getTemperature = defineTool({
  name: 'get_temperature',
  description: 'Get the current temperature for a city.',
  parameters: city,
  needsApproval: (_ctx, { city }) => city.trim().toLowerCase() === 'oakland',
  execute: ({ city }) => `The temperature in ${city} is 20° Celsius`,
});

export const getWeather = defineTool({
  name: 'get_weather',
  description: 'Get the current weather for a city.',
  parameters: city,
  execute: ({ city }) => `The weather in ${city} is sunny`,
});

export const weatherAssistant = defineAgent({
  name: 'weather-assistant',
  version: '1',
  instructions: 'You answer questions about the weather and temperatures in cities.',
  tools: [getTemperature, getWeather],
});
