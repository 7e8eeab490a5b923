import type { RunRequest } from '../run/request.js';
import type { StartRefusal } from '../run/start-refusal.js';

const STOPPING = 'this server is stopping and takes no new call; call again (another process serves it)';
/**
 * What a member's call must pass before anything of its run (no upstream request, reservation
 * or row for a call refused here): a server that is not stopping.
 */
export class CallGate {
  #draining = false;
  /** From now on every call is refused: the process is stopping. */
  drain(): void {
    this.#draining = true;
  }

  refusal(_request: RunRequest): StartRefusal | undefined {
    if (this.#draining) return { kind: 'server', message: STOPPING };
    return undefined;
  }
}
