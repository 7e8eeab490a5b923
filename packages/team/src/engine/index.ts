export { startEngine } from './engine.js';
export type { DrainReport, Engine, EngineLogger, EngineOptions, RunFunction, RunOutcome, RunSteps, StepRetries } from './types.js';
