import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RunService } from '../run/service.js';

/**
 * What a face (the MCP server, `runs`, `cancel`) uses: the run host, or this process's own runs,
 * reached only when first needed. The host's side is loaded only then: answering `initialize`
 * does not need it.
 */
export function faceRunService(config: Config, logger: Logger, version: string): RunService {
  const hostSide = () => import('./choose.js');
  let disk: Promise<RunService> | undefined;
  return lazyRunService({
    execute: async () => (await hostSide()).chooseRunService(config, logger, version),
    running: async () => (await hostSide()).runningHost(config, version),
    disk: () => (disk ??= import('./here.js').then(({ runsHere }) => runsHere(config, logger))),
  });
}

/** How a face reaches the runs. */
interface RunAccess {
  /** Where runs execute: the run host, started if need be, or this process where no host can be. */
  execute(): Promise<RunService>;
  /** The run host if one is running now; never starts one. */
  running(): Promise<RunService | undefined>;
  /** The run folders alone, for reading runs while no host runs. */
  disk(): Promise<RunService>;
}

/**
 * A run service that reaches the run host only when it must: the server answers `initialize`
 * and lists its tools and resources without starting a host; the first run starts one (or finds
 * it). Reading a run before that uses the host if one is running, else the run folders.
 */
function lazyRunService(access: RunAccess): RunService {
  let chosen: RunService | undefined;
  const listeners: Array<() => void> = [];
  const adopt = (service: RunService) => {
    if (chosen !== service) listeners.forEach((listener) => service.onStart(listener));
    chosen = service;
    return service;
  };
  const executing = async () => chosen ?? adopt(await access.execute());
  const reading = async () => {
    if (chosen) return chosen;
    const host = await access.running();
    return host ? adopt(host) : access.disk();
  };
  return {
    get notice() {
      return chosen?.notice;
    },
    start: async (...args) => (await executing()).start(...args),
    watch: async (...args) => (await reading()).watch(...args),
    view: async (...args) => (await reading()).view(...args),
    cancel: async (...args) => (await reading()).cancel(...args),
    list: async (...args) => (await reading()).list(...args),
    onStart: (listener) => {
      listeners.push(listener);
      chosen?.onStart(listener);
    },
    finished: async () => chosen?.finished(),
    close: async () => chosen?.close(),
  };
}
