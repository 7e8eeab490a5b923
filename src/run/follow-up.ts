import type { ChatMessage } from '../openrouter/chat-body.js';
import { err, ok, type Result } from '../result.js';
import { isRunId } from '../store/store.js';
import { STATUS, type RunRecord, type RunState } from './record.js';
import type { RunRequest } from './request.js';
import type { RunTexts } from './service.js';
import type { StoredRun, StoredRuns } from './stored.js';
import { fairCaps } from '../prompts/synthesis.js';
import { prefix } from './view.js';

/** For a follow-up (SPEC §10), each model continues its own conversation with the final answer in view. */
export interface EarlierRun {
  prompt: string;
  models: readonly string[];
  /** Each candidate's answer by 0-based position; undefined where it failed. */
  answers: ReadonlyArray<string | undefined>;
  finalAnswer: string | undefined;
}

/** The k-th repeat of a model takes the k-th repeat's earlier answer (Self-MoA). */
export function ownEarlierAnswers(earlier: EarlierRun, models: readonly string[]): Array<string | undefined> {
  const seen = new Map<string, number>();
  return models.map((model) => {
    const occurrence = seen.get(model) ?? 0;
    seen.set(model, occurrence + 1);
    const position = earlier.models.flatMap((earlierModel, index) => (earlierModel === model ? [index] : []))[occurrence];
    return position === undefined ? undefined : earlier.answers[position];
  });
}

/** A model with no earlier answer takes the final answer as its turn; turns alternate user/assistant, as every provider accepts. */
export function followUpMessages(earlier: EarlierRun, ownAnswer: string | undefined, prompt: string): ChatMessage[] {
  const ownTurn = ownAnswer ?? earlier.finalAnswer;
  if (ownTurn === undefined) return [{ role: 'user', content: followUpProblem(earlier, prompt) }];
  const finalInView = ownAnswer !== undefined && earlier.finalAnswer !== undefined && earlier.finalAnswer !== ownAnswer;
  const next = finalInView
    ? `Several AI models answered that question, you among them. The final answer, combining their answers, was:\n\n${earlier.finalAnswer}\n\n---\n\n${prompt}`
    : prompt;
  return [
    { role: 'user', content: earlier.prompt },
    { role: 'assistant', content: ownTurn },
    { role: 'user', content: next },
  ];
}

/** As the synthesizer, the judge and the rankers read it. */
export function followUpProblem(earlier: EarlierRun, prompt: string): string {
  const answer = earlier.finalAnswer === undefined ? [] : ['', '### The final answer to it', '', earlier.finalAnswer];
  return ['### An earlier question', '', earlier.prompt, ...answer, '', '### The follow-up question to answer now', '', prompt].join('\n');
}

/** What followUpMessages adds around the earlier turns and the new prompt, at most. */
const FRAME_CHARS = 200;

/** Shortens the longest turns first, so every conversation stays within PARALLEL_LLM_MAX_PROMPT_CHARS. */
export function boundEarlier(earlier: EarlierRun, prompt: string, maxChars: number): { earlier: EarlierRun; shortened: boolean } {
  const finalChars = earlier.finalAnswer?.length ?? 0;
  const lengths = [earlier.prompt.length, Math.max(0, ...earlier.answers.map((answer) => answer?.length ?? 0)), finalChars];
  const available = maxChars - prompt.length - FRAME_CHARS;
  if (lengths[0]! + lengths[1]! + lengths[2]! <= available) return { earlier, shortened: false };
  const [promptCap, answerCap, finalCap] = fairCaps(lengths, available) as [number, number, number];
  const shortened: EarlierRun = {
    ...earlier,
    prompt: shorten(earlier.prompt, promptCap),
    answers: earlier.answers.map((answer) => answer && shorten(answer, answerCap)),
    finalAnswer: earlier.finalAnswer && shorten(earlier.finalAnswer, finalCap),
  };
  return { earlier: shortened, shortened: true };
}

/** What the worst-case cost reads. */
export function longestConversation(earlier: EarlierRun, models: readonly string[], prompt: string): string {
  const own = ownEarlierAnswers(earlier, models);
  const texts = models.map((_, i) =>
    followUpMessages(earlier, own[i], prompt)
      .map((message) => message.content)
      .join('\n'),
  );
  return texts.reduce((longest, text) => (text.length > longest.length ? text : longest), '');
}

function shorten(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const marker = (left: number) => `\n\n[... ${left} characters of this earlier turn left out to fit PARALLEL_LLM_MAX_PROMPT_CHARS]`;
  const kept = prefix(text, Math.max(0, cap - marker(text.length).length));
  return kept + marker(text.length - kept.length);
}

/** What a follow-up reads of a run of this process. */
type LiveEarlier = { request: RunRequest; state(): RunState; texts(): RunTexts };

/** Memory serves when saving is off or the disk failed. */
export interface EarlierSources {
  stored: StoredRuns | undefined;
  live(id: string): LiveEarlier | undefined;
}

/** Only a run that ended with answers can be followed up; any other is refused with what to do. */
export async function readEarlierRun(id: string, sources: EarlierSources, maxChars: number): Promise<Result<EarlierRun, string>> {
  if (!isRunId(id))
    return err(
      `follow_up_of "${id.slice(0, 80)}" is not a run id: give the run_id of a finished run (it looks like 2026-11-23T16-15-00.123Z_9f3a1c2e)`,
    );
  const opened = await sources.stored?.open(id);
  if (opened?.ok) {
    const record = opened.value.effective();
    return whyNot(record) ?? ok(await fromFolder(opened.value, record, maxChars));
  }
  const live = sources.live(id);
  if (live) return whyNot(live.state()) ?? ok(fromMemory(live));
  if (opened && opened.error.kind !== 'not_found') return err(`run ${id} cannot be followed up: ${opened.error.message}`);
  return err(`there is no run ${id} to follow up: follow_up_of takes the run_id of a finished run, from a process_prompt result`);
}

function whyNot(run: Pick<RunState, 'run_id' | 'status'>): Result<never, string> | undefined {
  // A finished run with an answer to build on: complete, partial, or the candidates alone.
  if (STATUS[run.status].settled && STATUS[run.status].reusable) return undefined;
  const id = run.run_id;
  switch (run.status) {
    case 'running':
      return err(`run ${id} is still running: wait for it to finish (get_run), then ask the follow-up`);
    case 'failed':
      return err(`run ${id} failed: no model answered, so there is nothing to follow up`);
    default:
      return err(
        `run ${id} was ${run.status} before it finished: call process_prompt again with its input to resume it, then ask the follow-up`,
      );
  }
}

async function fromFolder(stored: StoredRun, record: RunRecord, maxChars: number): Promise<EarlierRun> {
  const read = async (file: string | undefined) => (file ? stored.readText(file, maxChars) : undefined);
  const answers = await Promise.all(
    record.candidates.map((candidate) => read(candidate.status === 'answered' ? candidate.file : undefined)),
  );
  return { prompt: record.prompt, models: record.settings.models, answers, finalAnswer: await read(record.synthesis.file) };
}

/** The candidates' answers are let go once there is a final answer. */
function fromMemory(run: LiveEarlier): EarlierRun {
  const { answer, answers } = run.texts();
  return {
    prompt: run.request.prompt,
    models: run.request.models,
    answers: run.request.models.map((_, i) => answers.get(i)),
    finalAnswer: answer,
  };
}
