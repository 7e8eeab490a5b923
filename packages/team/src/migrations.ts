/**
 * The schema, as numbered migrations applied in order (migrate.ts): each runs in one
 * transaction with its row in plm.schema_migrations. A migration, once released, is never
 * edited; a change is a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'members, budget periods and runs',
    sql: `
-- A budget period is a calendar period in UTC: a day from 00:00, an ISO week from Monday, a month from the 1st.
CREATE FUNCTION plm.period_start(period text, at timestamptz) RETURNS timestamptz
  LANGUAGE sql STABLE STRICT
  AS $$ SELECT date_trunc(period, at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;
CREATE FUNCTION plm.period_end(period text, at timestamptz) RETURNS timestamptz
  LANGUAGE sql STABLE STRICT
  AS $$ SELECT (date_trunc(period, at AT TIME ZONE 'UTC') + ('1 ' || period)::interval) AT TIME ZONE 'UTC' $$;

CREATE TABLE plm.members (
  id bigserial PRIMARY KEY,
  name text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'),
  -- sha256 of the bearer token; the token itself is shown once and never stored.
  token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
  budget_usd numeric(14, 6) CHECK (budget_usd >= 0),
  period text NOT NULL DEFAULT 'month' CHECK (period IN ('day', 'week', 'month')),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- One row per member and period: what is spent (settled runs) and reserved (runs going on).
-- A reservation is one conditional UPDATE of this row, so processes racing for it queue on its lock.
CREATE TABLE plm.budget_periods (
  member_id bigint NOT NULL REFERENCES plm.members (id),
  period_start timestamptz NOT NULL,
  spent_usd numeric(14, 6) NOT NULL DEFAULT 0,
  reserved_usd numeric(14, 6) NOT NULL DEFAULT 0,
  PRIMARY KEY (member_id, period_start)
);

-- Every run, which is also the audit: who asked, when, which models, what it reserved and cost.
CREATE TABLE plm.runs (
  id text PRIMARY KEY,
  member_id bigint NOT NULL REFERENCES plm.members (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL DEFAULT 'running',
  models text[] NOT NULL DEFAULT '{}',
  period_start timestamptz NOT NULL,
  reserved_usd numeric(14, 6) NOT NULL,
  cost_usd numeric(14, 6),
  tokens bigint,
  settled_at timestamptz
);
CREATE INDEX runs_member_created ON plm.runs (member_id, created_at);
`,
  },
  {
    version: 2,
    name: 'MCP sessions',
    sql: `
-- An MCP session over HTTP, kept here rather than in one process's memory so any process serves
-- any request of it; it belongs to the member who opened it and answers no one else.
CREATE TABLE plm.mcp_sessions (
  id uuid PRIMARY KEY,
  member_id bigint NOT NULL REFERENCES plm.members (id),
  protocol_version text NOT NULL,
  client_capabilities jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz
);
`,
  },
  {
    version: 3,
    name: 'the run store: places, texts and request claims',
    sql: `
-- A run's place in the store (store/pg-run-storage.ts). Its row is made by whichever comes
-- first, the budget's reservation or the store's createRun; stored_at says the store made it.
ALTER TABLE plm.runs ADD COLUMN stored_at timestamptz;
-- Run ids sort by time byte by byte: "C" whatever the database's collation.
CREATE INDEX runs_member_stored ON plm.runs (member_id, id COLLATE "C") WHERE stored_at IS NOT NULL;

-- A run's texts: run.json, answers, final answers. A text streams in as chunks of a row that is
-- not complete yet and replaces the complete one of its name only once whole, so readers see
-- the old text or the new, never half; chunks are only appended, never rewritten.
CREATE TABLE plm.run_files (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL REFERENCES plm.runs (id) ON DELETE CASCADE,
  name text NOT NULL,
  complete boolean NOT NULL DEFAULT false,
  bytes bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX run_files_run ON plm.run_files (run_id);
CREATE UNIQUE INDEX run_files_whole ON plm.run_files (run_id, name) WHERE complete;
CREATE INDEX run_files_unfinished ON plm.run_files (updated_at) WHERE NOT complete;

-- bytea, not text: a text column refuses the NUL character an answer may hold.
CREATE TABLE plm.run_chunks (
  file_id bigint NOT NULL REFERENCES plm.run_files (id) ON DELETE CASCADE,
  seq int NOT NULL,
  -- Where the chunk starts in the text, in bytes: the start of a long text is read without the rest.
  at_byte bigint NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (file_id, seq)
);

-- Who runs a request: a member's claims of one request, by generation. Generation n + 1 is made
-- by one process only (the primary key), which takes over from the claimant of n.
CREATE TABLE plm.request_claims (
  member_id bigint NOT NULL REFERENCES plm.members (id),
  request_key text NOT NULL,
  generation int NOT NULL CHECK (generation > 0),
  claim jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member_id, request_key, generation)
);
`,
  },
  {
    version: 4,
    name: 'MCP sessions keep the client',
    sql: `
-- The client's name and version from initialize: which client it is decides a call's time budget and result layout.
ALTER TABLE plm.mcp_sessions ADD COLUMN client_info jsonb NOT NULL DEFAULT '{}';
`,
  },
  {
    version: 5,
    name: 'MCP tasks',
    sql: `
-- A member's MCP tasks (process_prompt run as a task), kept here so that any process lists and
-- reads them: the task as its client sees it, and a result stored before any run (a refusal).
CREATE TABLE plm.mcp_tasks (
  member_id bigint NOT NULL REFERENCES plm.members (id),
  task_id text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  task jsonb NOT NULL,
  result jsonb,
  PRIMARY KEY (member_id, task_id)
);
CREATE INDEX mcp_tasks_member_created ON plm.mcp_tasks (member_id, created_at, task_id COLLATE "C");
`,
  },
  {
    version: 6,
    name: 'MCP sessions keep the client’s time limit',
    sql: `
-- The shortest time the client waited for a call before it gave up (its own timeout): every
-- later call of the session, whichever process serves it, answers within it.
ALTER TABLE plm.mcp_sessions ADD COLUMN client_limit_ms integer CHECK (client_limit_ms >= 0);
`,
  },
  {
    version: 7,
    name: 'a text written and a budget held in one statement each',
    sql: `
-- Each is one round trip where a transaction of four to six statements was: with many runs at
-- once, the runs queue on their round trips to the database. Each runs as one statement, so all
-- of it lands or none. The p_ names keep parameters apart from the columns they are compared with.

-- Replaces the complete text of a name of the member's own run (NULL when there is no such run),
-- kept in chunks of p_chunk bytes; writers of one name take turns, as a streamed text's finish does.
CREATE FUNCTION plm.put_text(p_run text, p_member bigint, p_name text, p_content bytea, p_chunk int) RETURNS bigint
  LANGUAGE plpgsql AS $fn$
DECLARE
  v_file bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('plm-text:' || p_run || '/' || p_name, 0));
  INSERT INTO plm.run_files AS f (run_id, name, complete, bytes)
    SELECT r.id, p_name, true, length(p_content) FROM plm.runs r WHERE r.id = p_run AND r.member_id = p_member AND r.stored_at IS NOT NULL
  ON CONFLICT (run_id, name) WHERE complete DO UPDATE SET bytes = EXCLUDED.bytes, updated_at = now()
  RETURNING f.id INTO v_file;
  IF v_file IS NULL THEN
    RETURN NULL;
  END IF;
  DELETE FROM plm.run_chunks c WHERE c.file_id = v_file;
  INSERT INTO plm.run_chunks (file_id, seq, at_byte, data)
    SELECT v_file, s, s::bigint * p_chunk, substring(p_content FROM s * p_chunk + 1 FOR p_chunk)
    FROM generate_series(0, (length(p_content) + p_chunk - 1) / p_chunk - 1) AS s;
  RETURN v_file;
END
$fn$;

-- The streamed text p_file becomes the complete text of its name, in place of any before it;
-- false when it was removed meanwhile.
CREATE FUNCTION plm.finish_text(p_run text, p_member bigint, p_name text, p_file bigint) RETURNS boolean
  LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('plm-text:' || p_run || '/' || p_name, 0));
  DELETE FROM plm.run_files f
    WHERE f.run_id IN (SELECT r.id FROM plm.runs r WHERE r.id = p_run AND r.member_id = p_member AND r.stored_at IS NOT NULL)
      AND f.name = p_name AND f.complete AND f.id <> p_file;
  UPDATE plm.run_files f SET complete = true, updated_at = now() WHERE f.id = p_file AND NOT f.complete;
  RETURN FOUND;
END
$fn$;

-- Holds a run's worst case (NULL: unknown) against its member's budget for the current period and
-- records the run, as budgets.ts's reserve describes; no row when the member is unknown or revoked.
-- The hold is one conditional UPDATE of the period's row: a concurrent one waits for it, then
-- checks its condition against what it left.
CREATE FUNCTION plm.reserve(p_member bigint, p_run text, p_worst numeric, p_models text[])
  RETURNS TABLE (held boolean, member_period text, starts timestamptz, resets timestamptz, budget float8, remaining float8)
  LANGUAGE plpgsql AS $fn$
BEGIN
  -- now() is the transaction's start, so every statement here agrees on the period.
  SELECT m.period, plm.period_start(m.period, now()), plm.period_end(m.period, now()) INTO member_period, starts, resets
    FROM plm.members m WHERE m.id = p_member AND m.revoked_at IS NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO plm.budget_periods (member_id, period_start) VALUES (p_member, starts) ON CONFLICT DO NOTHING;
  UPDATE plm.budget_periods bp SET reserved_usd = bp.reserved_usd + COALESCE(p_worst, 0)
    FROM plm.members m
    WHERE bp.member_id = p_member AND bp.period_start = starts AND m.id = p_member
      AND (m.budget_usd IS NULL OR bp.spent_usd + bp.reserved_usd + p_worst <= m.budget_usd);
  held := FOUND;
  IF held THEN
    INSERT INTO plm.runs (id, member_id, models, period_start, reserved_usd) VALUES (p_run, p_member, p_models, starts, COALESCE(p_worst, 0));
  ELSE
    SELECT m.budget_usd::float8, GREATEST(m.budget_usd - bp.spent_usd - bp.reserved_usd, 0)::float8 INTO budget, remaining
      FROM plm.members m JOIN plm.budget_periods bp ON bp.member_id = m.id AND bp.period_start = starts WHERE m.id = p_member;
  END IF;
  RETURN NEXT;
END
$fn$;
`,
  },
];
