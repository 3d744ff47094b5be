// countersign/openai-agents: run existing `@openai/agents` agents durably under Countersign, unchanged.
export { fromOpenAIAgents, type FromOpenAIAgentsOptions, type OpenAIAgentLike } from './fromOpenAIAgents';
export { UnmappableAgentError } from './unmappable';
