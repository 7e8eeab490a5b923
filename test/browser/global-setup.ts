import path from 'node:path';
import { buildUi } from '../../scripts/build-ui.js';

/** The pages as the package ships them (dist/ui), built from ui/ as it stands. */
export default async function setup(): Promise<void> {
  await buildUi(path.resolve(import.meta.dirname, '..', '..', 'dist', 'ui'));
}
