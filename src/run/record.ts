import type { UpstreamErrorData } from '../errors.js';
import type { TokenUsage } from '../openrouter/client.js';

/**
 * The run's record: one declaration for what run.json holds, what `get_run` reads back and
 * what results are made from. Snake case throughout, as on the wire.
 */
export const RUN_STATUSES = [
  'running',
  'complete', // synthesized from every model
  'partial', // synthesized, some models failed
  'candidates_only', // every synthesizer failed; the candidates are the result
  'failed', // no model answered
  'cancelled',
  'interrupted', // the process ended mid-run (written on shutdown, or read from a dead owner)
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

export const FINISHED: ReadonlySet<RunStatus> = new Set(['complete', 'partial', 'candidates_only', 'failed', 'cancelled']);

export interface ModelError extends UpstreamErrorData {
  advice?: string;
}

interface CandidateBase {
  /** 1-based, in the order of the request's models. */
  index: number;
  model: string;
  /** The reasoning file, when the model sent reasoning. */
  reasoning_file?: string;
}

export type CandidateRecord =
  | (CandidateBase & { status: 'waiting' })
  | (CandidateBase & {
      status: 'answered';
      /** Unknown for an answer recovered from disk after a crash. */
      ms?: number;
      attempts?: number;
      chars: number;
      /** Found on disk after the process that asked was killed before noting it. */
      recovered?: true;
      truncated?: boolean;
      usage?: TokenUsage;
      /** The answer's file in the run folder, set once it is on disk. */
      file?: string;
    })
  | (CandidateBase & {
      status: 'failed';
      ms?: number;
      error: ModelError;
      /** It sent reasoning but no answer, and the synthesizer was given that reasoning. */
      reasoning_to_synthesis?: true;
    });

export type SynthesisAttempt =
  | { model: string; status: 'answered'; ms: number; chars: number; usage?: TokenUsage }
  | { model: string; status: 'failed'; ms?: number; error: ModelError };

export interface Trimmed {
  model: string;
  kept_chars: number;
  original_chars: number;
}

export interface SynthesisRecord {
  status: 'waiting' | 'running' | 'answered' | 'failed' | 'skipped';
  /** Who synthesized, or who is synthesizing now. */
  model?: string;
  /** Every synthesizer tried, in order, with how it went. */
  attempts: SynthesisAttempt[];
  /** Why synthesis did not run (status skipped). */
  reason?: string;
  prompt_chars?: number;
  trimmed?: Trimmed[];
  /** final.md, once it is on disk. */
  file?: string;
}

/** Which process runs the run: how another process tells a live run from an interrupted one. */
export interface Owner {
  pid: number;
  host: string;
  /** Random per process, since a pid can be reused (pid 1 in every container). */
  instance: string;
}

export interface RunRecord {
  format: 1;
  run_id: string;
  request_key: string;
  status: RunStatus;
  owner: Owner;
  started_at: string;
  updated_at: string;
  finished_at?: string;
  elapsed_ms?: number;
  /** How many times a new process took the run over after an interruption. */
  resumes: number;
  settings: { models: string[]; synthesizer_models: string[]; temperature: number; max_tokens: number };
  prompt: string;
  candidates: CandidateRecord[];
  synthesis: SynthesisRecord;
  totals: TokenUsage;
  warnings: string[];
}
