import { createRequire } from 'node:module';

/** The package's version, read from package.json beside src/ and dist/. */
export function packageVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('../package.json') as { version: string }).version;
}
