import type { CandidateReport, ModelError, RunReport } from './pipeline.js';
import { seconds } from './progress.js';
import { fairCaps } from './synthesis.js';
import type { StructuredResult } from './tool.js';
import type { TokenUsage } from './openrouter/client.js';

/** The report as the tool's structuredContent (snake_case, matching the output schema). */
export function structuredResult(report: RunReport): StructuredResult {
  const { synthesis } = report;
  return {
    status: report.status,
    answer: report.answer ?? null,
    run_folder: report.runDir ?? null,
    models: report.candidates.map(({ late: _late, ...candidate }) => candidate),
    synthesizer: {
      model: synthesis.model,
      status: synthesis.status,
      ...(synthesis.ms === undefined ? {} : { ms: synthesis.ms }),
      ...(synthesis.usage ? { usage: synthesis.usage } : {}),
      ...(synthesis.error ? { error: synthesis.error } : {}),
      ...(synthesis.promptChars === undefined ? {} : { prompt_chars: synthesis.promptChars }),
      trimmed: synthesis.trims.map((trim) => ({ model: trim.model, kept_chars: trim.keptChars, original_chars: trim.originalChars })),
      ...(synthesis.file ? { file: synthesis.file } : {}),
    },
    totals: report.totals,
    cut_off_models: cutOff(report).map((candidate) => candidate.model),
    warnings: report.warnings,
    budget_ms: report.budgetMs,
    elapsed_ms: report.elapsedMs,
  };
}

/**
 * The text a user reads: the answer first, then one short account of who answered,
 * who did not and why, what it cost and where everything is saved.
 */
export function resultText(report: RunReport, maxChars: number): string {
  return [resultHeadline(report, maxChars), resultFooter(report)].filter(Boolean).join('\n\n---\n');
}

/** The answer, or what stands in for it: the candidates, or why there is none. */
export function resultHeadline(report: RunReport, maxChars: number): string {
  switch (report.status) {
    case 'complete':
    case 'partial':
      return report.answer ?? '';
    case 'candidates_only':
      return candidatesOnly(report, maxChars);
    case 'cancelled':
      return 'The call was cancelled; every upstream request was stopped.';
    case 'failed':
      return failure(report);
  }
}

function candidatesOnly(report: RunReport, maxChars: number): string {
  const { synthesis } = report;
  const why = synthesis.error ? describeError(synthesis.error) : 'it did not run';
  const where = report.runDir ? `; they are also saved in ${report.runDir}` : '';
  const caps = fairCaps(report.answers.map((answer) => answer.content.length), maxChars);
  const bodies = report.answers.map((answer, i) => {
    const cap = caps[i]!;
    const body = answer.content.length > cap ? `${answer.content.slice(0, cap)}\n\n[... shortened; the full answer is in ${answer.file ?? 'the run folder'}]` : answer.content;
    return `## Candidate ${i + 1}: ${answer.model}\n\n${body}`;
  });
  return [`Synthesis with ${synthesis.model} did not succeed: ${why}. Here are the ${report.answers.length} candidate answers that arrived${where}.`, ...bodies].join('\n\n');
}

function failure(report: RunReport): string {
  const lines = report.candidates
    .filter((candidate) => candidate.status === 'failed')
    .map((candidate) => `- ${candidate.model}: ${describeError(candidate.error!)}`);
  return [`No model answered.`, ...lines].join('\n');
}

/** Who answered, who did not and why, the cost, and where everything is saved. */
export function resultFooter(report: RunReport): string {
  const answered = report.candidates.filter((c) => c.status === 'answered');
  const failed = report.candidates.filter((c) => c.status === 'failed');
  const late = cutOff(report);
  const lines = [
    `Models: ${answered.length} of ${report.candidates.length} answered${answered.length ? ` (${answered.map(timing).join(', ')})` : ''}.`,
  ];
  if (failed.length && report.status !== 'failed') {
    lines.push(`Failed: ${failed.map((c) => `${c.model}: ${describeError(c.error!)}`).join('; ')}`);
  }
  if (late.length) {
    const where = report.runDir ? `their answers will be saved in ${report.runDir} when they arrive` : 'saving is off, so their answers will not be kept';
    lines.push(`Cut off by the ${seconds(report.budgetMs)} time budget: ${late.map((c) => c.model).join(', ')}; still running, ${where}.`);
  }
  if (report.synthesis.status === 'answered') {
    lines.push(`Synthesized by ${report.synthesis.model} in ${seconds(report.synthesis.ms)}${report.synthesis.trims.length ? `, with ${report.synthesis.trims.length} long answer(s) trimmed to fit` : ''}.`);
  }
  lines.push(costLine(report.totals, report.elapsedMs));
  if (report.runDir) lines.push(`Run folder: ${report.runDir}`);
  for (const warning of report.warnings) lines.push(`Warning: ${warning}`);
  return lines.join('\n');
}

const timing = (candidate: CandidateReport) => `${candidate.model} ${seconds(candidate.ms)}${candidate.truncated ? ', cut at max_tokens' : ''}`;

const cutOff = (report: RunReport) => report.candidates.filter((candidate) => candidate.status === 'cut_off');

export function describeError(error: ModelError): string {
  const status = error.status === undefined ? '' : ` ${error.status}`;
  const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return `${error.kind}${status}: ${sentence}${error.advice ? ` ${error.advice}` : ''}`;
}

/** "Cost: $0.0123, 12,345 tokens (…), 48.2 s"; cost and tokens only where the API reported them. */
export function costLine(totals: TokenUsage, elapsedMs: number): string {
  const parts: string[] = [];
  parts.push(totals.cost === undefined ? 'cost not reported' : `$${totals.cost.toFixed(4)}`);
  if (totals.total_tokens !== undefined) {
    const detail = [
      totals.prompt_tokens === undefined ? undefined : `${totals.prompt_tokens.toLocaleString('en-US')} in`,
      totals.completion_tokens === undefined ? undefined : `${totals.completion_tokens.toLocaleString('en-US')} out`,
      totals.reasoning_tokens ? `${totals.reasoning_tokens.toLocaleString('en-US')} of them reasoning` : undefined,
    ].filter(Boolean);
    parts.push(`${totals.total_tokens.toLocaleString('en-US')} tokens${detail.length ? ` (${detail.join(', ')})` : ''}`);
  }
  parts.push(seconds(elapsedMs));
  return `Cost: ${parts.join(', ')}.`;
}
