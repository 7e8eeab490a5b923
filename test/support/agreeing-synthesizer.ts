import { AGREEMENT_MARKER } from '../../src/prompts/agreement/section.js';
import type { Behaviour, RecordedRequest } from './fake-openrouter.js';

/**
 * A synthesizer stand-in that does what the synthesis request asks: sent a `response_format`, it
 * answers with one JSON object, `answer` and the account; when the prompt asks for the section,
 * it writes `answer`, the marker line and the account; otherwise `answer` alone. The account names
 * candidates by the labels the prompt lists, L1 … Ln (unless `account` writes another): all agree
 * on "the problem is real"; L1 differs from the rest on "the fix"; Ln alone raised "an edge case", kept.
 */
export function agreeingSynthesizer(
  answer: string,
  { account = accountFor, ...options }: { delayMs?: number; chunks?: number; account?: Account } = {},
): Behaviour {
  return { fromRequest: (request) => ({ answer: agreeingReply(answer, request, account), ...options }) };
}

/** The account written for the labels the prompt lists, naming candidates by label. */
type Account = (labels: string[]) => object;

/** The reply to `request`: `answer`, and the account in the format asked, if one is. */
export function agreeingReply(answer: string, request: RecordedRequest, account: Account = accountFor): string {
  const labels = askedLabels(promptOf(request));
  if (!labels) return answer;
  if (request.body.response_format) return JSON.stringify({ answer, agreement: account(labels) });
  return `${answer}\n\n${AGREEMENT_MARKER}\n${JSON.stringify(account(labels))}`;
}

/** The account the stand-in writes for these labels, as the synthesizer writes it (by label). */
export function accountFor(labels: string[]) {
  const [first, ...rest] = labels;
  return {
    consensus: ['the problem is real'],
    disagreements:
      rest.length > 0
        ? [
            {
              point: 'the fix',
              positions: [
                { candidates: [first], view: 'patch it' },
                { candidates: rest, view: 'rewrite it' },
              ],
              resolution: 'patch it now, rewrite later',
            },
          ]
        : [],
    unique: [{ candidate: labels.at(-1), point: 'an edge case', kept: true }],
  };
}

/** The labels the prompt asks the account to name candidates by, or undefined when it asks for no account. */
export function askedLabels(prompt: string): string[] | undefined {
  const listed = /by their labels \(([^)]*)\)/.exec(prompt);
  return listed?.[1]?.split(', ');
}

export function promptOf(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ content: string }>;
  return messages.at(-1)!.content;
}
