import { monotonicNow } from '../../clock.js';
import type { Completion } from '../../openrouter/client.js';
import { agreementResponseFormat, type AgreementFormat } from '../../prompts/agreement/prompt.js';
import { replyReader } from '../../prompts/agreement/reply.js';
import { asUpstreamError } from '../fanout.js';
import type { RunStatus, VerdictRecord } from '../record.js';
import { buildJudgePrompt, parseJudgeReply, type JudgeVerdict } from '../../prompts/judge.js';
import { buildSynthesisPrompt, type BoundedPrompt } from '../../prompts/synthesis.js';
import { modelError, stepChat, stoppedStatus, type RunDeps, type StepContext } from './context.js';

type ReadReply = (reply: string) => { answer: string; verdict: VerdictRecord };

/** One prompt, or, where the account of agreement is asked, the prompt that asks it in a format. */
export type FinalPrompt = BoundedPrompt | ((agreement: AgreementFormat) => BoundedPrompt);

export function synthesizeStep(context: StepContext): Promise<RunStatus> {
  const { answers, reasonings, problem, deps, run } = context;
  const inputs = [...answers, ...reasonings].sort((a, b) => a.index - b.index);
  const prompt = (agreement?: AgreementFormat) => buildSynthesisPrompt(problem, inputs, deps.synthesisMaxChars, agreement);
  return finalStep(context, run.request.agreement === false ? prompt() : prompt);
}

/** final.md is the chosen answer with its fixes; the verdict names the candidate's model and the reason. */
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

/** Each synthesizer in turn until one answers, at the front of the limiter's queue: a run near its end must not wait behind new ones. */
export async function finalStep({ run, deps, log, answers }: StepContext, asked: FinalPrompt, read?: ReadReply): Promise<RunStatus> {
  const stopped = stoppedStatus(run);
  if (stopped) return stopped;
  const allAnswered = answers.length === run.request.models.length;
  for (const model of run.request.synthesizers) {
    const { prompt, agreement } = await promptFor(asked, model, deps);
    const trimmed = prompt.trims.map((trim) => ({ model: trim.model, kept_chars: trim.keptChars, original_chars: trim.originalChars }));
    run.synthesizing(model, prompt.text.length, trimmed);
    log.info({ phase: 'synthesis', strategy: run.request.strategy, model, promptChars: prompt.text.length, agreement }, 'synthesizing');
    let started = monotonicNow();
    const reader = prompt.agreement && agreement && replyReader(prompt.agreement, agreement);
    const chat = stepChat(run, model, prompt.text);
    if (prompt.agreement && agreement === 'json') chat.responseFormat = agreementResponseFormat(prompt.agreement.map(({ label }) => label));
    try {
      const replied: Completion = await deps.limiter.run(
        () => {
          started = monotonicNow();
          return deps.client.complete(chat, { signal: run.signal, ...(reader && { sink: reader.sink }) });
        },
        { signal: run.signal, urgent: true },
      );
      const ms = Math.round(monotonicNow() - started);
      const told = reader?.read(model, replied);
      const completion = told ? { ...replied, content: told.answer } : replied;
      const judged = read?.(completion.content);
      log.info({ phase: 'synthesis', model, ms, tokens: completion.usage?.total_tokens, cost: completion.usage?.cost }, 'synthesis done');
      const chars = judged?.answer.length ?? completion.content.length;
      if (told) run.accountOfAgreement(told.agreement, told.warning);
      run.synthesisAttempt(
        { model, status: 'answered', ms, chars, ...(completion.usage ? { usage: completion.usage } : {}) },
        completion,
        judged,
      );
      return allAnswered ? 'complete' : 'partial';
    } catch (caught) {
      const stoppedNow = stoppedStatus(run);
      if (stoppedNow) return stoppedNow;
      const error = modelError(asUpstreamError(caught, run.signal));
      log.warn({ phase: 'synthesis', model, error }, `synthesis failed: ${error.message}`);
      run.synthesisAttempt({ model, status: 'failed', ms: Math.round(monotonicNow() - started), error });
    }
  }
  return 'candidates_only';
}

/** Structured output where the synthesizer's model takes it, as GET /models says; else, or when that cannot be read, the section. */
async function promptFor(
  asked: FinalPrompt,
  model: string,
  deps: RunDeps,
): Promise<{ prompt: BoundedPrompt; agreement?: AgreementFormat }> {
  if (typeof asked !== 'function') return { prompt: asked };
  const agreement = (await deps.structuredOutput?.(model)) ? 'json' : 'section';
  return { prompt: asked(agreement), agreement };
}
