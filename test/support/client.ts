import { pino } from 'pino';
import { OpenRouterClient, type ClientOptions } from '../../src/openrouter/client.js';
import { VALID_KEY } from './fake-openrouter.js';

export const silentLogger = pino({ level: 'silent' });

/** A real client pointed at the fake, with short limits so tests run in milliseconds. */
export function testClient(url: string, overrides: Partial<ClientOptions> = {}): OpenRouterClient {
  return new OpenRouterClient({
    apiKey: VALID_KEY,
    baseUrl: url,
    timeoutMs: 5000,
    idleTimeoutMs: 2000,
    maxConnections: 5,
    logger: silentLogger,
    retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 50 },
    ...overrides,
  });
}
