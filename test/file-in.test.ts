import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIn } from '../src/store/store.js';

describe('fileIn: where a run’s file is, as shown', () => {
  it('joins a folder’s path as the platform does, and keeps a database place’s URL whole', () => {
    expect(fileIn(path.join('/tmp', 'runs', 'R'), 'run.json')).toBe(path.join('/tmp', 'runs', 'R', 'run.json'));
    expect(fileIn('postgres://db.example:5432/team/runs/R', 'answer.md')).toBe('postgres://db.example:5432/team/runs/R/answer.md');
  });
});
