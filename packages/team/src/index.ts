/**
 * Team mode's Postgres side: the schema, members and their tokens, budgets and usage, and the
 * engine that executes runs (DBOS, loaded only when the engine starts). The
 * main package loads this module only for `serve --http`, `users` and `usage` (src/team/load.ts),
 * so a local install never loads or installs `pg`.
 */
export { databaseUrl, isDown, LIMITS, openPool, reaching, shownUrl } from './database.js';
export { TeamError, type TeamErrorKind } from './errors.js';
export { migrate } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations.js';
export { refusalMessage, release, reserve, settle, type Reservation } from './budgets.js';
export {
  addMember,
  listMembers,
  memberByToken,
  newToken,
  PERIODS,
  revokeMember,
  setBudget,
  tokenHash,
  type MemberListing,
  type Period,
} from './members.js';
export { usage, type MemberUsage } from './usage.js';
export { closeSession, findSession, learnClientLimit, openSession, type Session } from './sessions.js';
export { addTask, findTask, listTasks, updateTask, type TaskPage, type TaskRow } from './tasks.js';
export { PgRunStorage, type PgRunStorageOptions, type StoreMember } from './store/pg-run-storage.js';
export { RunStoreError, type RunStoreErrorCode } from './store/errors.js';
export {
  startEngine,
  type DrainReport,
  type Engine,
  type EngineLogger,
  type EngineOptions,
  type RunFunction,
  type RunOutcome,
  type RunSteps,
  type StepRetries,
} from './engine/index.js';
