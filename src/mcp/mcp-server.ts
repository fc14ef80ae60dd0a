// The MCP server for one HTTP request (stateless: any instance answers any request, so each POST
// gets a fresh SDK server and transport, ~0.1 ms). It knows the caller and offers two tools.
// The SDK's low-level Server is used because it takes plain JSON Schemas (McpServer needs zod).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import packageJson from '../../package.json' with { type: 'json' };
import type { Principal } from '../auth/authenticator.ts';
import type { CompletionServiceDeps } from '../dispatch/admitted-completion.ts';
import type { Logger } from '../observability/logger.ts';
import { chatCompletionTool, type ToolCallLog } from './chat-completion-tool.ts';
import { allowedModelIds, listModelsTool } from './list-models-tool.ts';
import { signalAbortable } from './signal-abortable.ts';
import { CHAT_COMPLETION, LIST_MODELS, toolDefinitions } from './tool-definitions.ts';
import { toolError } from './tool-results.ts';

export interface McpToolDeps extends CompletionServiceDeps {
  readonly logger: Logger;
}

/** Who is calling, and where the request log line collects what the tool calls used. */
export interface McpCaller {
  readonly principal: Principal;
  readonly requestId: string;
  readonly log: ToolCallLog;
}

const SERVER_INFO = { name: 'munja', title: 'Munja', version: packageJson.version };

const INSTRUCTIONS =
  'Munja is a chat-completion service. chat_completion generates a reply with one of its models; ' +
  'list_models shows the models this key may use, with their context sizes and output limits.';

// Shared: a Server otherwise builds its own Ajv instance, which would triple the per-request cost.
const VALIDATOR = new AjvJsonSchemaValidator();

export function createMcpServer(deps: McpToolDeps, caller: McpCaller): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolDefinitions(allowedModelIds(deps.catalog, caller.principal)) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(deps, caller, request.params.name, request.params.arguments ?? {}, extra.signal));
  return server;
}

async function callTool(deps: McpToolDeps, caller: McpCaller, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  if (name !== CHAT_COMPLETION && name !== LIST_MODELS) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 64)}`);
  try {
    if (name === LIST_MODELS) return listModelsTool(deps.catalog, caller.principal);
    return await chatCompletionTool(deps, caller.principal, args, signalAbortable(caller.requestId, signal), caller.log);
  } catch (error) {
    return toolError(error, deps.logger, caller.requestId);
  }
}
