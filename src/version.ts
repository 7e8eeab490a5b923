import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The package's version, read from package.json beside src/ and dist/. */
export function packageVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('../package.json') as { version: string }).version;
}

/** The README that came with this copy of the package (beside src/ and dist/): the one page every install has. */
export function readmePath(): string {
  return fileURLToPath(new URL('../README.md', import.meta.url));
}

/** A file the package ships, by its path from the package's folder (beside src/ and dist/). */
export function packageFile(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}
