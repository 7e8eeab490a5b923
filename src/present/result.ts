import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StructuredResult } from './output-schema.js';
import type { Joined } from '../run/runs.js';
import type { RunView } from '../run/view.js';
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
}

/** A run as a tool result: the same facts as text and as fields, the answers where the client reads them. */
export function toolResult(view: RunView, options: ResultOptions): CallToolResult {
  const shown = shownTexts(view, options.maxAnswerChars);
  const text = resultText(view, shown, options.layout !== 'structured_content');
  const structuredContent = structuredResult(view, shown, {
    withAnswers: options.layout !== 'content',
    answersIn: options.layout,
    joined: options.joined,
    budgetMs: options.budgetMs,
  });
  const { status } = view.record;
  return { content: [{ type: 'text', text }], structuredContent, isError: status === 'failed' || status === 'cancelled' };
}
