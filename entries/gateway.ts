// The `countersign/gateway` package entry: the MCP gateway (`countersign gateway`) in a service's own process. It
// reads the same environment as a worker (TEMPORAL_*, COUNTERSIGN_*) and runs the worker its gated calls need.
// Values are named one by one (no `export *`), as test/unit/entryPoints.test.ts requires.
export {
  startGateway,
  gatewayTaskQueue,
  DEFAULT_GATEWAY_PORT,
  DEFAULT_GATEWAY_WAIT_MS,
  type GatewayOptions,
  type GatewayHandle,
} from '../gateway/gatewayProcess';
export {
  loadGatewayConfig,
  parseGatewayConfig,
  gatewayConfigSchema,
  type GatewayConfig,
  type ToolTerms,
} from '../gateway/gatewayConfig';
