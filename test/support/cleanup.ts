import { afterAll } from 'vitest';
import { removeTempDirs } from './harness.js';

// Every test file's temporary folders go when the file is done.
afterAll(removeTempDirs);
