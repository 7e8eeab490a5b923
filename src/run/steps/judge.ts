import type { RunStatus, VerdictRecord } from '../record.js';
import { buildJudgePrompt, parseJudgeReply, type JudgeVerdict } from '../strategies/judge.js';
import type { StepContext } from './context.js';
import { finalStep } from './final.js';

/**
 * The `judge` strategy: the synthesizer (with its fallbacks) reads the answers anonymised, in
 * the run's shuffled order, and picks one; final.md is the chosen answer with its fixes, and
 * the verdict names the candidate's model and the reason.
 */
export function judgeStep(context: StepContext): Promise<RunStatus> {
  const { run, deps, problem, answers } = context;
  const prompt = buildJudgePrompt(problem, answers, run.id, deps.synthesisMaxChars);
  return finalStep(context, prompt, (reply) => {
    const verdict = parseJudgeReply(reply, prompt.shown);
    for (const warning of verdict.warnings) run.warn(warning);
    return { answer: verdict.answer, verdict: verdictRecord(verdict) };
  });
}

function verdictRecord(verdict: JudgeVerdict): VerdictRecord {
  const { choice, reason, warnings } = verdict;
  return {
    ...(choice ? { choice_index: choice.index + 1, choice_model: choice.model } : {}),
    ...(reason === undefined ? {} : { reason }),
    warnings,
  };
}
