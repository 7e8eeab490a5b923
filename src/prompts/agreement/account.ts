import * as z from 'zod';
import { err, ok, type Result } from '../../result.js';

/** The account of agreement (SPEC §10) names models by their real ids, whatever label the synthesizer saw. */
export const agreementSchema = z.object({
  consensus: z.array(z.string()),
  disagreements: z.array(
    z.object({
      point: z.string(),
      positions: z.array(z.object({ models: z.array(z.string()), view: z.string() })),
      resolution: z.string(),
    }),
  ),
  unique: z.array(z.object({ model: z.string(), point: z.string(), kept: z.boolean() })),
});
export type Agreement = z.infer<typeof agreementSchema>;

export interface CandidateLabel {
  label: string;
  model: string;
}

/** Loose, so an extra field does no harm. */
const labels = z.array(z.union([z.string(), z.number()]));
const writtenSchema = z.object({
  consensus: z.array(z.string()).default([]),
  disagreements: z
    .array(
      z.object({
        point: z.string(),
        positions: z.array(z.object({ candidates: labels, view: z.string() })),
        resolution: z.string(),
      }),
    )
    .default([]),
  unique: z.array(z.object({ candidate: z.union([z.string(), z.number()]), point: z.string(), kept: z.boolean() })).default([]),
});

/** The JSON may sit in a code fence; a label that names no candidate is left out. */
export function readAgreement(section: string, shown: readonly CandidateLabel[]): Result<Agreement, string> {
  const start = section.indexOf('{');
  const end = section.lastIndexOf('}');
  if (start === -1 || end < start) return err('it holds no JSON object');
  const json = parseJson(section.slice(start, end + 1));
  return json.ok ? agreementFrom(json.value, shown) : json;
}

export function parseJson(text: string): Result<unknown, string> {
  try {
    return ok(JSON.parse(text));
  } catch (caught) {
    return err(`its JSON does not parse (${(caught as Error).message})`);
  }
}

/** The account as the synthesizer wrote it (candidates by label), with each label made the model's id. */
export function agreementFrom(json: unknown, shown: readonly CandidateLabel[]): Result<Agreement, string> {
  const parsed = writtenSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return err(`its JSON is not of the asked shape (${issue.path.join('.') || 'the object'}: ${issue.message})`);
  }
  const model = modelOf(shown);
  const models = (written: Array<string | number>) => [...new Set(written.flatMap((label) => model(label) ?? []))];
  const { consensus, disagreements, unique } = parsed.data;
  return ok({
    consensus,
    disagreements: disagreements.map(({ point, positions, resolution }) => ({
      point,
      positions: positions.map(({ candidates, view }) => ({ models: models(candidates), view })),
      resolution,
    })),
    unique: unique.flatMap(({ candidate, point, kept }) => {
      const id = model(candidate);
      return id === undefined ? [] : [{ model: id, point, kept }];
    }),
  });
}

/** A model may write "B", "Candidate B", 2 or "candidate 2". */
function modelOf(shown: readonly CandidateLabel[]): (written: string | number) => string | undefined {
  const byLabel = new Map(shown.map(({ label, model }) => [label.toUpperCase(), model]));
  return (written) => {
    const label = String(written)
      .trim()
      .replace(/^candidate\s+/i, '')
      .toUpperCase();
    return byLabel.get(label) ?? shown.find((candidate) => candidate.model === String(written).trim())?.model;
  };
}
