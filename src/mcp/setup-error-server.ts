import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { sentence } from '../present/words.js';
import { GET_RUN_DESCRIPTION, PROCESS_PROMPT_DESCRIPTION, SERVER_NAME } from './input-schema.js';

/** What to do about any setup problem, after the problem's own fix. */
const WHERE_TO_FIX =
  "Set it in the \"env\" block of this server's entry in the MCP client's config (clients do not pass your shell's environment), " +
  'or in a .env file in the folder the client starts the server in; then restart the server. `parallel-llm-mcp doctor` checks the whole setup.';

/** The text every tool call answers with while the setup is broken. */
const setupErrorText = (problem: string) => `parallel-llm-mcp cannot run: ${sentence(problem)}\n${WHERE_TO_FIX}`;

/**
 * The server for a broken setup (a missing key, a bad variable, a log file that cannot be
 * opened). Ending the process before `initialize` would leave the user with the client's
 * "Connection closed" and the fix in a stderr nobody reads; instead this server starts, lists
 * the same tools, and every call answers `isError` with the problem and how to fix it.
 */
export function createSetupErrorServer(problem: string, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    { instructions: `parallel-llm-server is not set up: ${problem}. Each tool call says how to fix it.` },
  );
  const refuse = async (): Promise<CallToolResult> => ({ content: [{ type: 'text', text: setupErrorText(problem) }], isError: true });
  // Any arguments are accepted: whatever the call, the answer is the setup problem.
  const anyArguments = z.looseObject({});
  const unavailable = ` Not available until the setup is fixed: ${problem}.`;
  server.registerTool(
    'process_prompt',
    {
      title: 'Ask several LLMs and synthesize the best answer',
      description: PROCESS_PROMPT_DESCRIPTION + unavailable,
      inputSchema: anyArguments,
    },
    refuse,
  );
  server.registerTool(
    'get_run',
    { title: 'Wait for a run and return its result', description: GET_RUN_DESCRIPTION + unavailable, inputSchema: anyArguments },
    refuse,
  );
  return server;
}
