// countersign/ai-sdk: AI SDK (`ai` 7) tools, with needsApproval and toolApproval, in Countersign agents.
export { fromAiSdkTools, type FromAiSdkToolsOptions } from './fromAiSdkTools';
export { UnmappableToolError } from './aiSdkRefusal';
