import type { ModelPrice, PriceLookup } from '../openrouter/prices.js';
import { AGREEMENT_PROMPT_TOKENS } from '../prompts/agreement/prompt.js';
import { COUNCIL_MIN_CANDIDATES } from '../prompts/council.js';
import type { Strategy } from '../config/choices.js';

// The most a call can cost, before it is made (SPEC §10): every model answers with all its
// `max_tokens`, each priced at the higher of the completion and reasoning prices.

/** Prose runs about 4 ASCII characters per token and code about 3, so 3 overestimates; other characters count one each. */
export const CHARS_PER_TOKEN = 3;
/** The instructions, labels and ranking a step wraps around the answers it reads. */
export const STEP_FRAME_TOKENS = 1_500;

export interface CostPlan {
  strategy: Strategy;
  /** A model may repeat, and each repeat is billed. */
  models: string[];
  synthesizers: string[];
  /** For a follow-up, the longest conversation any model gets. */
  input: string;
  maxTokens: number;
  /** No step's prompt is longer, and a character is at most a token. */
  stepMaxChars: number;
  /** 0-based positions whose answers were saved before a stop: not paid again. */
  saved?: readonly number[];
  agreement?: boolean;
}

type StepKind = 'candidate' | 'ranking' | 'synthesis' | 'judge';

interface StepEstimate {
  kind: StepKind;
  model: string;
  index?: number;
  promptTokens: number;
  outputTokens: number;
  usd: number | undefined;
}

interface ModelEstimate {
  model: string;
  usd: number;
  steps: number;
}

export interface WorstCase {
  strategy: Strategy;
  steps: StepEstimate[];
  /** Per model id (repeats added up), dearest first; priced models only. */
  perModel: ModelEstimate[];
  /** Of the priced steps: a lower bound while `unpriced` is not empty. */
  totalUsd: number;
  unpriced: Array<{ model: string; reason: string }>;
}

export type PriceSource = { lookup(model: string): PriceLookup };

export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / CHARS_PER_TOKEN) + other;
}

export function worstCase(plan: CostPlan, prices: PriceSource): WorstCase {
  return estimate(shapeOf(plan), prices);
}

/** A plan with its input counted in tokens once, for estimating it many times over. */
export type PlanShape = Omit<CostPlan, 'input' | 'stepMaxChars'> & { inputTokens: number; stepMaxTokens: number };

export function shapeOf({ input, stepMaxChars, ...plan }: CostPlan): PlanShape {
  return { ...plan, inputTokens: estimateTokens(input), stepMaxTokens: stepMaxChars };
}

export function estimate(shape: PlanShape, prices: PriceSource): WorstCase {
  const unpriced = new Map<string, string>();
  const priced = (step: PlannedStep): StepEstimate => {
    const lookup = prices.lookup(step.model);
    if (!lookup.ok) unpriced.set(step.model, lookup.reason);
    const usd = lookup.ok ? stepUsd(lookup.price, step.promptTokens, shape.maxTokens) : undefined;
    return { ...step, outputTokens: shape.maxTokens, usd };
  };
  const { answering, finals } = plannedSteps(shape);
  const steps = answering.map(priced);
  const final = dearest(finals.map(priced));
  if (final) steps.push(final);
  return {
    strategy: shape.strategy,
    steps,
    perModel: perModel(steps),
    totalUsd: steps.reduce((total, step) => total + (step.usd ?? 0), 0),
    unpriced: [...unpriced].map(([model, reason]) => ({ model, reason })),
  };
}

type PlannedStep = Omit<StepEstimate, 'outputTokens' | 'usd'>;

function plannedSteps(shape: PlanShape): { answering: PlannedStep[]; finals: PlannedStep[] } {
  const count = shape.models.length;
  const reading = (answers: number) => Math.min(shape.inputTokens + STEP_FRAME_TOKENS + answers * shape.maxTokens, shape.stepMaxTokens);
  const asked = (index: number) => !shape.saved?.includes(index);
  const answering: PlannedStep[] = shape.models.flatMap((model, index) =>
    asked(index) ? [{ kind: 'candidate' as const, model, index, promptTokens: shape.inputTokens }] : [],
  );
  if (shape.strategy === 'council' && count >= COUNCIL_MIN_CANDIDATES) {
    for (const [index, model] of shape.models.entries()) {
      answering.push({ kind: 'ranking', model, index, promptTokens: reading(count - 1) });
    }
  }
  const kind: StepKind = shape.strategy === 'judge' ? 'judge' : 'synthesis';
  // The account is written within max_tokens, already priced; only its instructions lengthen the prompt.
  const account = kind === 'synthesis' && shape.agreement !== false ? AGREEMENT_PROMPT_TOKENS : 0;
  const promptTokens = Math.min(reading(count) + account, shape.stepMaxTokens);
  return { answering, finals: shape.synthesizers.map((model) => ({ kind, model, promptTokens })) };
}

function stepUsd(price: ModelPrice, promptTokens: number, outputTokens: number): number {
  return promptTokens * price.prompt + outputTokens * Math.max(price.completion, price.reasoning) + price.request;
}

/** Any synthesizer may end up answering, so the dearest priced one counts. */
function dearest(steps: StepEstimate[]): StepEstimate | undefined {
  const priced = steps.filter((step) => step.usd !== undefined);
  if (priced.length === 0) return steps[0];
  return priced.reduce((worst, next) => (next.usd! > worst.usd! ? next : worst));
}

function perModel(steps: StepEstimate[]): ModelEstimate[] {
  const byModel = new Map<string, ModelEstimate>();
  for (const { model, usd } of steps) {
    if (usd === undefined) continue;
    const entry = byModel.get(model) ?? { model, usd: 0, steps: 0 };
    byModel.set(model, { model, usd: entry.usd + usd, steps: entry.steps + 1 });
  }
  return [...byModel.values()].sort((a, b) => b.usd - a.usd);
}
