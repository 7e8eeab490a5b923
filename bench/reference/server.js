#!/usr/bin/env node
/**
 * The naive reference the benches measure the server against: the same `process_prompt` tool
 * on the SDK's stdio McpServer, each model asked with plain `fetch` on a new connection
 * (`connection: close`), every answer awaited, one synthesis request, the text returned.
 * No files, no logs, no progress, no limits, no retries. Plain JavaScript, so that it starts
 * as `node bench/reference/server.js` with nothing between node and the SDK. It reads the
 * server's environment variables, so the same bench drives both.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const env = process.env;
const baseUrl = env.OPENROUTER_BASE_URL ?? 'https://openrouter.ai/api/v1';
const list = (value) =>
  (value ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
const configuredModels = list(env.PARALLEL_LLM_MODELS);
const configuredSynthesizer = list(env.PARALLEL_LLM_SYNTHESIZER_MODEL)[0];

async function ask(model, prompt, settings) {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.OPENROUTER_API_KEY}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: prompt }],
      temperature: settings.temperature,
      max_tokens: settings.maxTokens,
    }),
  });
  const body = await response.json();
  if (!response.ok || body.error) throw new Error(`${model}: ${body.error?.message ?? `HTTP ${response.status}`}`);
  return body.choices[0].message.content;
}

const synthesisPrompt = (prompt, answers) =>
  [
    `You are an expert synthesiser. ${answers.length} models answered the problem below.`,
    `## Problem\n\n${prompt}`,
    ...answers.map(({ model, text }, i) => `## Candidate ${i + 1} (${model})\n\n${text}`),
    'Write the single best solution: combine the best parts and resolve conflicts with judgement.',
  ].join('\n\n');

const server = new McpServer({ name: 'naive-reference', version: '1.0.0' });
server.registerTool(
  'process_prompt',
  {
    description: 'Ask several LLMs the same prompt in parallel and return one synthesized answer.',
    inputSchema: {
      prompt: z.string().min(1),
      models: z.array(z.string().min(1)).min(1).max(20).optional(),
      synthesizer_model: z.string().min(1).optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().min(1).optional(),
    },
  },
  async (args) => {
    const settings = { temperature: args.temperature ?? 0.7, maxTokens: args.max_tokens ?? 16_384 };
    const models = args.models ?? configuredModels;
    const settled = await Promise.allSettled(models.map((model) => ask(model, args.prompt, settings)));
    const answers = settled.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [{ model: models[i], text: outcome.value }] : []));
    if (answers.length === 0) {
      return {
        content: [{ type: 'text', text: `No model answered: ${settled.map((outcome) => outcome.reason.message).join('; ')}` }],
        isError: true,
      };
    }
    const text = await ask(args.synthesizer_model ?? configuredSynthesizer, synthesisPrompt(args.prompt, answers), settings);
    return { content: [{ type: 'text', text }] };
  },
);
await server.connect(new StdioServerTransport());
