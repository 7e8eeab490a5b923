import path from 'node:path';
import type { CandidateRecord, RunState } from '../run/record.js';
import type { Joined, RunView } from '../run/service.js';
import { headline } from './headline.js';
import type { Shown } from './shown.js';
import { costLine } from './cost.js';
import { reasoningLine, settingsLine, strategyLines } from './strategy.js';
import { count, describeError, seconds } from './words.js';

/**
 * The text of a result: the first line says what the user got, then the answer (or what
 * stands in for it), then a short account of every model, the cost and where it is saved.
 * `withAnswers: false` leaves the answers out, for clients that read them elsewhere.
 */
export function resultText(view: RunView, shown: Shown, options: TextOptions): string {
  const body = options.withAnswers ? answersText(view.state, shown) : '';
  return [headline(view.state, options.poll, options.joined), body, options.agreement, `---\n${footer(view, options)}`]
    .filter(Boolean)
    .join('\n\n');
}

export interface TextOptions {
  /** False: the answers are left out, for clients that read them from structuredContent. */
  withAnswers: boolean;
  joined?: Joined | undefined;
  poll?: number | undefined;
  notice?: string | undefined;
  /** The account of agreement's lines (present/agreement.ts), shown after the answer. */
  agreement?: string | undefined;
}

/** The answer, or what stands in for it: the candidates' answers, or why there are none. */
export function answersText(record: RunState, shown: Shown): string {
  if (shown.answer) return shown.answer.text;
  if (record.status === 'failed') return failures(record.candidates);
  return [...shown.candidates.entries()]
    .map(([index, text]) => `## Candidate ${index + 1}: ${record.candidates[index]!.model}\n\n${text.text}`)
    .join('\n\n');
}

function failures(candidates: CandidateRecord[]): string {
  return candidates
    .flatMap((candidate) => (candidate.status === 'failed' ? [`- ${candidate.model}: ${describeError(candidate.error)}`] : []))
    .join('\n');
}

/** Who answered, who did not and why, who synthesized, the cost, and where everything is. */
export function footer(view: RunView, { joined, notice }: Pick<TextOptions, 'joined' | 'notice'> = {}): string {
  const { state: record } = view;
  const answered = record.candidates.filter((candidate) => candidate.status === 'answered');
  const failed = record.candidates.filter((candidate) => candidate.status === 'failed');
  const waiting = record.candidates.filter((candidate) => candidate.status === 'waiting');
  const lines = [
    `Models: ${answered.length} of ${count(record.candidates.length, 'model')} answered${answered.length ? ` (${answered.map(timing).join(', ')})` : ''}.`,
  ];
  if (record.status !== 'failed') {
    for (const candidate of failed) {
      if (candidate.status !== 'failed') continue;
      const reasoning = candidate.reasoning_to_synthesis ? ' Its reasoning went to the synthesizer in place of an answer.' : '';
      lines.push(`Failed: ${candidate.model}: ${describeError(candidate.error)}${reasoning}`);
    }
  }
  if (waiting.length > 0)
    lines.push(`${record.status === 'running' ? 'Still asking' : 'Not answered'}: ${waiting.map((c) => c.model).join(', ')}.`);
  lines.push(...strategyLines(record));
  const synthesis = synthesisLine(record);
  if (synthesis) lines.push(synthesis);
  for (const line of [reasoningLine(record), settingsLine(record)]) if (line) lines.push(line);
  lines.push(costLine(record, joined));
  lines.push(view.dir ? `Run ${record.run_id}, saved in ${view.dir}` : `Run ${record.run_id} (not saved to disk)`);
  for (const warning of [...record.warnings, ...(notice ? [notice] : [])]) lines.push(`Warning: ${warning}`);
  return lines.join('\n');
}

const timing = (candidate: CandidateRecord) =>
  `${candidate.model} ${candidate.status === 'answered' && candidate.ms !== undefined ? seconds(candidate.ms) : 'saved'}${candidate.status === 'answered' ? cutNote(candidate) : ''}`;

/** How an answer ended short of its end: at max_tokens, or stopped by us at the stored-answer cap. */
const cutNote = (candidate: { truncated?: boolean; cut_short?: string }) =>
  candidate.cut_short ? `, ${candidate.cut_short}` : candidate.truncated ? ', cut at max_tokens' : '';

/** Who synthesized, and why the synthesizers before it did not. */
function synthesisLine(record: RunState): string | undefined {
  const { synthesis } = record;
  const failed = synthesis.attempts.flatMap((attempt) =>
    attempt.status === 'failed' ? [`${attempt.model} failed: ${describeError(attempt.error)}`] : [],
  );
  const answered = synthesis.attempts.find((attempt) => attempt.status === 'answered');
  const before = failed.length > 0 ? ` Before it, ${failed.join(' ')}` : '';
  if (answered) {
    const trimmed = synthesis.trimmed?.length ? `, with ${count(synthesis.trimmed.length, 'long answer')} trimmed to fit` : '';
    return `${synthesis.verdict ? 'Judged' : 'Synthesized'} by ${answered.model} in ${seconds(answered.ms)}${trimmed}.${before}`;
  }
  if (synthesis.status === 'running') return `Synthesizing with ${synthesis.model}.${before}`;
  return failed.length > 0 ? `Synthesis failed: ${failed.join(' ')}` : undefined;
}

export const inFolder = (dir: string | undefined, file: string | undefined) => (dir && file ? path.join(dir, file) : null);
