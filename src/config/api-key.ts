/**
 * What an API key looks like (OpenRouter's `sk-or-v1-…`, and other vendors' `sk-…`): a model id
 * never does, and a key pasted by mistake where a model id belongs must never be written to a
 * run's journal, a file name or a log.
 */
export const API_KEY_SHAPE = /\bsk-[A-Za-z0-9][A-Za-z0-9_-]{19,}/;
