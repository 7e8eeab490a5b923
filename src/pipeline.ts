import path from 'node:path';
import type { Logger } from 'pino';
import { UpstreamError, adviceFor, type UpstreamErrorData } from './errors.js';
import { asUpstreamError, fanOut, type Settled } from './fanout.js';
import type { Limiter } from './limiter.js';
import type { CallOptions, ChatRequest, Completion, TokenUsage } from './openrouter/client.js';
import type { RunFolder, RunStore } from './run-store.js';
import { fileSafe } from './run-store.js';
import { buildSynthesisPrompt, type CandidateAnswer, type Trim } from './synthesis.js';

/** What the pipeline needs from the OpenRouter client. */
export interface ChatCompleter {
  complete(chat: ChatRequest, options?: CallOptions): Promise<Completion>;
}

export interface PipelineDeps {
  client: ChatCompleter;
  limiter: Limiter;
  /** Undefined when saving is turned off. */
  store: RunStore | undefined;
  logger: Logger;
  synthesisMaxChars: number;
  /** The limit for one upstream call. */
  timeoutMs: number;
}

export interface RunRequest {
  prompt: string;
  models: string[];
  synthesizerModel: string;
  temperature: number;
  maxTokens: number;
  /** The whole call's time budget. */
  budgetMs: number;
  /** The part of the budget kept for synthesis; the fan-out ends when only this is left. */
  synthesisReserveMs: number;
}

export type ModelStatus = 'answered' | 'failed' | 'cut_off';

export interface ModelError extends UpstreamErrorData {
  advice?: string;
}

export interface CandidateReport {
  index: number;
  model: string;
  status: ModelStatus;
  ms?: number;
  attempts?: number;
  truncated?: boolean;
  usage?: TokenUsage;
  error?: ModelError;
  file?: string;
  /** Finished after the fan-out ended, so it was left out of synthesis; saved when it arrived. */
  late?: boolean;
}

export interface SynthesisReport {
  model: string;
  status: 'answered' | 'failed' | 'skipped';
  ms?: number;
  usage?: TokenUsage;
  error?: ModelError;
  promptChars?: number;
  trims: Trim[];
  file?: string;
}

export type RunStatus = 'complete' | 'partial' | 'candidates_only' | 'failed' | 'cancelled';

export interface RunReport {
  status: RunStatus;
  /** The synthesized answer, when synthesis succeeded. */
  answer: string | undefined;
  /** The candidates' answers as they stood when the call returned, in model order. */
  answers: CandidateAnswer[];
  runDir: string | undefined;
  candidates: CandidateReport[];
  synthesis: SynthesisReport;
  totals: TokenUsage;
  warnings: string[];
  budgetMs: number;
  elapsedMs: number;
  /** Settles when every candidate has finished and its answer has been saved. */
  lateAnswers: Promise<void>;
}

export type RunEvent =
  | { type: 'candidate'; candidate: CandidateReport; settled: number; total: number }
  | { type: 'synthesis'; model: string; candidates: number; limitMs: number };

export interface RunHooks {
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
}

/** Time kept back from the budget to write files and send the result. */
const returnMarginMs = (budgetMs: number) => Math.min(1000, Math.round(budgetMs * 0.05));
/** Below this, a synthesis call cannot be expected to finish. */
const MIN_SYNTHESIS_MS = 500;

/**
 * One call of `process_prompt`: every candidate in parallel, synthesis on the answers
 * that arrive within the budget, everything saved. Candidates cut off by the budget run
 * on and are saved when they arrive.
 */
