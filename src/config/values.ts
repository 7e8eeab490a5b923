import path from 'node:path';
import * as z from 'zod';
import { API_KEY_SHAPE } from './api-key.js';

/** The kinds of value an environment variable of the configuration holds, each read leniently and checked strictly. */
export const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

export const integer = (min: number, max = Number.MAX_SAFE_INTEGER, whyMax = '') =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}${whyMax}` })
      .optional(),
  );

/** Node's timers hold at most 2^31-1 ms (about 24.8 days); a larger value would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
export const duration = () => integer(1, MAX_TIMER_MS);

export const modelList = z.preprocess(
  blankToUndefined,
  z
    .string()
    .transform((list) =>
      list
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    )
    .refine((ids) => ids.length > 0, { error: 'must name at least one model id' })
    .refine((ids) => !ids.some((id) => API_KEY_SHAPE.test(id)), {
      error: 'holds what looks like an API key: the key goes in OPENROUTER_API_KEY, model ids here',
    })
    .optional(),
);

/** A word in any case, around any spaces: lowered and trimmed (blank is unset). */
const lowerTrimmed = (value: unknown) => (typeof value === 'string' ? blankToUndefined(value.trim().toLowerCase()) : value);

/** One of `values`, in any case, around any spaces. */
export const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(lowerTrimmed, z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional());

export const booleanFlag = z.preprocess(
  lowerTrimmed,
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
    .transform((flag) => ['true', '1', 'yes'].includes(flag))
    .optional(),
);

/** A folder, as an absolute path: clients often start servers in `/`, so a relative one would be relative to what? */
export const absoluteDir = z.preprocess(
  blankToUndefined,
  z
    .string()
    .refine((dir) => path.isAbsolute(dir), { error: 'must be an absolute path' })
    .optional(),
);
