import type pg from 'pg';
import type { RunStorage } from '../store/store.js';
import type { Team } from './load.js';

/** Who a request is from: a member of the team database. */
export interface Member {
  id: string;
  name: string;
}

/**
 * One member's run store in team mode, on the team package loaded at run time. The team package
 * implements the store seam structurally (it imports nothing of this package), so this return
 * type is where the compiler checks that it keeps to the seam: a change to either that breaks it
 * fails `tsc` here.
 */
export function memberRunStorage(team: Team, pool: pg.Pool, member: Member): RunStorage {
  return new team.PgRunStorage(pool, member);
}