export async function runPrompt(deps: PipelineDeps, request: RunRequest, hooks: RunHooks = {}): Promise<RunReport> {
  const started = Date.now();
  const deadline = started + request.budgetMs;
  const log = deps.logger;
  const warnings: string[] = [];
  // The folder is made while the models are asked: nothing needs it before the first answer.
  const folderReady = openFolder(deps.store, warnings, log);
  const candidates: CandidateReport[] = request.models.map((model, i) => ({ index: i + 1, model, status: 'cut_off' }));
  const answers = new Map<number, string>();
  const record = new RunRecord(folderReady, request, candidates, started, warnings, log);
  let fanOutOver = false;
  let settledCount = 0;

  log.info({ phase: 'fan-out', models: request.models, budgetMs: request.budgetMs }, 'asking candidates');
  void record.save();

  const saves = new Map<number, Promise<void>>();
  const onSettled = (settled: Settled<Completion>) => {
    settledCount++;
    const report = candidateReport(settled, fanOutOver);
    candidates[settled.index] = report;
    if (settled.result.ok) answers.set(settled.index, settled.result.value.content);
    // The file is named in the result only once it is really on disk; a late answer goes
    // into the run record as soon as it is.
    const saving = folderReady
      .then((folder) => saveCandidate(folder, settled, warnings, log))
      .then(async (file) => {
        if (file) report.file = file;
        if (report.late) await record.save();
      });
    saves.set(settled.index, saving);
    logOutcome(log, report, settled);
    hooks.onEvent?.({ type: 'candidate', candidate: report, settled: settledCount, total: request.models.length });
  };
  const pending = fanOut(request.models, (model, signal) => deps.client.complete(chatFor(request, model), { signal }), {
    limiter: deps.limiter,
    signal: hooks.signal,
    onSettled,
  });

  await waitAtMost(Promise.all(pending), deadline - request.synthesisReserveMs - Date.now());
  fanOutOver = true;
  // What synthesis gets is what the result reports; models that answer later are late answers.
  const usedInSynthesis = [...saves.keys()];
  const savedBeforeCutOff = [...saves.values()];
  const answersAtCutOff = [...answers.entries()];
  const folder = await folderReady;
  const arrived: CandidateAnswer[] = answersAtCutOff
    .sort(([a], [b]) => a - b)
    .map(([index, content]) => {
      const model = request.models[index]!;
      return { model, content, file: folder && path.join(folder.dir, candidateFile({ index, model }, '.md')) };
    });
  const cutOff = candidates.filter((_, index) => !usedInSynthesis.includes(index));
  if (cutOff.length > 0) {
    log.warn({ phase: 'budget', cutOff: cutOff.map((c) => c.model) }, 'budget reached: synthesizing without the slowest models');
  }

  const synthesis = await synthesize(deps, request, arrived, { deadline, hooks });
  await Promise.all(savedBeforeCutOff);
  const reported = candidates.map((candidate, index) =>
    usedInSynthesis.includes(index) ? { ...candidate } : { index: candidate.index, model: candidate.model, status: 'cut_off' as const },
  );
  const status = runStatus(hooks.signal, arrived.length, reported.filter((c) => c.status !== 'answered').length, synthesis);
  const report: RunReport = {
    status,
    answer: synthesis.content,
    answers: arrived,
    runDir: folder?.dir,
    candidates: reported,
    synthesis: synthesis.report,
    totals: sumUsage([...reported.map((c) => c.usage), synthesis.report.usage]),
    warnings,
    budgetMs: request.budgetMs,
    elapsedMs: Date.now() - started,
    lateAnswers: Promise.resolve(),
  };
  await saveFinal(folder, synthesis, report, record, log);
  log.info(
    { phase: 'done', status, ms: report.elapsedMs, answered: arrived.length, cutOff: cutOff.length, cost: report.totals.cost },
    'run finished',
  );
  report.lateAnswers = Promise.all(pending).then(async () => {
    await Promise.all(saves.values());
  });
  return report;
}

/**
 * Writes the final answer and the run record at the same time, since each write is flushed
 * to disk before the result goes out. The record names final.md from the start; if a write
 * fails, the record is written again, without the missing file and with the warning.
 */
async function saveFinal(
  folder: RunFolder | undefined,
  synthesis: SynthesisOutcome,
  report: RunReport,
  record: RunRecord,
  log: Logger,
): Promise<void> {
  const finalFile = folder && synthesis.content !== undefined ? path.join(folder.dir, 'final.md') : undefined;
  if (finalFile) report.synthesis.file = finalFile;
  const warningsBefore = report.warnings.length;
  const [saved] = await Promise.all([
    folder && synthesis.content !== undefined ? writeOrWarn(folder, 'final.md', synthesis.content, report.warnings, log) : undefined,
    folder && synthesis.reasoning ? writeOrWarn(folder, 'synthesis.reasoning.md', synthesis.reasoning, report.warnings, log) : undefined,
    record.finish(report),
  ]);
  if (finalFile && !saved) delete report.synthesis.file;
  if (report.warnings.length > warningsBefore) await record.save();
}

