/**
 * The two parts of undici the client uses, as named ESM exports. The client imports this module
 * lazily, so the bundle puts it and undici in a chunk of their own, loaded on the first request;
 * importing undici itself lazily would give a bundled chunk with a default export only.
 */
export { Agent, request } from 'undici';
