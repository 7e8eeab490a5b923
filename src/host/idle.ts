/** While runs run, how often the host looks whether they have all ended: at most this, at least the other. */
const RUNS_LOOK_MS = 1000;
const MIN_LOOK_MS = 50;

/** What keeps the run host. */
export interface HostLoad {
  clients: number;
  running: number;
}

const quiet = ({ clients, running }: HostLoad): boolean => clients === 0 && running === 0;

/**
 * Stops the run host once it has had no run and no client for `idleMs`. Only while runs run does
 * it look by the clock (their end has no event), so an idle host costs a laptop no wake-ups.
 */
export class IdleStop {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly load: () => HostLoad,
    private readonly stop: () => void,
  ) {}

  /** A client came or went, or a run started. Clients and no run: nothing to wait for until a client leaves, which checks again. */
  readonly check = (): void => {
    clearTimeout(this.timer);
    const { clients, running } = this.load();
    if (running > 0) this.timer = setTimeout(this.check, Math.max(MIN_LOOK_MS, Math.min(RUNS_LOOK_MS, this.idleMs)));
    else if (clients === 0) this.timer = setTimeout(() => (quiet(this.load()) ? this.stop() : this.check()), this.idleMs);
    else this.timer = undefined;
    this.timer?.unref();
  };
}
