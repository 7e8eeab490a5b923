/**
 * One error family for everything that can go wrong upstream. The `kind` says what
 * happened; `status` and `message` carry what OpenRouter itself said.
 */
export type UpstreamErrorKind =
  | 'http' // a non-2xx answer, or an error object with an HTTP-like code in a 200 body
  | 'rate_limited' // 429
  | 'timeout' // the call's limit, or too long a silence mid-stream (code 'idle_timeout')
  | 'network' // the connection failed or broke
  | 'bad_body' // the body was not what the API documents
  | 'provider' // the provider failed mid-generation (finish_reason "error")
  | 'empty' // the model answered, but with nothing
  | 'truncated' // max_tokens ran out before any answer (reasoning models)
  | 'cancelled'; // the caller gave up

const RETRYABLE_STATUSES = new Set([408, 429, 502, 503]);

export interface UpstreamErrorInit {
  kind: UpstreamErrorKind;
  message: string;
  status?: number;
  code?: string;
  retryAfterMs?: number;
  metadata?: Record<string, unknown>;
  /** The server's own verdict on retrying, where it gave one. */
  retryableHint?: boolean;
  /** What a truncated reasoning model thought before max_tokens ran out. */
  reasoning?: string;
  cause?: unknown;
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly kind: UpstreamErrorKind;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly metadata: Record<string, unknown> | undefined;
  readonly reasoning: string | undefined;
  /** Worth another attempt, provided no content has been received yet. */
  readonly retryable: boolean;

  constructor(init: UpstreamErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.retryAfterMs = init.retryAfterMs;
    this.metadata = init.metadata;
    this.reasoning = init.reasoning;
    this.retryable = init.retryableHint ?? isRetryable(init);
  }

  /** The shape that goes into results, run records and logs. */
  toJSON(): UpstreamErrorData {
    return {
      kind: this.kind,
      message: this.message,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.code === undefined ? {} : { code: this.code }),
      ...(this.retryAfterMs === undefined ? {} : { retry_after_ms: this.retryAfterMs }),
    };
  }
}

export interface UpstreamErrorData {
  kind: UpstreamErrorKind;
  message: string;
  status?: number;
  code?: string;
  retry_after_ms?: number;
}

function isRetryable(init: UpstreamErrorInit): boolean {
  if (init.kind === 'network') return true;
  if (init.kind === 'rate_limited') return true;
  if (init.kind === 'http' || init.kind === 'provider') {
    return init.status !== undefined && RETRYABLE_STATUSES.has(init.status);
  }
  return false;
}

/** Builds the error for an HTTP status, choosing the kind from it. */
export function httpError(
  status: number,
  message: string,
  extra: Omit<UpstreamErrorInit, 'kind' | 'status' | 'message'> = {},
): UpstreamError {
  return new UpstreamError({
    kind: status === 429 ? 'rate_limited' : 'http',
    status,
    message,
    ...extra,
  });
}

const CHECK_MODEL_ID = 'Check the model id at https://openrouter.ai/models, or run `parallel-llm-mcp doctor`.';

/** What a user can do about an error, in one sentence, or undefined when nothing. */
export function adviceFor(error: UpstreamErrorData): string | undefined {
  switch (error.status) {
    case 400:
      return /not a valid model id/i.test(error.message) ? CHECK_MODEL_ID : undefined;
    case 401:
      return 'Check OPENROUTER_API_KEY: OpenRouter did not accept it.';
    case 402:
      return 'Add credits to your OpenRouter account, or use cheaper models.';
    case 403:
      return 'The input was refused by moderation; rephrase it or choose another model.';
    case 404:
      return CHECK_MODEL_ID;
  }
  switch (error.kind) {
    case 'rate_limited':
      return 'Wait a little, or lower PARALLEL_LLM_MAX_CONCURRENCY.';
    case 'timeout':
      return error.code === 'idle_timeout'
        ? 'Raise PARALLEL_LLM_IDLE_TIMEOUT_MS: the model went quiet for longer than it allows.'
        : 'Raise PARALLEL_LLM_TIMEOUT_MS, or shorten the prompt.';
    case 'truncated':
      return 'Raise max_tokens (or PARALLEL_LLM_MAX_TOKENS): the model spent them all on reasoning.';
    case 'network':
      return 'Check the network and OPENROUTER_BASE_URL.';
    default:
      return undefined;
  }
}
