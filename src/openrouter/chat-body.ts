/** What one chat completion asks, and the JSON body that asks it of OpenRouter. */
import type { ReasoningEffort } from '../config/choices.js';
import type { Text } from './text-parts.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  /** The question, sent as one user message unless `messages` is given. */
  prompt: Text;
  /**
   * A whole conversation (a follow-up: earlier turns, then the new question), sent instead of
   * `prompt`; `prompt` then stays the new question, for the logs and the request's identity.
   */
  messages?: ChatMessage[];
  temperature: number;
  maxTokens: number;
  /** Sent as `reasoning: { effort }`; absent, the model reasons as its provider decides. */
  reasoningEffort?: ReasoningEffort;
  /** Sent as `response_format` (a JSON schema), for a model whose /models row says it takes one. */
  responseFormat?: Record<string, unknown>;
}

/** The body of POST /chat/completions for `chat`: always streamed, always with max_tokens. */
export function chatBody(chat: ChatRequest): Record<string, unknown> {
  return {
    model: chat.model,
    messages: chat.messages ?? [{ role: 'user', content: chat.prompt }],
    temperature: chat.temperature,
    max_tokens: chat.maxTokens,
    ...(chat.reasoningEffort === undefined ? {} : { reasoning: { effort: chat.reasoningEffort } }),
    ...(chat.responseFormat === undefined ? {} : { response_format: chat.responseFormat }),
    stream: true,
    // OpenRouter's switch for usage and cost, and the OpenAI-compatible one for other servers.
    usage: { include: true },
    stream_options: { include_usage: true },
  };
}
