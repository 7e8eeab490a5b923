import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StructuredResult } from './output-schema.js';
import { STATUS } from '../run/status.js';
import type { Joined } from '../run/service.js';
import type { RunView } from '../run/service.js';
import type { StartRefusal } from '../run/start-refusal.js';
import { agreementText } from './agreement.js';
import { refusalText } from './refusal.js';
import { shownTexts } from './shown.js';
import { structuredResult } from './structured.js';
import { resultText } from './text.js';

/**
 * Where a result carries the answers. Some clients give their model only the text content,
 * others only structuredContent; a client known to read one side gets the answers there
 * alone, and any other client gets them on both sides, so that none loses them.
 */
export type Layout = StructuredResult['answers_in'];

export interface ResultOptions {
  /** The most answer text one result carries (PARALLEL_LLM_MAX_ANSWER_CHARS). */
  maxAnswerChars: number;
  layout: Layout;
  joined?: Joined;
  budgetMs?: number;
  /** What the next get_run passes as `poll`, while the run is still going. */
  poll?: number;
  /** Said once per session: how runs execute, where that is not as usual. */
  notice?: string;
}

/** A run as a tool result: the same facts as text and as fields, the answers where the client reads them. */
export function toolResult(view: RunView, options: ResultOptions): CallToolResult {
  // The account of agreement shares the answer's cap (a quarter at most), so the result stays within the client's limit.
  const agreement = agreementText(view.state, Math.floor(options.maxAnswerChars / 4));
  const shown = shownTexts(view, options.maxAnswerChars - agreement.length);
  const said = { joined: options.joined, poll: options.poll, notice: options.notice };
  const text = resultText(view, shown, { ...said, withAnswers: options.layout !== 'structured_content', agreement });
  const structuredContent = structuredResult(view, shown, {
    ...said,
    withAnswers: options.layout !== 'content',
    answersIn: options.layout,
    budgetMs: options.budgetMs,
  });
  return { content: [{ type: 'text', text }], structuredContent, isError: STATUS[view.state.status].isError };
}

/** A call that started no run: an error result in words alone (no run, so none of the output schema's fields apply). */
export function refusalResult(refusal: StartRefusal): CallToolResult {
  return { content: [{ type: 'text', text: refusalText(refusal) }], isError: true };
}

/** A result's first line: what it holds, or why it is an error. */
export const firstLine = (result: CallToolResult): string => {
  const first = result.content[0];
  return first?.type === 'text' ? first.text.split('\n', 1)[0]! : '';
};
