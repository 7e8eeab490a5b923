import { AGREEMENT_MARKER } from './section.js';

/**
 * Asks for the account of agreement (SPEC §10) in the same request, after the answer: a section
 * there works with every model and leaves the answer as plain text that streams as it always did.
 */
export function agreementTask(labels: readonly string[]): string {
  const [first = '1', second = first] = labels;
  return [
    '',
    'After the answer, add an account of the candidates for the user. ' +
      `Write a line with exactly ${AGREEMENT_MARKER} and nothing else, then one JSON object, and nothing after it:`,
    '{"consensus": ["<a point every candidate, or nearly every one, agrees on>"],',
    ` "disagreements": [{"point": "<what they disagree on>", "positions": [{"candidates": ["${first}"], "view": "<what they say>"}, {"candidates": ["${second}"], "view": "<what they say>"}], "resolution": "<what your answer concludes, and why>"}],`,
    ` "unique": [{"candidate": "${first}", "point": "<a point only this candidate raised>", "kept": true}]}`,
    `Name candidates by their labels (${labels.join(', ')}). Keep each text to one short sentence and list only what matters: ` +
      'at most 5 consensus points, 5 disagreements and 5 unique points; use empty lists where there are none. ' +
      'Set "kept" to whether your answer uses that point. The answer above the marker must stand on its own and never mention the account.',
  ].join('\n');
}

/** At most; the cost ceiling counts them. */
export const AGREEMENT_PROMPT_TOKENS = 400;