function chatFor(request: RunRequest, model: string): ChatRequest {
  return { model, prompt: request.prompt, temperature: request.temperature, maxTokens: request.maxTokens };
}

async function openFolder(store: RunStore | undefined, warnings: string[], log: Logger): Promise<RunFolder | undefined> {
  if (!store) return undefined;
  try {
    return await store.createRun();
  } catch (error) {
    const message = `could not create a run folder in ${store.rootDir}: ${(error as Error).message}; answers are not saved`;
    warnings.push(message);
    log.error({ err: error }, message);
    return undefined;
  }
}

const candidateFile = (settled: { index: number; model: string }, suffix: string) =>
  `candidate-${settled.index + 1}_${fileSafe(settled.model)}${suffix}`;

function candidateReport(settled: Settled<Completion>, late: boolean): CandidateReport {
  const base = { index: settled.index + 1, model: settled.model, ms: settled.ms, ...(late ? { late: true } : {}) };
  if (!settled.result.ok) return { ...base, status: 'failed', error: modelError(settled.result.error) };
  const completion = settled.result.value;
  return {
    ...base,
    status: 'answered',
    attempts: completion.attempts,
    ...(completion.truncated ? { truncated: true } : {}),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}

function modelError(error: UpstreamError): ModelError {
  const data = error.toJSON();
  const advice = adviceFor(data);
  return advice ? { ...data, advice } : data;
}

/** Saves a candidate's answer (and any reasoning) as soon as it arrives; returns the answer's path once written. */
async function saveCandidate(folder: RunFolder | undefined, settled: Settled<Completion>, warnings: string[], log: Logger) {
  if (!folder) return undefined;
  const { result } = settled;
  const reasoning = result.ok ? result.value.reasoning : result.error.reasoning;
  const [answerFile] = await Promise.all([
    result.ok ? writeOrWarn(folder, candidateFile(settled, '.md'), result.value.content, warnings, log) : undefined,
    reasoning ? writeOrWarn(folder, candidateFile(settled, '.reasoning.md'), reasoning, warnings, log) : undefined,
  ]);
  return answerFile;
}

async function writeOrWarn(folder: RunFolder, name: string, content: string, warnings: string[], log: Logger) {
  try {
    return await folder.write(name, content);
  } catch (error) {
    const message = `could not save ${name}: ${(error as Error).message}`;
    warnings.push(message);
    log.error({ err: error, file: name }, message);
    return undefined;
  }
}

function logOutcome(log: Logger, report: CandidateReport, settled: Settled<Completion>) {
  const fields = {
    phase: 'candidate',
    model: report.model,
    index: report.index,
    ms: report.ms,
    outcome: report.status,
    late: report.late,
    tokens: report.usage?.total_tokens,
    cost: report.usage?.cost,
    words: settled.result.ok ? countWords(settled.result.value.content) : undefined,
  };
  if (settled.result.ok) log.info(fields, 'candidate answered');
  else log.warn({ ...fields, error: report.error }, `candidate failed: ${report.error?.message}`);
}

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Waits for `promise`, but no longer than `ms`. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}

interface SynthesisOutcome {
  content: string | undefined;
  reasoning?: string;
  report: SynthesisReport;
}

