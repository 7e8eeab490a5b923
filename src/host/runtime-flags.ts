import v8 from 'node:v8';

/**
 * Each kind of process's V8 flags, in one place. A relay (an MCP server or a terminal command
 * whose runs execute in the run host) passes a few small messages a call, so it keeps V8's first
 * young generation and never loads the optimizing compiler. A process that executes runs itself
 * streams answers, so it turns both back on. The run host lives long and works in bursts: a small
 * young generation for its short-lived stream events, the baseline compiler alone for undici's
 * WebAssembly parser, and no memory reducer, which would shrink the heap after each burst only
 * for the next burst to grow it back.
 */
export const RUNTIME_FLAGS = {
  relay: ['--semi-space-growth-factor=1', '--no-opt'],
  runsHere: ['--opt', '--semi-space-growth-factor=2'],
  /** Given on the host's command line: some take effect only before any script runs. */
  host: ['--max-semi-space-size=4', '--liftoff-only', '--no-memory-reducer'],
} as const;

/** Sets a kind's flags in this running process. */
export function useRuntimeFlags(kind: 'relay' | 'runsHere'): void {
  v8.setFlagsFromString(RUNTIME_FLAGS[kind].join(' '));
}
