import { AGREEMENT_MARKER } from './section.js';

/**
 * How the account of agreement (SPEC §10) is asked, in the synthesis request itself: `json`, the
 * answer and the account as one object of a JSON schema sent as `response_format`, for a model
 * that takes structured output; `section`, after the answer a marked section any model can write.
 */
export type AgreementFormat = 'json' | 'section';

export function agreementTask(labels: readonly string[], format: AgreementFormat): string {
  const [first = '1', second = first] = labels;
  const account = [
    '{"consensus": ["<a point every candidate, or nearly every one, agrees on>"],',
    ` "disagreements": [{"point": "<what they disagree on>", "positions": [{"candidates": ["${first}"], "view": "<what they say>"}, {"candidates": ["${second}"], "view": "<what they say>"}], "resolution": "<what your answer concludes, and why>"}],`,
    ` "unique": [{"candidate": "${first}", "point": "<a point only this candidate raised>", "kept": true}]}`,
  ];
  const rules =
    `Name candidates by their labels (${labels.join(', ')}). Keep each text to one short sentence and list only what matters: ` +
    'at most 5 consensus points, 5 disagreements and 5 unique points; use empty lists where there are none. ' +
    'Set "kept" to whether your answer uses that point.';
  if (format === 'section') {
    return [
      '',
      'After the answer, add an account of the candidates for the user. ' +
        `Write a line with exactly ${AGREEMENT_MARKER} and nothing else, then one JSON object, and nothing after it:`,
      ...account,
      `${rules} The answer above the marker must stand on its own and never mention the account.`,
    ].join('\n');
  }
  return [
    '',
    'Reply with one JSON object of the given schema and nothing else: {"answer": "<your answer, in Markdown, as one JSON string>", ' +
      '"agreement": <an account of the candidates for the user>}, where the account is:',
    ...account,
    `${rules} The answer must stand on its own and never mention the account.`,
  ].join('\n');
}

/** The schema of the reply in the `json` format: the answer first, so that it streams first. Strict: every field required, no others. */
export function agreementResponseFormat(labels: readonly string[]): Record<string, unknown> {
  const text = { type: 'string' };
  const label = { type: 'string', enum: [...labels] };
  const list = (items: object) => ({ type: 'array', items });
  const object = (properties: Record<string, object>) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });
  const account = object({
    consensus: list(text),
    disagreements: list(object({ point: text, positions: list(object({ candidates: list(label), view: text })), resolution: text })),
    unique: list(object({ candidate: label, point: text, kept: { type: 'boolean' } })),
  });
  return {
    type: 'json_schema',
    json_schema: { name: 'synthesis', strict: true, schema: object({ answer: text, agreement: account }) },
  };
}

/** At most, for either format and 20 candidates, the schema sent as `response_format` included; the cost ceiling counts them. */
export const AGREEMENT_PROMPT_TOKENS = 800;