async function synthesize(
  deps: PipelineDeps,
  request: RunRequest,
  arrived: CandidateAnswer[],
  context: { deadline: number; hooks: RunHooks },
): Promise<SynthesisOutcome> {
  const { deadline, hooks } = context;
  const model = request.synthesizerModel;
  const skipped = (message: string): SynthesisOutcome => ({
    content: undefined,
    report: { model, status: 'skipped', trims: [], error: { kind: 'cancelled', message } },
  });
  if (hooks.signal?.aborted) return skipped('the call was cancelled');
  if (arrived.length === 0) return skipped('no candidate answered, so there was nothing to synthesize');
  const timeLeft = () => Math.min(deps.timeoutMs, deadline - returnMarginMs(request.budgetMs) - Date.now());
  const limitMs = timeLeft();
  if (limitMs < MIN_SYNTHESIS_MS) return skipped(`the time budget (${request.budgetMs} ms) left no time for synthesis`);

  const prompt = buildSynthesisPrompt(request.prompt, arrived, deps.synthesisMaxChars);
  const base = { model, promptChars: prompt.text.length, trims: prompt.trims };
  deps.logger.info({ phase: 'synthesis', model, candidates: arrived.length, promptChars: prompt.text.length, limitMs }, 'synthesizing');
  hooks.onEvent?.({ type: 'synthesis', model, candidates: arrived.length, limitMs });
  let started = Date.now();
  // Waiting for a free slot (cut-off models may hold them all) spends the same budget.
  const slotWait = AbortSignal.timeout(limitMs);
  try {
    const completion = await deps.limiter.run(
      () => {
        started = Date.now();
        return deps.client.complete({ ...chatFor(request, model), prompt: prompt.text }, { signal: hooks.signal, timeoutMs: timeLeft() });
      },
      { signal: hooks.signal ? AbortSignal.any([hooks.signal, slotWait]) : slotWait, urgent: true },
    );
    const ms = Date.now() - started;
    deps.logger.info({ phase: 'synthesis', model, ms, tokens: completion.usage?.total_tokens, cost: completion.usage?.cost, words: countWords(completion.content) }, 'synthesis done');
    return {
      content: completion.content,
      reasoning: completion.reasoning,
      report: { ...base, status: 'answered', ms, ...(completion.usage ? { usage: completion.usage } : {}) },
    };
  } catch (caught) {
    const noSlot = slotWait.aborted && !hooks.signal?.aborted && !(caught instanceof UpstreamError);
    const error = modelError(
      noSlot
        ? new UpstreamError({ kind: 'timeout', message: `no request slot came free within the time budget: all ${deps.limiter.activeCount} (PARALLEL_LLM_MAX_CONCURRENCY) were busy` })
        : asUpstreamError(caught, hooks.signal),
    );
    deps.logger.warn({ phase: 'synthesis', model, error }, `synthesis failed: ${error.message}`);
    // With no slot, the synthesizer never ran: no time of its own to report, or to learn from.
    return { content: undefined, report: { ...base, status: 'failed', ...(noSlot ? {} : { ms: Date.now() - started }), error } };
  }
}

function runStatus(signal: AbortSignal | undefined, answered: number, missing: number, synthesis: SynthesisOutcome): RunStatus {
  if (signal?.aborted) return 'cancelled';
  if (answered === 0) return 'failed';
  if (synthesis.content === undefined) return 'candidates_only';
  return missing === 0 ? 'complete' : 'partial';
}

function sumUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
  const total: TokenUsage = {};
  for (const usage of usages) {
    for (const [key, value] of Object.entries(usage ?? {}) as Array<[keyof TokenUsage, number]>) {
      total[key] = (total[key] ?? 0) + value;
    }
  }
  if (total.cost !== undefined) total.cost = Math.round(total.cost * 1e8) / 1e8;
  return total;
}

/** The machine-readable record of a run, `run.json`: written at the start, at the end, and as late answers arrive. */
class RunRecord {
  private report: RunReport | undefined;

  constructor(
    private readonly folderReady: Promise<RunFolder | undefined>,
    private readonly request: RunRequest,
    /** The live list: each save shows the candidates as they stand. */
    private readonly candidates: CandidateReport[],
    private readonly started: number,
    private readonly warnings: string[],
    private readonly log: Logger,
  ) {}

  /** Saves the record with the call's outcome; later saves keep it. */
  finish(report: RunReport): Promise<void> {
    this.report = report;
    return this.save();
  }

  async save(): Promise<void> {
    const folder = await this.folderReady;
    if (!folder) return;
    const { prompt, models, synthesizerModel, temperature, maxTokens, budgetMs } = this.request;
    const { report, candidates } = this;
    const record = {
      run: folder.name,
      status: report?.status ?? 'running',
      started_at: new Date(this.started).toISOString(),
      updated_at: new Date().toISOString(),
      elapsed_ms: report?.elapsedMs,
      settings: { models, synthesizer_model: synthesizerModel, temperature, max_tokens: maxTokens, budget_ms: budgetMs },
      prompt,
      candidates,
      synthesis: report?.synthesis,
      totals: sumUsage([...candidates.map((c) => c.usage), report?.synthesis.usage]),
      warnings: this.warnings,
    };
    await writeOrWarn(folder, 'run.json', `${JSON.stringify(record, null, 2)}\n`, this.warnings, this.log);
  }
}
