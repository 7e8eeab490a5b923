import { Redactor } from '../openrouter/redact.js';
import type { RunRequest } from '../run/request.js';
import type { StartRefusal } from '../run/start-refusal.js';
import { STOPPING } from './replies.js';

/**
 * The prompt would go to every model as it is, and be kept redacted, so a run taken over could
 * not be rebuilt from its record; a member never holds the server's key in the first place.
 */
const SERVER_KEY =
  'the prompt contains the server’s OpenRouter API key (or the start of it), which must never be sent to the models: remove it and call again';

/**
 * What a member's call must pass before anything of its run (no upstream request, reservation
 * or row for a call refused here): a server that is not stopping, and a prompt without the
 * server's key.
 */
export class CallGate {
  #draining = false;
  readonly #serverKey: Redactor;

  constructor(apiKey: string) {
    this.#serverKey = new Redactor(apiKey);
  }

  /** From now on every call is refused: the process is stopping. */
  drain(): void {
    this.#draining = true;
  }

  refusal(request: RunRequest): StartRefusal | undefined {
    if (this.#draining) return { kind: 'server', message: STOPPING };
    if (this.#serverKey.secretIn(request.prompt) !== request.prompt) return { kind: 'server', message: SERVER_KEY };
    return undefined;
  }
}
