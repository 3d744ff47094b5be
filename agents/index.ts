// Public surface of agents/: define tools and agents, register them, and the demo agents the worker serves by default.
import { emailAssistant } from './demo/emailAssistant';
import { weatherAssistant } from './demo/weatherAssistant';
import { AgentRegistry } from './registry';

export { defineAgent, type Agent, type AgentConfig, type ToolErrorInfo, type ToolErrorKind } from './defineAgent';
export { defineTool, type Tool, type ToolConfig, type ToolContext, type ToolPlanningContext } from './defineTool';
export { AgentRegistry, AgentNotFoundError } from './registry';
export { shellTool, type ShellToolOptions, type Shell, type ShellOutput } from './shellTool';
export { applyPatchTool, type ApplyPatchToolOptions, type Editor, type EditorResult } from './applyPatchTool';
export {
  webSearchTool,
  fileSearchTool,
  codeInterpreterTool,
  imageGenerationTool,
  type HostedTool,
  type WebSearchToolOptions,
  type FileSearchToolOptions,
  type CodeInterpreterToolOptions,
  type ImageGenerationToolOptions,
} from './hostedTools';
export type {
  InputGuardrail,
  OutputGuardrail,
  GuardrailFunctionOutput,
  InputGuardrailArgs,
  OutputGuardrailArgs,
  OnTripwire,
} from './agentGuardrails';
export type { ApprovalPolicy } from '../contract/approvalPolicy';
export type { ModelSettings } from '../contract/modelSettings';
export type { HandoffSpec, HandoffInputData, InstructionsContext, OnMaxTurns } from './agentConfig';
export { OUTPUT_TRIES } from '../core/run/outputType';

export const demoAgents = [emailAssistant, weatherAssistant];
export const defaultRegistry = () => new AgentRegistry(demoAgents);
