import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { RunHandle } from '../run/handle.js';
import type { RunRequest } from '../run/request.js';
import type { Joined } from '../run/runs.js';
import { answerWhenReady, type Extra, type FaceContext } from './answer.js';
import type { processPromptShape } from './input-schema.js';

export type ProcessPromptArgs = z.infer<z.ZodObject<ReturnType<typeof processPromptShape>>>;

/** `process_prompt` as a plain call, once its run is started (or joined): wait for it within the client's budget. */
export async function processPrompt(context: FaceContext, handle: RunHandle, joined: Joined, extra: Extra): Promise<CallToolResult> {
  const { budgetMs, source } = context.client();
  context.logger.info({ request: extra.requestId, run: handle.id, joined, budgetMs, budgetFrom: source }, 'process_prompt');
  return answerWhenReady(context, handle, extra, { budgetMs, joined });
}

export function runRequest(args: ProcessPromptArgs, config: Config): RunRequest {
  const synthesizers = args.synthesizer_model === undefined ? config.synthesizerModels : [args.synthesizer_model].flat();
  return {
    prompt: args.prompt,
    models: args.models ?? config.models,
    synthesizers,
    temperature: args.temperature ?? config.temperature,
    maxTokens: args.max_tokens ?? config.maxTokens,
  };
}
