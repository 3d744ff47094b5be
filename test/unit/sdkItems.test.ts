// Countersign's conversation items as the Agents SDK's protocol items and back (adapters/openaiAgents/sdkItems.ts),
// through the SDK's own removeAllTools filter too.
import { fromSdkItems, toSdkItems } from '../../adapters/openaiAgents/sdkItems';
import type { ConversationItem } from '../../contract/items';

test("conversation items go to the SDK's shapes and back unchanged", () => {
  const items: ConversationItem[] = [
    { type: 'message', role: 'system', content: 'be brief' },
    { type: 'message', role: 'user', content: 'hi' },
    { type: 'function_call', callId: 'c1', name: 'pay', arguments: '{"amount":5}' },
    { type: 'function_call_output', callId: 'c1', output: 'paid' },
    { type: 'message', role: 'assistant', content: 'done' },
    { type: 'mcp_approval_request', id: 'm1', serverLabel: 'git', name: 'push', arguments: '{}' },
    { type: 'provider_item', item: { type: 'reasoning', id: 'r1' } },
  ];
  const sdkItems = toSdkItems(items);
  expect(sdkItems[3]).toEqual({
    type: 'function_call_result',
    callId: 'c1',
    name: 'pay',
    status: 'completed',
    output: { type: 'text', text: 'paid' },
  });
  expect(sdkItems[4]).toMatchObject({ role: 'assistant', content: [{ type: 'output_text', text: 'done' }] });
  expect(fromSdkItems(sdkItems)).toEqual(items);
  // The SDK's removeAllTools leaves the messages and what it does not know.
  const { removeAllTools } = require('@openai/agents-core/extensions');
  const filtered = removeAllTools({ inputHistory: sdkItems, preHandoffItems: [], newItems: [] });
  expect(fromSdkItems(filtered.inputHistory).map((i: ConversationItem) => i.type)).toEqual([
    'message',
    'message',
    'message',
    'mcp_approval_request',
    'provider_item',
  ]);
  // Run items (with rawItem) and developer messages read back too.
  expect(
    fromSdkItems([{ rawItem: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'x' }] } }]),
  ).toEqual([{ type: 'message', role: 'system', content: 'x' }]);
});
