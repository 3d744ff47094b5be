// The HTTP approvals API and the Claude Code hook as OpenAPI 3.1, served at /openapi.json and kept in
// docs/approvals-api.openapi.json (test/unit/approvalsOpenApi.test.ts keeps the two equal: `npx tsx scripts/openapi-doc.ts` writes it).
export const OPENAPI_PATH = '/openapi.json';

const error = {
  description: 'Bad input, in one line; nothing was booked',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
/** What every path may answer before it reads the body: who is asking (401) and from where (403). */
const refused = {
  '401': {
    ...error,
    description:
      'No bearer token, or one refused, where the gateway requires one (WWW-Authenticate says which); nothing was booked',
  },
  '403': { ...error, description: "Not addressed to the gateway's own host, or from another origin" },
};
const request = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ApprovalRequest' } } },
});

export const APPROVALS_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'Countersign gateway: approvals API and coding-agent hooks',
    version: '1',
    description:
      "Ask a person to approve something and wait for the answer. Served by `countersign gateway`. The requester is the bearer token's: a JWT's subject (--requester-jwks) or an engineer's own token (COUNTERSIGN_GATEWAY_TOKENS); with neither, the gateway is on loopback and the requester is the local user. See docs/coding-agents.md.",
  },
  paths: {
    '/v1/approval-requests': {
      post: {
        summary: 'Ask for an approval',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: true,
            description: 'Unique per request: posting again with it finds the same request (200), never a second one',
            schema: { type: 'string', minLength: 1, maxLength: 200 },
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewApprovalRequest' } } },
        },
        responses: {
          ...refused,
          '201': request('Booked: a person is asked'),
          '200': request('This Idempotency-Key already booked this request'),
          '400': error,
          '413': error,
          '415': error,
          '422': error,
        },
      },
    },
    '/v1/approval-requests/{id}': {
      get: {
        summary: "A request's status, after waiting up to `wait` seconds for a decision",
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'wait',
            in: 'query',
            description: 'Long poll: answer as soon as it is decided, or after this many seconds',
            schema: { type: 'integer', minimum: 0, maximum: 60, default: 0 },
          },
        ],
        responses: { '200': request('Its status now'), ...refused, '400': error, '404': error },
      },
    },
    '/v1/approval-requests/{id}/outcome': {
      post: {
        summary: 'Record what the caller did with an approved request (up to 15 minutes after the approval)',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/CallOutcome' } } },
        },
        responses: {
          ...refused,
          '200': {
            description: "Recorded in the request's audit and the approvals ledger",
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'outcome'],
                  properties: { id: { type: 'string' }, outcome: { $ref: '#/components/schemas/CallOutcome' } },
                },
              },
            },
          },
          '404': error,
          '409': { ...error, description: 'Not approved, not decided yet, recorded already, or too late: one line' },
          '413': error,
          '415': error,
          '422': error,
        },
      },
    },
    '/hooks/claude-code': {
      post: {
        summary:
          "Claude Code's PreToolUse hook (type http): allow, deny or ask; its PostToolUse or PostToolUseFailure: the outcome, recorded against the call",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [{ $ref: '#/components/schemas/PreToolUse' }, { $ref: '#/components/schemas/PostToolUse' }],
              },
            },
          },
        },
        responses: {
          ...refused,
          '200': {
            description: "The decision, in Claude Code's hook output ({} to a PostToolUse)",
            content: {
              'application/json': {
                schema: {
                  oneOf: [{ $ref: '#/components/schemas/PreToolUseAnswer' }, { type: 'object', maxProperties: 0 }],
                },
              },
            },
          },
          '400': error,
          '404': error,
          '413': error,
          '415': error,
        },
      },
    },
  },
  security: [{}, { bearer: [] }],
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Required when the gateway verifies callers: a JWT its authorization server signed for it, or your COUNTERSIGN_GATEWAY_TOKENS token',
      },
    },
    schemas: {
      Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
      NewApprovalRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['tool', 'arguments'],
        properties: {
          tool: {
            type: 'string',
            pattern: '^[\\w.:-]{1,128}$',
            description: 'What is to be done: the pending list shows it as the tool',
          },
          arguments: { type: 'object', description: 'What the person approves (they may edit it)' },
          summary: { type: 'string', maxLength: 500 },
          terms: {
            type: 'object',
            description:
              "Approval terms as a tool's in the gateway config (approvers, quorum, excludeRequester, approvalTimeout, …); the config's terms for the tool override them",
          },
        },
      },
      ApprovalRequest: {
        type: 'object',
        required: ['id', 'status', 'links'],
        properties: {
          id: { type: 'string' },
          tool: { type: 'string' },
          status: { enum: ['pending', 'approved', 'rejected', 'expired', 'cancelled'] },
          waitingFor: { type: 'string', description: 'pending: who decides, and where' },
          arguments: { type: 'object', description: 'approved: the arguments approved, perhaps edited' },
          approvers: { type: 'array', items: { type: 'string' } },
          approver: { type: 'string', description: 'rejected: who rejected it' },
          message: { type: 'string', description: "rejected or expired: the reviewer's words, or why" },
          links: {
            type: 'object',
            required: ['self'],
            properties: { self: { type: 'string' }, inbox: { type: 'string' } },
          },
        },
      },
      PreToolUse: {
        type: 'object',
        required: ['session_id', 'cwd', 'hook_event_name', 'tool_name', 'tool_input'],
        properties: {
          session_id: { type: 'string' },
          transcript_path: { type: 'string' },
          cwd: { type: 'string' },
          hook_event_name: { const: 'PreToolUse' },
          tool_name: { type: 'string' },
          tool_input: { type: 'object' },
          tool_use_id: { type: 'string' },
        },
      },
      PostToolUse: {
        type: 'object',
        required: ['session_id', 'hook_event_name', 'tool_name', 'tool_input'],
        properties: {
          session_id: { type: 'string' },
          hook_event_name: { enum: ['PostToolUse', 'PostToolUseFailure'] },
          tool_name: { type: 'string' },
          tool_input: { type: 'object', description: 'as its PreToolUse had it: that is how the call is found' },
          tool_response: { type: 'object', description: 'PostToolUse: an exit code in it is kept; its output is not' },
          error: {
            type: 'string',
            description: 'PostToolUseFailure: kept (2000 characters), with "Exit code N" as the exit code',
          },
          is_interrupt: { type: 'boolean' },
        },
      },
      CallOutcome: {
        type: 'object',
        additionalProperties: false,
        properties: {
          exitCode: { type: 'integer' },
          error: { type: 'string', minLength: 1, maxLength: 2000 },
          text: { type: 'string', minLength: 1, maxLength: 2000 },
        },
      },
      PreToolUseAnswer: {
        type: 'object',
        required: ['hookSpecificOutput'],
        properties: {
          hookSpecificOutput: {
            type: 'object',
            required: ['hookEventName', 'permissionDecision', 'permissionDecisionReason'],
            properties: {
              hookEventName: { const: 'PreToolUse' },
              permissionDecision: { enum: ['allow', 'deny', 'ask'] },
              permissionDecisionReason: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;
