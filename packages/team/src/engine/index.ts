export { startEngine } from './engine.js';
export { EngineError, type EngineErrorKind } from './errors.js';
export type { DrainReport, Engine, EngineLogger, EngineOptions, RunFunction, RunOutcome, RunSteps } from './types.js';
