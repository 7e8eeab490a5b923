import { monotonicNow } from '../clock.js';
import { UpstreamError } from '../errors.js';
import type { Limiter } from './limiter.js';
import { err, ok, type Result } from '../result.js';

export interface Settled<T> {
  index: number;
  model: string;
  result: Result<T, UpstreamError>;
  /** From the moment the call got its turn under the limiter to its end. */
  ms: number;
}

interface FanOutOptions<T> {
  limiter: Limiter;
  signal?: AbortSignal;
  urgent?: boolean;
  onSettled?: (settled: Settled<T>) => void;
}

/** No promise rejects: each settles to a typed Result, so one model's failure never costs the others. */
export function fanOut<T>(
  models: readonly string[],
  call: (model: string, signal: AbortSignal | undefined, index: number) => Promise<T>,
  options: FanOutOptions<T>,
): Array<Promise<Settled<T>>> {
  const { limiter, signal, urgent, onSettled } = options;
  return models.map(async (model, index) => {
    let started = monotonicNow();
    const result = await limiter
      .run(
        () => {
          started = monotonicNow();
          return call(model, signal, index);
        },
        { signal, urgent },
      )
      .then(
        (value) => ok(value),
        (caught: unknown) => err(asUpstreamError(caught, signal)),
      );
    const settled = { index, model, result, ms: Math.round(monotonicNow() - started) };
    onSettled?.(settled);
    return settled;
  });
}

export function asUpstreamError(caught: unknown, signal?: AbortSignal): UpstreamError {
  if (caught instanceof UpstreamError) return caught;
  if (signal?.aborted) return new UpstreamError({ kind: 'cancelled', message: 'cancelled before the model was called' });
  const message = caught instanceof Error ? caught.message : String(caught);
  return new UpstreamError({ kind: 'network', message: `unexpected failure: ${message}`, cause: caught });
}
