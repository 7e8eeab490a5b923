import { isPlainObject } from '../text/plain-object.js';
import { badBody } from './error-map.js';
import { completionBodySchema, type CompletionBody } from './schemas.js';

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badBody(`the answer was not JSON: ${JSON.stringify(text.slice(0, 120))}`);
  }
}

/**
 * One whole completion, or one stream chunk, checked against the documented shape. Nearly
 * every chunk has the plain shape, recognised in a few checks; anything else (content as
 * parts, an error, a field of a wrong type) goes through the schema, which decides as always.
 */
export function parseBody(text: string): CompletionBody {
  const json = parseJson(text);
  if (isPlainBody(json)) return json;
  const parsed = completionBodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badBody(`the answer did not have the documented shape (${issue?.path.join('.')}: ${issue?.message})`);
  }
  return parsed.data;
}

/**
 * A body the schema would accept as it is: an object with no error, string (or absent) ids,
 * and choices whose parts hold plain strings. Unknown fields pass, as in the loose schema.
 */
function isPlainBody(value: unknown): value is CompletionBody {
  if (!isPlainObject(value) || value.error != null) return false;
  if (!isOptionalString(value.id) || !isOptionalString(value.model) || !isOptionalString(value.provider)) return false;
  const choices = value.choices;
  if (choices == null) return true;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) if (!isPlainChoice(choice)) return false;
  return true;
}

function isPlainChoice(choice: unknown): boolean {
  return (
    isPlainObject(choice) &&
    choice.error == null &&
    isOptionalString(choice.finish_reason) &&
    isPlainPart(choice.delta) &&
    isPlainPart(choice.message)
  );
}

function isPlainPart(part: unknown): boolean {
  if (part == null) return true;
  return (
    isPlainObject(part) && isOptionalString(part.content) && isOptionalString(part.reasoning) && isOptionalString(part.reasoning_content)
  );
}

const isOptionalString = (value: unknown) => value == null || typeof value === 'string';
