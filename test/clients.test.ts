import { describe, expect, it } from 'vitest';
import { FALLBACK_BUDGET_MS, forClient } from '../src/mcp/clients.js';
import { isClientTimeout } from '../src/mcp/cancel-reasons.js';

describe('forClient', () => {
  it.each([
    ['claude-ai', 55_000, 'content'],
    ['local-agent-mode-parallel-llm', 55_000, 'both'],
    ['claude-code', 600_000, 'structured_content'],
    ['cursor-vscode', 270_000, 'both'],
    ['Visual Studio Code', 270_000, 'structured_content'],
    ['Visual Studio Code - Insiders', 270_000, 'structured_content'],
    ['codex-mcp-client', 270_000, 'structured_content'],
    ['gemini-cli-mcp-client', 540_000, 'content'],
    ['goose-desktop', 270_000, 'content'],
    ['inspector-client', 55_000, 'both'],
    ['mcp-inspector', 55_000, 'both'],
    ['Cline', 55_000, 'content'],
    ['@cline/core', 55_000, 'content'],
    ['Zed', 55_000, 'content'],
  ])('gives %s a budget of %i ms and answers in %s', (name, budgetMs, layout) => {
    expect(forClient(name)).toEqual({ budgetMs, layout, source: `client "${name}"` });
  });

  it('gives unknown and nameless clients a budget below the SDK’s 60 s default, and the answers on both sides', () => {
    expect(FALLBACK_BUDGET_MS).toBeLessThan(60_000);
    expect(forClient('some-new-client')).toEqual({
      budgetMs: FALLBACK_BUDGET_MS,
      layout: 'both',
      source: 'unknown client "some-new-client"',
    });
    expect(forClient(undefined).source).toBe('no client name');
  });

  it('lets PARALLEL_LLM_BUDGET_MS win over the client’s budget, but not over its layout', () => {
    expect(forClient('claude-ai', 1234)).toEqual({ budgetMs: 1234, layout: 'content', source: 'PARALLEL_LLM_BUDGET_MS' });
  });
});

describe('isClientTimeout', () => {
  it.each([
    ['McpError: MCP error -32001: Request timed out', true],
    ['Error: MCP error -32001: Request timed out', true],
    ['timed out', true],
    ['timed out after 60.0s', true],
    ['MCP request cancelled by caller', true],
    ['User cancelled', false],
    ['AbortError: This operation was aborted', false],
    ['operation cancelled', false],
    [undefined, false],
  ])('reads %j as a client timeout: %s', (reason, expected) => {
    expect(isClientTimeout(reason)).toBe(expected);
  });
});
