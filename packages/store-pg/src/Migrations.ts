/** Versioned migrations, run at start on the real server and on the embedded default alike. */

import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect } from "effect"

const migration = (statements: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statements).raw)

/**
 * The lock timeout of the functions that place holds and settle calls (migration 0042; `PgLedger.lockTimeout`): far
 * above what one of their statements waits on another's (a few ms), far below a session that keeps a row locked. Set
 * by a migration: another value needs a migration of its own (0042 is not run again).
 */
export const ledgerLockTimeoutMs = 1_000

/** Every migration, keyed `NNNN_name` (the Migrator skips other keys). */
export const all = {
  "0001_accounts_and_ledger": migration(`
    CREATE TABLE accounts (
      id text PRIMARY KEY,
      name text NOT NULL,
      balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
      held bigint NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= balance),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE ledger (
      id bigserial PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      kind text NOT NULL CHECK (kind IN ('grant', 'capture')),
      credits bigint NOT NULL CHECK ((kind = 'grant' AND credits > 0) OR (kind = 'capture' AND credits < 0)),
      reason text NOT NULL,
      key_id text,
      hold_id text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ledger_by_account ON ledger (account_id, id DESC);
    CREATE INDEX ledger_by_key ON ledger (key_id) WHERE key_id IS NOT NULL;
    CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the ledger is append-only'; END $$;
    CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger
      FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
    CREATE TABLE holds (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      key_id text,
      amount bigint NOT NULL CHECK (amount > 0),
      status text NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'captured', 'released', 'expired')),
      captured bigint NOT NULL DEFAULT 0 CHECK (captured >= 0 AND captured <= amount),
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz
    );
    CREATE INDEX holds_held_by_expiry ON holds (expires_at) WHERE status = 'held';
    CREATE INDEX holds_held_by_account ON holds (account_id) WHERE status = 'held';
  `),
  "0002_api_keys": migration(`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      name text NOT NULL,
      prefix text NOT NULL,
      digest text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      calls bigint NOT NULL DEFAULT 0
    );
    CREATE INDEX api_keys_by_account ON api_keys (account_id);
  `),
  "0003_measurements": migration(`
    CREATE TABLE measurements (
      id bigserial PRIMARY KEY,
      platform text NOT NULL,
      op text NOT NULL,
      entity text NOT NULL,
      freshness_key text NOT NULL,
      measured_at timestamptz NOT NULL,
      rows jsonb NOT NULL,
      rows_asked integer NOT NULL,
      exhaustive boolean NOT NULL,
      found boolean NOT NULL,
      source text NOT NULL
    );
    CREATE INDEX measurements_by_key ON measurements (freshness_key, measured_at DESC);
    CREATE TABLE history_points (
      id bigserial PRIMARY KEY,
      platform text NOT NULL,
      entity text NOT NULL,
      store text NOT NULL DEFAULT '',
      stay jsonb,
      measured_at timestamptz NOT NULL,
      metrics jsonb NOT NULL,
      source text NOT NULL
    );
    CREATE INDEX history_points_by_entity ON history_points (platform, entity, measured_at);
    CREATE TABLE contact_reveals (
      account_id text NOT NULL REFERENCES accounts(id),
      person text NOT NULL,
      part text NOT NULL CHECK (part IN ('email', 'phone')),
      status text NOT NULL CHECK (status IN ('revealed', 'nothing_on_file')),
      value text,
      revealed_at timestamptz NOT NULL,
      source text NOT NULL,
      PRIMARY KEY (account_id, person, part)
    );
  `),
  "0004_idempotency": migration(`
    CREATE TABLE idempotency (
      account_id text NOT NULL REFERENCES accounts(id),
      key text NOT NULL,
      fingerprint text NOT NULL,
      state text NOT NULL CHECK (state IN ('in_flight', 'done')),
      status integer,
      body text,
      started_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, key)
    );
    CREATE INDEX idempotency_by_expiry ON idempotency (expires_at);
    ALTER TABLE measurements ADD COLUMN hold_id text;
    CREATE INDEX measurements_by_hold ON measurements (hold_id) WHERE hold_id IS NOT NULL;
  `),
  "0005_history_values": migration(`
    CREATE TABLE history_values (
      platform text NOT NULL,
      entity text NOT NULL,
      metric text NOT NULL,
      measured_at timestamptz NOT NULL,
      value double precision NOT NULL,
      store text NOT NULL DEFAULT '',
      stay jsonb,
      source text NOT NULL
    );
    INSERT INTO history_values (platform, entity, metric, measured_at, value, store, stay, source)
      SELECT p.platform, p.entity, m.key, p.measured_at, (m.value #>> '{}')::double precision, p.store, p.stay, p.source
      FROM history_points p, jsonb_each(p.metrics) AS m
      WHERE jsonb_typeof(m.value) = 'number';
    DROP TABLE history_points;
    CREATE INDEX history_values_series ON history_values (platform, entity, metric, measured_at)
      INCLUDE (value, store, stay, source);
  `),
  // The statements of the request path as PL/pgSQL functions: each keeps its plans for the session, so a call is
  // parsed and planned once per connection instead of on every request (these were most of PostgreSQL's work per
  // paid call: ~0.6 ms of planning in each of the hold and settle statements). Same rules as the statements they
  // replace; every column is qualified, so the OUT parameters never shadow one.
  "0006_request_path_functions": migration(`
    -- the keys of several requests in one statement (the adapter coalesces the lookups of one turn of the event loop)
    CREATE FUNCTION pdr_find_keys(p_digests text[])
    RETURNS TABLE (digest text, id text, account_id text, name text, prefix text, created_at timestamptz,
                   expires_at timestamptz, revoked_at timestamptz, last_used_at timestamptz, calls bigint,
                   spendable bigint)
    LANGUAGE plpgsql STABLE AS $$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
        SELECT k.digest, k.id, k.account_id, k.name, k.prefix, k.created_at, k.expires_at, k.revoked_at,
               k.last_used_at, k.calls, a.balance - a.held
        FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.digest = ANY (p_digests);
    END $$;

    -- fresh results for several calls in one statement: ask i wants, for each of its keys, the latest measurement
    -- after its p_since[i] with at least p_min_rows[i] rows asked (or exhaustive); answered with the ask's number
    CREATE FUNCTION pdr_fresh(p_asks integer[], p_keys text[], p_since timestamptz[], p_min_rows integer[])
    RETURNS TABLE (ask integer, platform text, op text, entity text, freshness_key text, measured_at timestamptz,
                   rows jsonb, rows_asked integer, exhaustive boolean, found boolean, source text)
    LANGUAGE plpgsql STABLE AS $$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
        SELECT a.ask, m.platform, m.op, m.entity, m.freshness_key, m.measured_at, m.rows, m.rows_asked, m.exhaustive,
               m.found, m.source
        FROM unnest(p_asks, p_keys, p_since, p_min_rows) AS a(ask, key, since, min_rows)
        CROSS JOIN LATERAL (
          SELECT * FROM measurements x
          WHERE x.freshness_key = a.key AND x.measured_at > a.since AND (x.rows_asked >= a.min_rows OR x.exhaustive)
          ORDER BY x.measured_at DESC LIMIT 1
        ) AS m;
    END $$;

    -- a hold is placed only while spendable (balance - held) covers it; no row back means refused
    CREATE FUNCTION pdr_place_hold(p_id text, p_account text, p_key text, p_amount bigint, p_expires timestamptz)
    RETURNS SETOF holds LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE accounts a SET held = a.held + p_amount WHERE a.id = p_account AND a.balance - a.held >= p_amount;
      IF NOT FOUND THEN RETURN; END IF;
      RETURN QUERY
        WITH h AS (
          INSERT INTO holds (id, account_id, key_id, amount, expires_at)
          VALUES (p_id, p_account, p_key, p_amount, p_expires) RETURNING *)
        SELECT * FROM h;
    END $$;

    -- the data of a call: reveals not yet held by the org (returned, to be charged), measurements, history values
    CREATE FUNCTION pdr_write_records(p_measurements jsonb, p_points jsonb, p_reveals jsonb)
    RETURNS TABLE (person text, part text) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    BEGIN
      INSERT INTO measurements (platform, op, entity, freshness_key, measured_at, rows, rows_asked, exhaustive, found,
                                source, hold_id)
        SELECT x.platform, x.op, x.entity, x.freshness_key, x.measured_at, x.rows, x.rows_asked, x.exhaustive, x.found,
               x.source, x.hold_id
        FROM jsonb_to_recordset(p_measurements) AS x(platform text, op text, entity text, freshness_key text,
          measured_at timestamptz, rows jsonb, rows_asked integer, exhaustive boolean, found boolean, source text,
          hold_id text);
      INSERT INTO history_values (platform, entity, metric, measured_at, value, store, stay, source)
        SELECT x.platform, x.entity, v.key, x.measured_at, v.value::double precision, x.store, x.stay, x.source
        FROM jsonb_to_recordset(p_points) AS x(platform text, entity text, store text, stay jsonb,
          measured_at timestamptz, metrics jsonb, source text),
        jsonb_each_text(x.metrics) AS v;
      RETURN QUERY
        WITH r AS (
          INSERT INTO contact_reveals AS c (account_id, person, part, status, value, revealed_at, source)
            SELECT x.account_id, x.person, x.part, x.status, x.value, x.revealed_at, x.source
            FROM jsonb_to_recordset(p_reveals) AS x(account_id text, person text, part text, status text, value text,
              revealed_at timestamptz, source text)
          ON CONFLICT ON CONSTRAINT contact_reveals_pkey DO NOTHING
          RETURNING c.person, c.part)
        SELECT r.person, r.part FROM r;
    END $$;

    -- the settle of a call (D8), in one transaction: with a hold still held, write the data, capture p_capture plus
    -- the price of the reveals written here (never above the hold), release the rest and append the capture; without
    -- a hold, write the data. Returns the account after it and what was captured; no row when the hold is not held
    -- (or would be overdrawn), and then nothing was written.
    CREATE FUNCTION pdr_settle(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                               p_points jsonb, p_reveals jsonb)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      v_hold holds%ROWTYPE;
      v_amount bigint;
    BEGIN
      IF p_hold IS NULL THEN
        PERFORM pdr_write_records(p_measurements, p_points, p_reveals);
        RETURN QUERY SELECT a.id, a.name, a.balance, a.held, a.created_at, 0::bigint FROM accounts a WHERE a.id = p_account;
        RETURN;
      END IF;
      SELECT * INTO v_hold FROM holds h WHERE h.id = p_hold AND h.status = 'held' FOR UPDATE;
      IF NOT FOUND OR p_capture > v_hold.amount THEN RETURN; END IF;
      IF jsonb_array_length(p_reveals) = 0 THEN
        PERFORM pdr_write_records(p_measurements, p_points, p_reveals);
        v_amount := p_capture;
      ELSE BEGIN
        -- reveals are charged only for the parts written here, so the amount is known only after writing them
        SELECT p_capture + coalesce(sum(x.credits), 0) INTO v_amount
          FROM pdr_write_records(p_measurements, p_points, p_reveals) AS w
          JOIN jsonb_to_recordset(p_reveals) AS x(person text, part text, credits bigint)
            ON x.person = w.person AND x.part = w.part;
        IF v_amount > v_hold.amount THEN
          RAISE EXCEPTION 'capture above hold' USING ERRCODE = 'PD001';
        END IF;
      EXCEPTION WHEN SQLSTATE 'PD001' THEN
        RETURN; -- the reveals written above are rolled back with this block
      END; END IF;
      UPDATE holds h SET status = 'captured', captured = v_amount, settled_at = now() WHERE h.id = p_hold;
      IF v_amount > 0 THEN
        INSERT INTO ledger (account_id, kind, credits, reason, key_id, hold_id)
          VALUES (v_hold.account_id, 'capture', -v_amount, p_reason, v_hold.key_id, p_hold);
      END IF;
      RETURN QUERY
        WITH a AS (
          UPDATE accounts u SET balance = u.balance - v_amount, held = u.held - v_hold.amount
          WHERE u.id = v_hold.account_id
          RETURNING u.id, u.name, u.balance, u.held, u.created_at)
        SELECT a.id, a.name, a.balance, a.held, a.created_at, v_amount FROM a;
    END $$;
  `),
  "0007_settle_keeps_the_answer": migration(`
    -- the settle of an idempotent call completes its idempotency record in the same transaction (D16): the kept
    -- answer is the caller's text around the cost this settle computes, so a crash keeps both or neither
    CREATE FUNCTION pdr_settle_kept(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                                    p_points jsonb, p_reveals jsonb, p_key text, p_status integer, p_before text,
                                    p_after text)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    DECLARE
      r record;
      v_body text;
    BEGIN
      SELECT * INTO r FROM pdr_settle(p_hold, p_account, p_capture, p_reason, p_measurements, p_points, p_reveals);
      IF NOT FOUND THEN RETURN; END IF;
      v_body := p_before || '{"creditsCharged":' || r.captured || ',"creditsRemaining":' || (r.balance - r.held)
        || '}' || p_after;
      UPDATE idempotency i SET state = 'done', status = p_status, body = v_body
        WHERE i.account_id = p_account AND i.key = p_key;
      RETURN QUERY SELECT r.id, r.name, r.balance, r.held, r.created_at, r.captured, v_body;
    END $$;
  `),
  // The nightly refresh (issue 11): tracked entities (demand noted by calls, or pinned by the operator), one row per
  // pass (the planner that inserts it wins the night), each entity's outcome, and the job queue of
  // @effect/sql's SqlPersistedQueue (its own DDL, created here so concurrent runners never race to create it).
  "0008_refresh": migration(`
    CREATE TABLE tracked (
      freshness_key text PRIMARY KEY,
      platform text NOT NULL,
      op text NOT NULL,
      subject text NOT NULL,
      request jsonb NOT NULL,
      demanded_at timestamptz,
      pinned boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX tracked_by_demand ON tracked (demanded_at DESC NULLS LAST);
    CREATE INDEX tracked_pinned ON tracked (platform, subject) WHERE pinned;
    CREATE TABLE refresh_passes (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      planned_at timestamptz NOT NULL DEFAULT now(),
      total integer NOT NULL,
      budget bigint NOT NULL,
      reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
      exhausted boolean NOT NULL DEFAULT false
    );
    CREATE TABLE refresh_results (
      pass_id text NOT NULL REFERENCES refresh_passes(id),
      freshness_key text NOT NULL,
      platform text NOT NULL,
      status text NOT NULL CHECK (status IN ('refreshed', 'fresh', 'omitted', 'failed', 'over_budget')),
      credits bigint NOT NULL DEFAULT 0,
      detail text,
      runner text NOT NULL,
      at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (pass_id, freshness_key)
    );
    CREATE TABLE IF NOT EXISTS refresh_queue (
      sequence SERIAL PRIMARY KEY,
      id VARCHAR(36) NOT NULL,
      queue_name VARCHAR(100) NOT NULL,
      element TEXT NOT NULL,
      completed BOOLEAN NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_failure TEXT NULL,
      acquired_at TIMESTAMP NULL,
      acquired_by UUID NULL,
      created_at TIMESTAMP NOT NULL,
      updated_at TIMESTAMP NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS idx_refresh_queue_id ON refresh_queue (id);
    CREATE INDEX IF NOT EXISTS idx_refresh_queue_take ON refresh_queue (queue_name, completed, attempts, acquired_at);
    CREATE INDEX IF NOT EXISTS idx_refresh_queue_update ON refresh_queue (sequence, acquired_by);
  `),
  // i12 (D20): members, invitations, sessions (only digests of their tokens), usage per key, day, platform and op
  "0009_members_sessions_usage": migration(`
    CREATE TABLE members (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      email text NOT NULL,
      password_hash text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'member')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX members_by_email ON members (lower(email));
    CREATE INDEX members_by_account ON members (account_id);
    CREATE TABLE invitations (
      digest text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'member')),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE sessions (
      digest text PRIMARY KEY,
      member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX sessions_by_member ON sessions (member_id);
    CREATE TABLE key_usage_daily (
      key_id text NOT NULL REFERENCES api_keys(id),
      day date NOT NULL,
      platform text NOT NULL,
      op text NOT NULL,
      calls bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (key_id, day, platform, op)
    );
    CREATE INDEX ledger_captures_by_account_day ON ledger (account_id, created_at) WHERE kind = 'capture';
  `),
  // i19: the job engine (JobQueue port, PgJobQueue) that replaces the refresh's SqlPersistedQueue, and the refresh's
  // planning cursor, per-runner counters and pass summary
  "0011_jobs": migration(`
    DROP TABLE IF EXISTS refresh_queue;
    CREATE TABLE jobs (
      id bigserial PRIMARY KEY,
      queue text NOT NULL,
      key text NOT NULL,
      grp text NOT NULL DEFAULT '',
      lane text NOT NULL DEFAULT '',
      priority bigint NOT NULL DEFAULT 0,
      payload jsonb NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL DEFAULT 5,
      run_at timestamptz NOT NULL DEFAULT now(),
      worker text,
      lease_until timestamptz,
      taken_over_from text,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      ended_at timestamptz
    );
    CREATE UNIQUE INDEX jobs_by_key ON jobs (queue, key);
    CREATE INDEX jobs_runnable ON jobs (queue, lane, priority, id) WHERE state = 'pending';
    CREATE INDEX jobs_running ON jobs (queue, lane) WHERE state = 'running';
    CREATE INDEX jobs_running_by_worker ON jobs (worker) WHERE state = 'running';
    CREATE INDEX jobs_open_by_group ON jobs (queue, grp) WHERE state IN ('pending', 'running');
    CREATE INDEX jobs_failed_by_group ON jobs (queue, grp) WHERE state = 'failed';
    CREATE INDEX jobs_ended ON jobs (ended_at) WHERE state IN ('done', 'failed');
    -- the claim: expired leases first (their worker stopped), then each lane in turn under its limit across all
    -- workers (a lane another claimer is counting is skipped, never waited for); one statement, no open transaction
    CREATE FUNCTION pdr_claim_jobs(q text, w text, n integer, lease_ms integer, lanes text[], lane_limit integer)
    RETURNS SETOF jobs LANGUAGE plpgsql AS $$
    DECLARE
      l text;
      free integer;
      took integer;
      got integer := 0;
    BEGIN
      WITH gone AS (
        SELECT id FROM jobs WHERE queue = q AND state = 'running' AND lease_until < now() FOR UPDATE SKIP LOCKED)
      UPDATE jobs j SET
        state = CASE WHEN j.attempts >= j.max_attempts THEN 'failed' ELSE 'pending' END,
        ended_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END,
        taken_over_from = j.worker, worker = NULL, lease_until = NULL, run_at = now(),
        last_error = 'its worker stopped before it ended (lease expired)'
      FROM gone WHERE j.id = gone.id;
      FOREACH l IN ARRAY lanes LOOP
        EXIT WHEN got >= n;
        free := n - got;
        IF lane_limit > 0 THEN
          CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtext('pdr_jobs'), hashtext(q || '/' || l));
          SELECT LEAST(free, lane_limit - count(*)) INTO free FROM jobs WHERE queue = q AND lane = l AND state = 'running';
        END IF;
        CONTINUE WHEN free <= 0;
        RETURN QUERY WITH c AS (
          SELECT id FROM jobs WHERE queue = q AND lane = l AND state = 'pending' AND run_at <= now()
          ORDER BY priority, id LIMIT free FOR UPDATE SKIP LOCKED)
        UPDATE jobs j SET state = 'running', worker = w, attempts = j.attempts + 1,
          lease_until = now() + lease_ms * interval '1 millisecond'
        FROM c WHERE j.id = c.id RETURNING j.*;
        GET DIAGNOSTICS took = ROW_COUNT;
        got := got + took;
      END LOOP;
    END $$;
    ALTER TABLE refresh_passes
      ADD COLUMN planned boolean NOT NULL DEFAULT true,
      ADD COLUMN planner text,
      ADD COLUMN planner_seen_at timestamptz,
      ADD COLUMN cursor text,
      ADD COLUMN ended_at timestamptz;
    ALTER TABLE refresh_results ADD COLUMN quoted bigint NOT NULL DEFAULT 0;
    CREATE TABLE refresh_counts (
      pass_id text NOT NULL REFERENCES refresh_passes(id),
      runner text NOT NULL,
      refreshed bigint NOT NULL DEFAULT 0,
      fresh bigint NOT NULL DEFAULT 0,
      omitted bigint NOT NULL DEFAULT 0,
      failed bigint NOT NULL DEFAULT 0,
      over_budget bigint NOT NULL DEFAULT 0,
      credits bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (pass_id, runner)
    );
  `),
  // i22: group commit. The holds and the settles of concurrent calls, gathered by the adapter per turn of the event
  // loop, in one statement each: every call is decided in its turn as it would be alone (a hold only while spendable
  // covers it; a settle only while its hold is held), and every batch locks its accounts' rows first, in one order
  // (by id), so two batches never wait on each other in a cycle.
  "0014_group_commit": migration(`
    -- placed holds answer nothing; a refused one answers its ask's number and the spendable credits it saw
    CREATE FUNCTION pdr_place_holds(p_ids text[], p_accounts text[], p_keys text[], p_amounts bigint[],
                                    p_expires timestamptz[])
    RETURNS TABLE (ord integer, available bigint) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
    BEGIN
      PERFORM 1 FROM accounts a WHERE a.id = ANY (p_accounts) ORDER BY a.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
        UPDATE accounts a SET held = a.held + p_amounts[i]
          WHERE a.id = p_accounts[i] AND a.balance - a.held >= p_amounts[i];
        IF FOUND THEN
          INSERT INTO holds (id, account_id, key_id, amount, expires_at)
            VALUES (p_ids[i], p_accounts[i], p_keys[i], p_amounts[i], p_expires[i]);
        ELSE
          ord := i;
          available := coalesce((SELECT a.balance - a.held FROM accounts a WHERE a.id = p_accounts[i]), 0);
          RETURN NEXT;
        END IF;
      END LOOP;
    END $$;

    -- each settle as pdr_settle (or pdr_settle_kept with a key), answered with its ask's number; no row for an ask
    -- whose hold is not held
    CREATE FUNCTION pdr_settle_batch(p_holds text[], p_accounts text[], p_captures bigint[], p_reasons text[],
                                     p_measurements text[], p_points text[], p_reveals text[], p_keys text[],
                                     p_statuses integer[], p_befores text[], p_afters text[])
    RETURNS TABLE (ord integer, id text, name text, balance bigint, held bigint, created_at timestamptz,
                   captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
    BEGIN
      PERFORM 1 FROM accounts a WHERE a.id = ANY (p_accounts) ORDER BY a.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        IF p_keys[i] IS NULL THEN
          RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, NULL::text
            FROM pdr_settle(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                            p_points[i]::jsonb, p_reveals[i]::jsonb) AS s;
        ELSE
          RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, s.kept
            FROM pdr_settle_kept(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                                 p_points[i]::jsonb, p_reveals[i]::jsonb, p_keys[i], p_statuses[i], p_befores[i],
                                 p_afters[i]) AS s;
        END IF;
      END LOOP;
    END $$;

    -- the per-key rate limit shared by every server instance over this database (D12): token buckets on the
    -- database's clock, one row per (policy, key), unlogged (a crash refills them: nothing else is lost with them)
    CREATE UNLOGGED TABLE rate_buckets (
      name text NOT NULL,
      key text NOT NULL,
      tokens double precision NOT NULL,
      at_ms double precision NOT NULL,
      PRIMARY KEY (name, key)
    );
    -- hosts whose upstream circuit an instance opened, until when (epoch ms of the instance's clock)
    CREATE UNLOGGED TABLE circuits (
      host text PRIMARY KEY,
      open_until_ms double precision NOT NULL
    );
    -- each ask refills its bucket and, with p_take, takes a token if there is one; asks are taken in key order (so two
    -- instances' statements never wait on each other in a cycle), an ask's answer has its number
    CREATE FUNCTION pdr_take_tokens(p_name text, p_keys text[], p_rate double precision, p_burst double precision,
                                    p_take boolean)
    RETURNS TABLE (ord integer, allowed boolean, tokens double precision) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i bigint;
      v_now double precision := extract(epoch FROM clock_timestamp()) * 1000;
      v_tokens double precision;
    BEGIN
      FOR i IN SELECT s.i FROM unnest(p_keys) WITH ORDINALITY AS s(k, i) ORDER BY s.k, s.i LOOP
        INSERT INTO rate_buckets AS b (name, key, tokens, at_ms) VALUES (p_name, p_keys[i], p_burst, v_now)
          ON CONFLICT (name, key) DO UPDATE
            SET tokens = least(p_burst, b.tokens + greatest(0, v_now - b.at_ms) / 1000 * p_rate),
                at_ms = greatest(b.at_ms, v_now)
          RETURNING b.tokens INTO v_tokens;
        ord := i;
        allowed := v_tokens >= 1;
        IF allowed AND p_take THEN
          UPDATE rate_buckets b SET tokens = b.tokens - 1 WHERE b.name = p_name AND b.key = p_keys[i];
          v_tokens := v_tokens - 1;
        END IF;
        tokens := v_tokens;
        RETURN NEXT;
      END LOOP;
    END $$;
  `),
  // i24 (D20, second pass): password resets, the audit log (append-only, kept a year), per-key monthly credit
  // limits (enforced at the hold, read with the key), key rolls, and an account's low-balance threshold
  "0016_dashboard_second_pass": migration(`
    CREATE TABLE password_resets (
      digest text PRIMARY KEY,
      member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX password_resets_by_member ON password_resets (member_id);
    CREATE INDEX invitations_pending_by_account ON invitations (account_id, created_at) WHERE used_at IS NULL;
    CREATE TABLE audit_log (
      id bigserial PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      at timestamptz NOT NULL DEFAULT now(),
      actor text NOT NULL,
      address text NOT NULL,
      action text NOT NULL,
      subject text NOT NULL
    );
    CREATE INDEX audit_log_by_account ON audit_log (account_id, id DESC);
    CREATE INDEX audit_log_by_time ON audit_log (at);
    -- append-only: no update ever; a delete only of an entry older than its year of retention
    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND OLD.at < now() - interval '1 year' THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'the audit log is append-only';
      END $$;
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
    ALTER TABLE api_keys ADD COLUMN monthly_credit_limit bigint CHECK (monthly_credit_limit > 0);
    ALTER TABLE api_keys ADD COLUMN replaced_by text;
    CREATE TABLE account_settings (
      account_id text PRIMARY KEY REFERENCES accounts(id),
      low_balance_threshold bigint CHECK (low_balance_threshold > 0)
    );
    -- the key lookup of every call also returns the key's monthly limit (null: none), so a key without one costs
    -- nothing more at the hold
    DROP FUNCTION pdr_find_keys(text[]);
    CREATE FUNCTION pdr_find_keys(p_digests text[])
    RETURNS TABLE (digest text, id text, account_id text, name text, prefix text, created_at timestamptz,
                   expires_at timestamptz, revoked_at timestamptz, last_used_at timestamptz, calls bigint,
                   spendable bigint, monthly_credit_limit bigint)
    LANGUAGE plpgsql STABLE AS $$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
        SELECT k.digest, k.id, k.account_id, k.name, k.prefix, k.created_at, k.expires_at, k.revoked_at,
               k.last_used_at, k.calls, a.balance - a.held, k.monthly_credit_limit
        FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.digest = ANY (p_digests);
    END $$;
  `),
  // issue 21: every op call's record (call id, status, progress, the kept answer for 24 h); a long call's lease
  // (owner + lease_until, renewed by its process's heartbeat) lets another process take over a call whose process died
  "0013_calls": migration(`
    CREATE TABLE calls (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      key_id text NOT NULL,
      platform text NOT NULL,
      op text,
      body text,
      idempotency_key text,
      request_id text NOT NULL,
      status text NOT NULL CHECK (status IN ('running', 'done', 'cancelled')),
      http_status integer,
      answer text,
      quote integer,
      units_done integer NOT NULL DEFAULT 0,
      units_total integer,
      cancel_requested boolean NOT NULL DEFAULT false,
      owner text,
      lease_until timestamptz,
      attempts integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL,
      finished_at timestamptz,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX calls_by_account ON calls (account_id, created_at DESC, id DESC);
    CREATE INDEX calls_running_lease ON calls (lease_until) WHERE status = 'running';
    CREATE INDEX calls_expiry ON calls (expires_at);
  `),
  // i21: the hold a long call's attempt placed, kept with its lease: a process that takes the call over releases it
  // at once (not after the hold's TTL)
  "0022_call_holds": migration(`
    ALTER TABLE calls ADD COLUMN hold_id text;
  `),
  // i21: the provider runs a long call's units started (unit key -> run id, JSON): a takeover polls them again
  "0023_call_runs": migration(`
    ALTER TABLE calls ADD COLUMN runs text;
  `),
  // i22: fetches in flight, leased across server instances (PgFetchLeases): one row per fetch, deleted at its release;
  // a row whose lease ran out (its process died) is replaced by the next take
  "0021_fetch_leases": migration(`
    CREATE TABLE fetch_leases (
      key text PRIMARY KEY,
      token text NOT NULL,
      until timestamptz NOT NULL
    );
  `),
  // i21: long calls are jobs of the job engine's `calls` queue (its lease is the job's): a call running when this
  // migration runs becomes a pending job to take over (its owner named, so its hold is released and it runs again or
  // replays its kept answer); the call's own lease goes
  "0024_calls_on_jobs": migration(`
    INSERT INTO jobs (queue, key, payload, state, attempts, max_attempts, taken_over_from)
    SELECT 'calls', id, jsonb_build_object('callId', id), 'pending', attempts, 6, coalesce(owner, 'unknown')
    FROM calls WHERE status = 'running'
    ON CONFLICT (queue, key) DO NOTHING;
    DROP INDEX calls_running_lease;
    ALTER TABLE calls DROP COLUMN lease_until;
  `),
  // i18: the kept answer of an idempotent paid call is data: the answer without its cost (the caller's JSON) and the
  // cost this settle computes, as one JSON record; the HTTP body is rendered from it by the same code as a live answer
  // (pdr_settle_kept and the batch of 0014, which concatenated the body here, stay for servers of the previous release)
  "0025_kept_answer_as_data": migration(`
    CREATE FUNCTION pdr_settle_keep(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                                    p_points jsonb, p_reveals jsonb, p_key text, p_status integer, p_answer text)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    DECLARE
      r record;
      v_record text;
    BEGIN
      SELECT * INTO r FROM pdr_settle(p_hold, p_account, p_capture, p_reason, p_measurements, p_points, p_reveals);
      IF NOT FOUND THEN RETURN; END IF;
      -- json (not jsonb) keeps the answer's text as it is: its keys in their order
      v_record := json_build_object('answer', p_answer::json, 'cost',
        json_build_object('creditsCharged', r.captured, 'creditsRemaining', r.balance - r.held))::text;
      UPDATE idempotency i SET state = 'done', status = p_status, body = v_record
        WHERE i.account_id = p_account AND i.key = p_key;
      RETURN QUERY SELECT r.id, r.name, r.balance, r.held, r.created_at, r.captured, v_record;
    END $$;
    CREATE FUNCTION pdr_settle_batch_keep(p_holds text[], p_accounts text[], p_captures bigint[], p_reasons text[],
                                          p_measurements text[], p_points text[], p_reveals text[], p_keys text[],
                                          p_statuses integer[], p_answers text[])
    RETURNS TABLE (ord integer, id text, name text, balance bigint, held bigint, created_at timestamptz,
                   captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
    BEGIN
      PERFORM 1 FROM accounts a WHERE a.id = ANY (p_accounts) ORDER BY a.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        IF p_keys[i] IS NULL THEN
          RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, NULL::text
            FROM pdr_settle(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                            p_points[i]::jsonb, p_reveals[i]::jsonb) AS s;
        ELSE
          RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, s.kept
            FROM pdr_settle_keep(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                                 p_points[i]::jsonb, p_reveals[i]::jsonb, p_keys[i], p_statuses[i], p_answers[i]) AS s;
        END IF;
      END LOOP;
    END $$;
  `),
  // issue 22: every op call's record keeps its answer (a stored 10-subject answer is about 7 KB, compressed by
  // PostgreSQL at each insert); lz4 compresses several times faster than the default pglz. A server built without lz4
  // (the embedded one may be) keeps pglz.
  "0026_call_answers_lz4": migration(`
    DO $$
    BEGIN
      ALTER TABLE calls ALTER COLUMN answer SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
      NULL;
    END $$;
  `),
  // issue 22: the same answers as 0015's pdr_take_tokens with fewer writes. A peek (p_take false: the failed-
  // authentication gate every request passes) writes nothing: a refill written back or computed again later gives the
  // same tokens (least(burst, t + d1 * rate) refilled by d2 is least(burst, t + (d1 + d2) * rate)), so a client
  // address gets a row only once it fails. A take refills each key once and writes what its asks took once, rather
  // than two writes per ask (the asks of one turn are often one key's).
  "0027_rate_limits_fewer_writes": migration(`
    CREATE OR REPLACE FUNCTION pdr_take_tokens(p_name text, p_keys text[], p_rate double precision,
                                               p_burst double precision, p_take boolean)
    RETURNS TABLE (ord integer, allowed boolean, tokens double precision) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      r record;
      v_now double precision := extract(epoch FROM clock_timestamp()) * 1000;
      v_key text := NULL;
      v_tokens double precision;
      v_taken integer := 0;
    BEGIN
      FOR r IN SELECT s.k, s.i FROM unnest(p_keys) WITH ORDINALITY AS s(k, i) ORDER BY s.k, s.i LOOP
        IF v_key IS NULL OR v_key <> r.k THEN
          IF v_taken > 0 THEN
            UPDATE rate_buckets b SET tokens = b.tokens - v_taken WHERE b.name = p_name AND b.key = v_key;
          END IF;
          v_key := r.k;
          v_taken := 0;
          IF p_take THEN
            INSERT INTO rate_buckets AS b (name, key, tokens, at_ms) VALUES (p_name, r.k, p_burst, v_now)
              ON CONFLICT (name, key) DO UPDATE
                SET tokens = least(p_burst, b.tokens + greatest(0, v_now - b.at_ms) / 1000 * p_rate),
                    at_ms = greatest(b.at_ms, v_now)
              RETURNING b.tokens INTO v_tokens;
          ELSE
            SELECT least(p_burst, b.tokens + greatest(0, v_now - b.at_ms) / 1000 * p_rate) INTO v_tokens
              FROM rate_buckets b WHERE b.name = p_name AND b.key = r.k;
            IF NOT FOUND THEN
              v_tokens := p_burst;
            END IF;
          END IF;
        END IF;
        ord := r.i;
        allowed := v_tokens >= 1;
        IF allowed AND p_take THEN
          v_tokens := v_tokens - 1;
          v_taken := v_taken + 1;
        END IF;
        tokens := v_tokens;
        RETURN NEXT;
      END LOOP;
      IF v_taken > 0 THEN
        UPDATE rate_buckets b SET tokens = b.tokens - v_taken WHERE b.name = p_name AND b.key = v_key;
      END IF;
    END $$;
  `),
  // i19: a job may make several calls of its lane at once (a refresh job carries a batch of entities): its `slots`
  // count against its lane's limit, so the limit still bounds the calls of one platform across all workers; a job's
  // slots are counted at most at the limit (a job is never too big to be claimed)
  "0028_job_slots": migration(`
    ALTER TABLE jobs ADD COLUMN slots integer NOT NULL DEFAULT 1 CHECK (slots >= 1);
    CREATE OR REPLACE FUNCTION pdr_claim_jobs(q text, w text, n integer, lease_ms integer, lanes text[], lane_limit integer)
    RETURNS SETOF jobs LANGUAGE plpgsql AS $$
    DECLARE
      l text;
      free integer;
      room integer;
      took integer;
      got integer := 0;
    BEGIN
      WITH gone AS (
        SELECT id FROM jobs WHERE queue = q AND state = 'running' AND lease_until < now() FOR UPDATE SKIP LOCKED)
      UPDATE jobs j SET
        state = CASE WHEN j.attempts >= j.max_attempts THEN 'failed' ELSE 'pending' END,
        ended_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END,
        taken_over_from = j.worker, worker = NULL, lease_until = NULL, run_at = now(),
        last_error = 'its worker stopped before it ended (lease expired)'
      FROM gone WHERE j.id = gone.id;
      FOREACH l IN ARRAY lanes LOOP
        EXIT WHEN got >= n;
        free := n - got;
        room := NULL;
        IF lane_limit > 0 THEN
          CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtext('pdr_jobs'), hashtext(q || '/' || l));
          SELECT lane_limit - coalesce(sum(least(slots, lane_limit)), 0) INTO room
            FROM jobs WHERE queue = q AND lane = l AND state = 'running';
          CONTINUE WHEN room <= 0;
        END IF;
        RETURN QUERY WITH c AS (
          SELECT id, priority, CASE WHEN lane_limit > 0 THEN least(slots, lane_limit) ELSE 1 END AS s
          FROM jobs WHERE queue = q AND lane = l AND state = 'pending' AND run_at <= now()
          ORDER BY priority, id LIMIT free FOR UPDATE SKIP LOCKED),
        k AS (
          SELECT x.id FROM (SELECT c.id, sum(c.s) OVER (ORDER BY c.priority, c.id) AS used FROM c) x
          WHERE room IS NULL OR x.used <= room)
        UPDATE jobs j SET state = 'running', worker = w, attempts = j.attempts + 1,
          lease_until = now() + lease_ms * interval '1 millisecond'
        FROM k WHERE j.id = k.id RETURNING j.*;
        GET DIAGNOSTICS took = ROW_COUNT;
        got := got + took;
      END LOOP;
    END $$;
  `),
  // issue 22: a request's key and its per-key token in one statement (the gate of every call was two round trips:
  // pdr_find_keys, then pdr_take_tokens). The keys of one turn's asks are read once, as pdr_find_keys reads them, and
  // each found key takes a token through pdr_take_tokens (its rule and its key order unchanged), whatever the key's
  // state: the server refuses a revoked or expired key after the read, and such a key is never admitted again.
  // An unknown digest has no row and takes nothing.
  "0030_admit_key_and_token": migration(`
    CREATE FUNCTION pdr_admit(p_digests text[], p_name text, p_rate double precision, p_burst double precision)
    RETURNS TABLE (ord integer, digest text, id text, account_id text, name text, prefix text,
                   created_at timestamptz, expires_at timestamptz, revoked_at timestamptz,
                   last_used_at timestamptz, calls bigint, spendable bigint, monthly_credit_limit bigint,
                   allowed boolean, tokens double precision)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      v_ords integer[];
      v_ids text[];
      v_keys api_keys[];
      v_spendable bigint[];
    BEGIN
      SELECT array_agg(d.i::integer ORDER BY d.i), array_agg(k.id ORDER BY d.i), array_agg(k ORDER BY d.i),
             array_agg(a.balance - a.held ORDER BY d.i)
        INTO v_ords, v_ids, v_keys, v_spendable
        FROM unnest(p_digests) WITH ORDINALITY AS d(digest, i)
        JOIN api_keys k ON k.digest = d.digest
        JOIN accounts a ON a.id = k.account_id;
      IF v_ids IS NULL THEN
        RETURN;
      END IF;
      RETURN QUERY
        SELECT v_ords[t.ord], (v_keys[t.ord]).digest, (v_keys[t.ord]).id, (v_keys[t.ord]).account_id,
               (v_keys[t.ord]).name, (v_keys[t.ord]).prefix, (v_keys[t.ord]).created_at,
               (v_keys[t.ord]).expires_at, (v_keys[t.ord]).revoked_at, (v_keys[t.ord]).last_used_at,
               (v_keys[t.ord]).calls, v_spendable[t.ord], (v_keys[t.ord]).monthly_credit_limit, t.allowed, t.tokens
        FROM pdr_take_tokens(p_name, v_ids, p_rate, p_burst, true) AS t;
    END $$;
  `),
  // issue 19: a hold shared by several settles (a refresh batch's: one hold for its entities' quotes). A draw writes
  // a call's data and kept answer and adds its capture to the hold's `captured` (never above the hold), without
  // writing the account's row; closing the hold (its holder, a takeover, the expiry sweep) captures what was drawn with
  // one ledger entry and releases the rest. Every statement that writes an account and a hold locks the account first
  // (the expiry sweep and the release locked the hold first: a deadlock with a group-committed settle was possible)
  "0031_shared_holds": migration(`
    ALTER TABLE holds ADD COLUMN reason text;

    CREATE FUNCTION pdr_draw(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                             p_points jsonb, p_reveals jsonb)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      v_hold holds%ROWTYPE;
      v_amount bigint;
    BEGIN
      SELECT * INTO v_hold FROM holds h WHERE h.id = p_hold AND h.status = 'held' FOR UPDATE;
      IF NOT FOUND OR p_capture > v_hold.amount - v_hold.captured THEN RETURN; END IF;
      IF jsonb_array_length(p_reveals) = 0 THEN
        PERFORM pdr_write_records(p_measurements, p_points, p_reveals);
        v_amount := p_capture;
      ELSE BEGIN
        SELECT p_capture + coalesce(sum(x.credits), 0) INTO v_amount
          FROM pdr_write_records(p_measurements, p_points, p_reveals) AS w
          JOIN jsonb_to_recordset(p_reveals) AS x(person text, part text, credits bigint)
            ON x.person = w.person AND x.part = w.part;
        IF v_amount > v_hold.amount - v_hold.captured THEN
          RAISE EXCEPTION 'capture above hold' USING ERRCODE = 'PD001';
        END IF;
      EXCEPTION WHEN SQLSTATE 'PD001' THEN
        RETURN;
      END; END IF;
      UPDATE holds h SET captured = h.captured + v_amount, reason = p_reason WHERE h.id = p_hold;
      RETURN QUERY SELECT a.id, a.name, a.balance, a.held, a.created_at, v_amount FROM accounts a
        WHERE a.id = v_hold.account_id;
    END $$;

    CREATE FUNCTION pdr_draw_keep(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                                  p_points jsonb, p_reveals jsonb, p_key text, p_status integer, p_answer text)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    DECLARE
      r record;
      v_record text;
    BEGIN
      SELECT * INTO r FROM pdr_draw(p_hold, p_account, p_capture, p_reason, p_measurements, p_points, p_reveals);
      IF NOT FOUND THEN RETURN; END IF;
      v_record := json_build_object('answer', p_answer::json, 'cost',
        json_build_object('creditsCharged', r.captured, 'creditsRemaining', r.balance - r.held))::text;
      UPDATE idempotency i SET state = 'done', status = p_status, body = v_record
        WHERE i.account_id = p_account AND i.key = p_key;
      RETURN QUERY SELECT r.id, r.name, r.balance, r.held, r.created_at, r.captured, v_record;
    END $$;

    -- the draws of one group commit, answered with their ask's number (no row: the hold is not held, or would be
    -- overdrawn); the holds are locked in id order first, so two batches drawing from the same holds never deadlock
    CREATE FUNCTION pdr_draw_batch_keep(p_holds text[], p_accounts text[], p_captures bigint[], p_reasons text[],
                                        p_measurements text[], p_points text[], p_reveals text[], p_keys text[],
                                        p_statuses integer[], p_answers text[])
    RETURNS TABLE (ord integer, id text, name text, balance bigint, held bigint, created_at timestamptz,
                   captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
    BEGIN
      PERFORM 1 FROM holds h WHERE h.id = ANY (p_holds) ORDER BY h.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        IF p_keys[i] IS NULL THEN
          RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, NULL::text
            FROM pdr_draw(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                          p_points[i]::jsonb, p_reveals[i]::jsonb) AS s;
        ELSE
          RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, s.kept
            FROM pdr_draw_keep(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                               p_points[i]::jsonb, p_reveals[i]::jsonb, p_keys[i], p_statuses[i], p_answers[i]) AS s;
        END IF;
      END LOOP;
    END $$;

    -- a settle alone (pdr_settle, migration 0006) locked its hold before its account: the expiry sweep and the closes
    -- lock the account first, so it does too now (seen as a deadlock of a settle with two sweeps)
    CREATE OR REPLACE FUNCTION pdr_settle(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                               p_points jsonb, p_reveals jsonb)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      v_hold holds%ROWTYPE;
      v_amount bigint;
    BEGIN
      IF p_hold IS NULL THEN
        PERFORM pdr_write_records(p_measurements, p_points, p_reveals);
        RETURN QUERY SELECT a.id, a.name, a.balance, a.held, a.created_at, 0::bigint FROM accounts a WHERE a.id = p_account;
        RETURN;
      END IF;
      -- the account's row before the hold's, as every statement writing both locks them (issue 19)
      PERFORM 1 FROM accounts a WHERE a.id = (SELECT x.account_id FROM holds x WHERE x.id = p_hold) FOR UPDATE;
      SELECT * INTO v_hold FROM holds h WHERE h.id = p_hold AND h.status = 'held' FOR UPDATE;
      IF NOT FOUND OR p_capture > v_hold.amount THEN RETURN; END IF;
      IF jsonb_array_length(p_reveals) = 0 THEN
        PERFORM pdr_write_records(p_measurements, p_points, p_reveals);
        v_amount := p_capture;
      ELSE BEGIN
        -- reveals are charged only for the parts written here, so the amount is known only after writing them
        SELECT p_capture + coalesce(sum(x.credits), 0) INTO v_amount
          FROM pdr_write_records(p_measurements, p_points, p_reveals) AS w
          JOIN jsonb_to_recordset(p_reveals) AS x(person text, part text, credits bigint)
            ON x.person = w.person AND x.part = w.part;
        IF v_amount > v_hold.amount THEN
          RAISE EXCEPTION 'capture above hold' USING ERRCODE = 'PD001';
        END IF;
      EXCEPTION WHEN SQLSTATE 'PD001' THEN
        RETURN; -- the reveals written above are rolled back with this block
      END; END IF;
      UPDATE holds h SET status = 'captured', captured = v_amount, settled_at = now() WHERE h.id = p_hold;
      IF v_amount > 0 THEN
        INSERT INTO ledger (account_id, kind, credits, reason, key_id, hold_id)
          VALUES (v_hold.account_id, 'capture', -v_amount, p_reason, v_hold.key_id, p_hold);
      END IF;
      RETURN QUERY
        WITH a AS (
          UPDATE accounts u SET balance = u.balance - v_amount, held = u.held - v_hold.amount
          WHERE u.id = v_hold.account_id
          RETURNING u.id, u.name, u.balance, u.held, u.created_at)
        SELECT a.id, a.name, a.balance, a.held, a.created_at, v_amount FROM a;
    END $$;

    -- ends a hold still held (released, or expired): its draws captured with one ledger entry, the rest released; the
    -- account's row locked before the hold's. No row when the hold was not held
    CREATE FUNCTION pdr_close_hold(p_hold text, p_status text)
    RETURNS TABLE (captured bigint, released bigint) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      v_account text;
      v_hold holds%ROWTYPE;
    BEGIN
      SELECT h.account_id INTO v_account FROM holds h WHERE h.id = p_hold AND h.status = 'held';
      IF NOT FOUND THEN RETURN; END IF;
      PERFORM 1 FROM accounts a WHERE a.id = v_account FOR UPDATE;
      SELECT * INTO v_hold FROM holds h WHERE h.id = p_hold AND h.status = 'held' FOR UPDATE;
      IF NOT FOUND THEN RETURN; END IF;
      UPDATE holds h SET status = CASE WHEN v_hold.captured > 0 AND p_status = 'released' THEN 'captured'
          ELSE p_status END, settled_at = now()
        WHERE h.id = p_hold;
      IF v_hold.captured > 0 THEN
        INSERT INTO ledger (account_id, kind, credits, reason, key_id, hold_id)
          VALUES (v_hold.account_id, 'capture', -v_hold.captured, coalesce(v_hold.reason, 'shared hold'),
                  v_hold.key_id, p_hold);
      END IF;
      UPDATE accounts a SET balance = a.balance - v_hold.captured, held = a.held - v_hold.amount
        WHERE a.id = v_hold.account_id;
      RETURN QUERY SELECT v_hold.captured, v_hold.amount - v_hold.captured;
    END $$;

    -- the closes of one group commit, answered with their ask's number (no row: the hold was not held); their accounts
    -- locked first, in id order
    CREATE FUNCTION pdr_close_holds(p_holds text[])
    RETURNS TABLE (ord integer, captured bigint, released bigint) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
    BEGIN
      PERFORM 1 FROM accounts a WHERE a.id IN (SELECT h.account_id FROM holds h WHERE h.id = ANY (p_holds))
        ORDER BY a.id FOR UPDATE;
      PERFORM 1 FROM holds h WHERE h.id = ANY (p_holds) ORDER BY h.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        RETURN QUERY SELECT i, c.captured, c.released FROM pdr_close_hold(p_holds[i], 'released') AS c;
      END LOOP;
    END $$;

    -- the expiry sweep: the accounts of the expired holds locked first (in id order, as every batch locks them), then
    -- their holds; a shared hold's draws are captured as pdr_close_hold captures them. Returns how many expired
    CREATE FUNCTION pdr_release_expired(p_now timestamptz)
    RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      v_accounts text[];
      v_n integer;
    BEGIN
      SELECT array_agg(x.id) INTO v_accounts FROM (
        SELECT a.id FROM accounts a WHERE a.id IN (
          SELECT DISTINCT h.account_id FROM holds h WHERE h.status = 'held' AND h.expires_at <= p_now)
        ORDER BY a.id FOR UPDATE) AS x;
      IF v_accounts IS NULL THEN RETURN 0; END IF;
      -- then the holds, in id order (as a batch of draws locks them)
      PERFORM 1 FROM holds x WHERE x.status = 'held' AND x.expires_at <= p_now AND x.account_id = ANY (v_accounts)
        ORDER BY x.id FOR UPDATE;
      WITH h AS (
        UPDATE holds x SET status = 'expired', settled_at = now()
        WHERE x.status = 'held' AND x.expires_at <= p_now AND x.account_id = ANY (v_accounts)
        RETURNING x.id, x.account_id, x.key_id, x.amount, x.captured, x.reason),
      l AS (
        INSERT INTO ledger (account_id, kind, credits, reason, key_id, hold_id)
        SELECT h.account_id, 'capture', -h.captured, coalesce(h.reason, 'shared hold'), h.key_id, h.id
        FROM h WHERE h.captured > 0),
      s AS (SELECT h.account_id, sum(h.amount) AS amount, sum(h.captured) AS captured, count(*) AS n
            FROM h GROUP BY h.account_id),
      u AS (UPDATE accounts a SET held = a.held - s.amount, balance = a.balance - s.captured
            FROM s WHERE a.id = s.account_id RETURNING s.n)
      SELECT coalesce(sum(u.n), 0) INTO v_n FROM u;
      RETURN v_n;
    END $$;
  `),
  // issue 22 (paid calls' CPU): the fetch leases (0021) are unlogged, as the rate buckets and the circuits are: a lease
  // is taken and given back by every paid call, each a transaction that waited for its WAL flush. PostgreSQL empties
  // the table after a crash; while it is down a take already fails and its call fetches alone (PgFetchLeases), so
  // nothing new is lost. (Set-based versions of the batches of holds and settles were timed here and dropped: no
  // cheaper in PostgreSQL's CPU than their loops, slower for settles; docs/benchmarks.md.)
  "0032_unlogged_fetch_leases": migration(`
    ALTER TABLE fetch_leases SET UNLOGGED;
  `),
  // issue 19: a refresh batch's reservation of its pass budget, named by the hold that is to hold it, from the
  // reservation until its runner finds it there after placing that hold (both steps one statement each). A runner
  // killed between the two leaves the row: the job's takeover gives its credits back to the pass budget (and the
  // stopped runner, if it wakes, finds the row gone and spends nothing).
  "0033_refresh_reservations": migration(`
    CREATE TABLE refresh_reservations (
      id bigserial PRIMARY KEY,
      pass_id text NOT NULL,
      job_id text NOT NULL,
      runner text NOT NULL,
      hold_id text NOT NULL,
      credits bigint NOT NULL CHECK (credits > 0),
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX refresh_reservations_by_hold ON refresh_reservations (hold_id);
    CREATE INDEX refresh_reservations_by_job ON refresh_reservations (job_id, runner);
  `),
  // issue 19: a refresh round's reservation rows stay until its give-back, which deletes them in the statement that
  // gives back what the round's hold did not capture: whoever deletes the rows gives back (the round's runner at its
  // end, a takeover, the pass's end, after any stop), so it happens once. The rows are locked first, so a runner
  // finding them after placing its hold waits and then sees them gone; a hold still held is answered `open` and its
  // rows kept (the caller closes it through the Ledger port and settles again): a held hold's draws are not final.
  "0035_refresh_settle": migration(`
    CREATE INDEX refresh_reservations_by_pass ON refresh_reservations (pass_id);
    CREATE FUNCTION pdr_refresh_settle(p_holds text[], p_job text, p_runner text, p_pass text)
    RETURNS TABLE (hold_id text, pass_id text, credits bigint, captured bigint, open boolean) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      v_holds text[];
    BEGIN
      -- these rounds' rows, or a job's rows of a runner, or the rows of a pass's ended jobs
      IF p_holds IS NOT NULL THEN
        SELECT array_agg(DISTINCT x.hold_id) INTO v_holds FROM (
          SELECT r.hold_id FROM refresh_reservations r WHERE r.hold_id = ANY (p_holds) ORDER BY r.id FOR UPDATE) AS x;
      ELSIF p_job IS NOT NULL THEN
        SELECT array_agg(DISTINCT x.hold_id) INTO v_holds FROM (
          SELECT r.hold_id FROM refresh_reservations r WHERE r.job_id = p_job AND r.runner = p_runner
          ORDER BY r.id FOR UPDATE) AS x;
      ELSE
        SELECT array_agg(DISTINCT x.hold_id) INTO v_holds FROM (
          SELECT r.hold_id FROM refresh_reservations r WHERE r.pass_id = p_pass AND NOT EXISTS (
            SELECT 1 FROM jobs j WHERE j.id = r.job_id::bigint AND j.state IN ('pending', 'running'))
          ORDER BY r.id FOR UPDATE OF r) AS x;
      END IF;
      IF v_holds IS NULL THEN RETURN; END IF;
      -- a new statement, a new snapshot: a hold placed before its runner found the rows is seen here
      RETURN QUERY WITH o AS (SELECT h.id FROM holds h WHERE h.id = ANY (v_holds) AND h.status = 'held'),
        d AS (DELETE FROM refresh_reservations r WHERE r.hold_id = ANY (v_holds) AND r.hold_id NOT IN (SELECT o.id FROM o)
              RETURNING r.pass_id, r.hold_id, r.credits),
        s AS (SELECT d.pass_id, d.hold_id, sum(d.credits)::bigint AS credits FROM d GROUP BY d.pass_id, d.hold_id),
        b AS (SELECT s.pass_id, s.hold_id, s.credits, least(s.credits, coalesce(h.captured, 0))::bigint AS captured
              FROM s LEFT JOIN holds h ON h.id = s.hold_id),
        g AS (UPDATE refresh_passes p SET reserved = p.reserved - x.n
              FROM (SELECT b.pass_id, sum(b.credits - b.captured) AS n FROM b GROUP BY b.pass_id) AS x
              WHERE p.id = x.pass_id)
        SELECT b.hold_id, b.pass_id, b.credits, b.captured, false FROM b
        UNION ALL SELECT o.id, NULL::text, 0::bigint, 0::bigint, true FROM o;
    END $$;
  `),
  // issue 22 (paid calls' PostgreSQL CPU): a settle of a batch was about ten statements inside two nested functions
  // (pdr_settle, pdr_write_records), each with its executor set-up (and its table's CHECK constraints compiled again).
  // A settle without reveals (its price known before it writes) is now one statement in the batch's loop: its hold
  // captured (still held and covering the capture, as pdr_settle checks) and its account charged, in ask order, each
  // answered with its account after it as before; the records, ledger entries and kept answers of those settles are
  // then written by one statement per table for the batch (pdr_settle_batch_write), in ask order, before any settle
  // with reveals (charged for the parts written: pdr_settle(_keep) as before) and at the end. The accounts of the
  // batch's holds are locked first with the asks' (in id order): a settle still locks its account before its hold.
  // A batch of holds likewise: each ask's account updated in ask order, then the placed holds inserted together.
  // And measurements_by_hold (0004) goes: no statement reads measurements by their hold, and every paid call wrote it.
  "0036_settle_batch_one_statement": migration(`
    DROP INDEX IF EXISTS measurements_by_hold;

    -- the writes of the settles p_ords (asks of a batch, in ask order) whose holds were captured: their records, their
    -- ledger entries (p_hold_accounts, p_hold_keys: each hold's account and key) and their kept answers (p_bodies)
    CREATE FUNCTION pdr_settle_batch_write(p_ords integer[], p_hold_accounts text[], p_hold_keys text[],
                                           p_bodies text[], p_holds text[], p_accounts text[], p_captures bigint[],
                                           p_reasons text[], p_measurements text[], p_points text[], p_keys text[],
                                           p_statuses integer[])
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO measurements (platform, op, entity, freshness_key, measured_at, rows, rows_asked, exhaustive, found,
                                source, hold_id)
        SELECT r.platform, r.op, r.entity, r.freshness_key, r.measured_at, r.rows, r.rows_asked, r.exhaustive, r.found,
               r.source, r.hold_id
        FROM unnest(p_ords) WITH ORDINALITY AS o(i, j),
          ROWS FROM (jsonb_to_recordset(p_measurements[o.i]::jsonb) AS (platform text, op text, entity text,
            freshness_key text, measured_at timestamptz, rows jsonb, rows_asked integer, exhaustive boolean,
            found boolean, source text, hold_id text))
          WITH ORDINALITY AS r(platform, op, entity, freshness_key, measured_at, rows, rows_asked, exhaustive, found,
            source, hold_id, n)
        ORDER BY o.j, r.n;
      INSERT INTO history_values (platform, entity, metric, measured_at, value, store, stay, source)
        SELECT r.platform, r.entity, e.key, r.measured_at, e.value::double precision, r.store, r.stay, r.source
        FROM unnest(p_ords) AS o(i),
          jsonb_to_recordset(p_points[o.i]::jsonb) AS r(platform text, entity text, store text, stay jsonb,
            measured_at timestamptz, metrics jsonb, source text),
          jsonb_each_text(r.metrics) AS e;
      INSERT INTO ledger (account_id, kind, credits, reason, key_id, hold_id)
        SELECT o.account, 'capture', -p_captures[o.i], p_reasons[o.i], o.key, p_holds[o.i]
        FROM unnest(p_ords, p_hold_accounts, p_hold_keys) WITH ORDINALITY AS o(i, account, key, j)
        WHERE p_captures[o.i] > 0
        ORDER BY o.j;
      UPDATE idempotency x SET state = 'done', status = k.status, body = k.body
        FROM (SELECT DISTINCT ON (p_accounts[o.i], p_keys[o.i]) p_accounts[o.i] AS account, p_keys[o.i] AS key,
                     p_statuses[o.i] AS status, o.body
              FROM unnest(p_ords, p_bodies) WITH ORDINALITY AS o(i, body, j)
              WHERE p_keys[o.i] IS NOT NULL
              ORDER BY p_accounts[o.i], p_keys[o.i], o.j DESC) AS k
        WHERE x.account_id = k.account AND x.key = k.key;
    END $$;

    CREATE OR REPLACE FUNCTION pdr_settle_batch_keep(p_holds text[], p_accounts text[], p_captures bigint[],
                                                     p_reasons text[], p_measurements text[], p_points text[],
                                                     p_reveals text[], p_keys text[], p_statuses integer[],
                                                     p_answers text[])
    RETURNS TABLE (ord integer, id text, name text, balance bigint, held bigint, created_at timestamptz,
                   captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
      r record;
      v_body text;
      v_ords integer[] := '{}';
      v_accounts text[] := '{}';
      v_keys text[] := '{}';
      v_bodies text[] := '{}';
    BEGIN
      PERFORM 1 FROM accounts a
        WHERE a.id IN (SELECT unnest(p_accounts)
                       UNION SELECT x.account_id FROM unnest(p_holds) AS u(id) JOIN holds x ON x.id = u.id)
        ORDER BY a.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        IF p_holds[i] IS NULL OR p_reveals[i] IS DISTINCT FROM '[]' THEN
          -- the settles before it written first, so that every row is written in ask order
          IF cardinality(v_ords) > 0 THEN
            PERFORM pdr_settle_batch_write(v_ords, v_accounts, v_keys, v_bodies, p_holds, p_accounts, p_captures,
                                           p_reasons, p_measurements, p_points, p_keys, p_statuses);
            v_ords := '{}'; v_accounts := '{}'; v_keys := '{}'; v_bodies := '{}';
          END IF;
          IF p_keys[i] IS NULL THEN
            RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, NULL::text
              FROM pdr_settle(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                              p_points[i]::jsonb, p_reveals[i]::jsonb) AS s;
          ELSE
            RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, s.kept
              FROM pdr_settle_keep(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                                   p_points[i]::jsonb, p_reveals[i]::jsonb, p_keys[i], p_statuses[i], p_answers[i]) AS s;
          END IF;
          CONTINUE;
        END IF;
        WITH h AS (
          UPDATE holds x SET status = 'captured', captured = p_captures[i], settled_at = now()
          WHERE x.id = p_holds[i] AND x.status = 'held' AND p_captures[i] <= x.amount
          RETURNING x.account_id, x.key_id, x.amount)
        UPDATE accounts u SET balance = u.balance - p_captures[i], held = u.held - h.amount
          FROM h WHERE u.id = h.account_id
          RETURNING u.id, u.name, u.balance, u.held, u.created_at, h.key_id INTO r;
        CONTINUE WHEN NOT FOUND;
        -- json (not jsonb) keeps the answer's text as it is: its keys in their order (as pdr_settle_keep)
        v_body := CASE WHEN p_keys[i] IS NOT NULL THEN json_build_object('answer', p_answers[i]::json, 'cost',
          json_build_object('creditsCharged', p_captures[i], 'creditsRemaining', r.balance - r.held))::text END;
        v_ords := v_ords || i;
        v_accounts := v_accounts || r.id;
        v_keys := v_keys || r.key_id;
        v_bodies := v_bodies || v_body;
        ord := i; id := r.id; name := r.name; balance := r.balance; held := r.held; created_at := r.created_at;
        captured := p_captures[i]; kept := v_body;
        RETURN NEXT;
      END LOOP;
      IF cardinality(v_ords) > 0 THEN
        PERFORM pdr_settle_batch_write(v_ords, v_accounts, v_keys, v_bodies, p_holds, p_accounts, p_captures,
                                       p_reasons, p_measurements, p_points, p_keys, p_statuses);
      END IF;
    END $$;

    CREATE OR REPLACE FUNCTION pdr_place_holds(p_ids text[], p_accounts text[], p_keys text[], p_amounts bigint[],
                                               p_expires timestamptz[])
    RETURNS TABLE (ord integer, available bigint) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
      v_placed integer[] := '{}';
    BEGIN
      PERFORM 1 FROM accounts a WHERE a.id = ANY (p_accounts) ORDER BY a.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
        UPDATE accounts a SET held = a.held + p_amounts[i]
          WHERE a.id = p_accounts[i] AND a.balance - a.held >= p_amounts[i];
        IF FOUND THEN
          v_placed := v_placed || i;
        ELSE
          ord := i;
          available := coalesce((SELECT a.balance - a.held FROM accounts a WHERE a.id = p_accounts[i]), 0);
          RETURN NEXT;
        END IF;
      END LOOP;
      -- the placed holds in one statement (their accounts' rows are written and locked above)
      INSERT INTO holds (id, account_id, key_id, amount, expires_at)
        SELECT p_ids[o.i], p_accounts[o.i], p_keys[o.i], p_amounts[o.i], p_expires[o.i] FROM unnest(v_placed) AS o(i);
    END $$;
  `),
  // an idempotency claim's claimant (a run's own id): the end of a claim by a run that stalled past the stale bound
  // acts only on its own claim, never on the one another request took over since (0036: the group commit's tables)
  "0037_idempotency_claimant": migration(`
    ALTER TABLE idempotency ADD COLUMN claimant text;
  `),
  // issue 19: the claim looks for a runnable job in a lane (one probe of the pending index) before it takes the lane's
  // lock and counts its running slots; a lane with nothing to claim is passed over without either. The refresh claims
  // in all 16 platforms' lanes, and a pass usually has work in few: each empty lane cost a lock, a count and the
  // claim's query. Its locks are then held only on the lanes it claims from, so claimers at once skip each other less.
  "0038_claim_probes_lanes": migration(`
    CREATE OR REPLACE FUNCTION pdr_claim_jobs(q text, w text, n integer, lease_ms integer, lanes text[], lane_limit integer)
    RETURNS SETOF jobs LANGUAGE plpgsql AS $$
    DECLARE
      l text;
      free integer;
      room integer;
      took integer;
      got integer := 0;
    BEGIN
      WITH gone AS (
        SELECT id FROM jobs WHERE queue = q AND state = 'running' AND lease_until < now() FOR UPDATE SKIP LOCKED)
      UPDATE jobs j SET
        state = CASE WHEN j.attempts >= j.max_attempts THEN 'failed' ELSE 'pending' END,
        ended_at = CASE WHEN j.attempts >= j.max_attempts THEN now() END,
        taken_over_from = j.worker, worker = NULL, lease_until = NULL, run_at = now(),
        last_error = 'its worker stopped before it ended (lease expired)'
      FROM gone WHERE j.id = gone.id;
      FOREACH l IN ARRAY lanes LOOP
        EXIT WHEN got >= n;
        -- the claim's own order and index (the pending rows' partial index), so the probe reads one entry
        PERFORM 1 FROM jobs WHERE queue = q AND lane = l AND state = 'pending' AND run_at <= now()
          ORDER BY priority, id LIMIT 1;
        CONTINUE WHEN NOT FOUND;
        free := n - got;
        room := NULL;
        IF lane_limit > 0 THEN
          CONTINUE WHEN NOT pg_try_advisory_xact_lock(hashtext('pdr_jobs'), hashtext(q || '/' || l));
          SELECT lane_limit - coalesce(sum(least(slots, lane_limit)), 0) INTO room
            FROM jobs WHERE queue = q AND lane = l AND state = 'running';
          CONTINUE WHEN room <= 0;
        END IF;
        RETURN QUERY WITH c AS (
          SELECT id, priority, CASE WHEN lane_limit > 0 THEN least(slots, lane_limit) ELSE 1 END AS s
          FROM jobs WHERE queue = q AND lane = l AND state = 'pending' AND run_at <= now()
          ORDER BY priority, id LIMIT free FOR UPDATE SKIP LOCKED),
        k AS (
          SELECT x.id FROM (SELECT c.id, sum(c.s) OVER (ORDER BY c.priority, c.id) AS used FROM c) x
          WHERE room IS NULL OR x.used <= room)
        UPDATE jobs j SET state = 'running', worker = w, attempts = j.attempts + 1,
          lease_until = now() + lease_ms * interval '1 millisecond'
        FROM k WHERE j.id = k.id RETURNING j.*;
        GET DIAGNOSTICS took = ROW_COUNT;
        got := got + took;
      END LOOP;
    END $$;
  `),
  // D104: the key usage flushes written, by their batch's id, kept a day: a flush whose write committed though its
  // answer was lost (the connection dropped after the commit) is sent again by its server and adds nothing
  "0039_key_usage_flushes": migration(`
    CREATE TABLE key_usage_flushes (
      id text PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX key_usage_flushes_by_time ON key_usage_flushes (at);
  `),
  // issue 19 (the refresh's PostgreSQL CPU: a grouped draw was 65% of its statement time at zero latency, about
  // 156 us per entity): a draw without reveals is two reads in the batch's loop (its hold, still held with room for the
  // capture after the batch's earlier draws of it; its account, as the answer) and its rows are written with the other
  // such draws' by one statement per table (pdr_draw_batch_write), in ask order, before any draw with reveals (drawn
  // alone, pdr_draw(_keep), as before) and at the end. A hold drawn several times in the batch is written once: its
  // draws added, the last draw's reason kept, as the draws one by one leave it.
  "0040_draw_batch_write": migration(`
    CREATE FUNCTION pdr_draw_batch_write(p_ords integer[], p_bodies text[], p_holds text[], p_accounts text[],
                                         p_captures bigint[], p_reasons text[], p_measurements text[],
                                         p_points text[], p_keys text[], p_statuses integer[])
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO measurements (platform, op, entity, freshness_key, measured_at, rows, rows_asked, exhaustive, found,
                                source, hold_id)
        SELECT r.platform, r.op, r.entity, r.freshness_key, r.measured_at, r.rows, r.rows_asked, r.exhaustive, r.found,
               r.source, r.hold_id
        FROM unnest(p_ords) WITH ORDINALITY AS o(i, j),
          ROWS FROM (jsonb_to_recordset(p_measurements[o.i]::jsonb) AS (platform text, op text, entity text,
            freshness_key text, measured_at timestamptz, rows jsonb, rows_asked integer, exhaustive boolean,
            found boolean, source text, hold_id text))
          WITH ORDINALITY AS r(platform, op, entity, freshness_key, measured_at, rows, rows_asked, exhaustive, found,
            source, hold_id, n)
        ORDER BY o.j, r.n;
      INSERT INTO history_values (platform, entity, metric, measured_at, value, store, stay, source)
        SELECT r.platform, r.entity, e.key, r.measured_at, e.value::double precision, r.store, r.stay, r.source
        FROM unnest(p_ords) AS o(i),
          jsonb_to_recordset(p_points[o.i]::jsonb) AS r(platform text, entity text, store text, stay jsonb,
            measured_at timestamptz, metrics jsonb, source text),
          jsonb_each_text(r.metrics) AS e;
      UPDATE holds h SET captured = h.captured + d.drawn, reason = d.reason
        FROM (SELECT p_holds[o.i] AS hold, sum(p_captures[o.i]) AS drawn,
                     (array_agg(p_reasons[o.i] ORDER BY o.j DESC))[1] AS reason
              FROM unnest(p_ords) WITH ORDINALITY AS o(i, j)
              GROUP BY p_holds[o.i]) AS d
        WHERE h.id = d.hold;
      UPDATE idempotency x SET state = 'done', status = k.status, body = k.body
        FROM (SELECT DISTINCT ON (p_accounts[o.i], p_keys[o.i]) p_accounts[o.i] AS account, p_keys[o.i] AS key,
                     p_statuses[o.i] AS status, o.body
              FROM unnest(p_ords, p_bodies) WITH ORDINALITY AS o(i, body, j)
              WHERE p_keys[o.i] IS NOT NULL
              ORDER BY p_accounts[o.i], p_keys[o.i], o.j DESC) AS k
        WHERE x.account_id = k.account AND x.key = k.key;
    END $$;

    CREATE OR REPLACE FUNCTION pdr_draw_batch_keep(p_holds text[], p_accounts text[], p_captures bigint[],
                                                   p_reasons text[], p_measurements text[], p_points text[],
                                                   p_reveals text[], p_keys text[], p_statuses integer[],
                                                   p_answers text[])
    RETURNS TABLE (ord integer, id text, name text, balance bigint, held bigint, created_at timestamptz,
                   captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
      k integer;
      v_hold holds%ROWTYPE;
      a record;
      v_body text;
      v_ords integer[] := '{}';
      v_bodies text[] := '{}';
      -- what this batch drew from each hold and has not written yet
      v_drawn_holds text[] := '{}';
      v_drawn bigint[] := '{}';
    BEGIN
      PERFORM 1 FROM holds h WHERE h.id = ANY (p_holds) ORDER BY h.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        IF p_reveals[i] IS DISTINCT FROM '[]' THEN
          -- the draws before it written first: its hold's room and every row in ask order
          IF cardinality(v_ords) > 0 THEN
            PERFORM pdr_draw_batch_write(v_ords, v_bodies, p_holds, p_accounts, p_captures, p_reasons,
                                         p_measurements, p_points, p_keys, p_statuses);
            v_ords := '{}'; v_bodies := '{}'; v_drawn_holds := '{}'; v_drawn := '{}';
          END IF;
          IF p_keys[i] IS NULL THEN
            RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, NULL::text
              FROM pdr_draw(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                            p_points[i]::jsonb, p_reveals[i]::jsonb) AS s;
          ELSE
            RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, s.kept
              FROM pdr_draw_keep(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                                 p_points[i]::jsonb, p_reveals[i]::jsonb, p_keys[i], p_statuses[i], p_answers[i]) AS s;
          END IF;
          CONTINUE;
        END IF;
        SELECT * INTO v_hold FROM holds h WHERE h.id = p_holds[i] AND h.status = 'held';
        CONTINUE WHEN NOT FOUND;
        k := array_position(v_drawn_holds, p_holds[i]);
        CONTINUE WHEN p_captures[i] > v_hold.amount - v_hold.captured - coalesce(v_drawn[k], 0);
        IF k IS NULL THEN
          v_drawn_holds := v_drawn_holds || p_holds[i];
          v_drawn := v_drawn || p_captures[i];
        ELSE
          v_drawn[k] := v_drawn[k] + p_captures[i];
        END IF;
        -- a draw does not write the account: the answer is the account as it is
        SELECT x.id, x.name, x.balance, x.held, x.created_at INTO a FROM accounts x WHERE x.id = v_hold.account_id;
        v_body := CASE WHEN p_keys[i] IS NOT NULL THEN json_build_object('answer', p_answers[i]::json, 'cost',
          json_build_object('creditsCharged', p_captures[i], 'creditsRemaining', a.balance - a.held))::text END;
        v_ords := v_ords || i;
        v_bodies := v_bodies || v_body;
        ord := i; id := a.id; name := a.name; balance := a.balance; held := a.held; created_at := a.created_at;
        captured := p_captures[i]; kept := v_body;
        RETURN NEXT;
      END LOOP;
      IF cardinality(v_ords) > 0 THEN
        PERFORM pdr_draw_batch_write(v_ords, v_bodies, p_holds, p_accounts, p_captures, p_reasons, p_measurements,
                                     p_points, p_keys, p_statuses);
      END IF;
    END $$;
  `),
  // D115 (issue 19): a draw from a shared hold (a refresh's) keeps its answer only under its own idempotency claim: the
  // claim (account, key) still in flight and still this run's (`claimant`), locked for the draw's transaction (after
  // its hold, as every batch locks them). Otherwise it draws and writes nothing (answered as a hold not held: a stale
  // attempt settles nothing). A draw has no hold of its own whose release would fence it (D114): without this, a draw
  // statement still at the database when its connection was cut could commit after its claim was dropped and a retry
  // ran the call again (a second point and a second charge). The functions of 0031 / 0040 stay for a server of the
  // previous release still running beside this one during a deploy.
  "0041_draws_fenced_by_claim": migration(`
    CREATE FUNCTION pdr_draw_keep(p_hold text, p_account text, p_capture bigint, p_reason text, p_measurements jsonb,
                                  p_points jsonb, p_reveals jsonb, p_key text, p_status integer, p_answer text,
                                  p_claimant text)
    RETURNS TABLE (id text, name text, balance bigint, held bigint, created_at timestamptz, captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    BEGIN
      IF p_claimant IS NOT NULL THEN
        PERFORM 1 FROM holds h WHERE h.id = p_hold FOR UPDATE;
        PERFORM 1 FROM idempotency x WHERE x.account_id = p_account AND x.key = p_key AND x.state = 'in_flight'
          AND x.claimant = p_claimant FOR UPDATE;
        IF NOT FOUND THEN RETURN; END IF;
      END IF;
      RETURN QUERY SELECT * FROM pdr_draw_keep(p_hold, p_account, p_capture, p_reason, p_measurements, p_points,
                                                p_reveals, p_key, p_status, p_answer);
    END $$;

    CREATE FUNCTION pdr_draw_batch_keep(p_holds text[], p_accounts text[], p_captures bigint[], p_reasons text[],
                                        p_measurements text[], p_points text[], p_reveals text[], p_keys text[],
                                        p_statuses integer[], p_answers text[], p_claimants text[])
    RETURNS TABLE (ord integer, id text, name text, balance bigint, held bigint, created_at timestamptz,
                   captured bigint, kept text)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      i integer;
      k integer;
      v_hold holds%ROWTYPE;
      a record;
      v_body text;
      v_ords integer[] := '{}';
      v_bodies text[] := '{}';
      -- what this batch drew from each hold and has not written yet
      v_drawn_holds text[] := '{}';
      v_drawn bigint[] := '{}';
    BEGIN
      PERFORM 1 FROM holds h WHERE h.id = ANY (p_holds) ORDER BY h.id FOR UPDATE;
      FOR i IN 1 .. coalesce(array_length(p_holds, 1), 0) LOOP
        IF p_reveals[i] IS DISTINCT FROM '[]' THEN
          -- the draws before it written first: its hold's room and every row in ask order
          IF cardinality(v_ords) > 0 THEN
            PERFORM pdr_draw_batch_write(v_ords, v_bodies, p_holds, p_accounts, p_captures, p_reasons,
                                         p_measurements, p_points, p_keys, p_statuses);
            v_ords := '{}'; v_bodies := '{}'; v_drawn_holds := '{}'; v_drawn := '{}';
          END IF;
          IF p_keys[i] IS NULL THEN
            RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, NULL::text
              FROM pdr_draw(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                            p_points[i]::jsonb, p_reveals[i]::jsonb) AS s;
          ELSE
            RETURN QUERY SELECT i, s.id, s.name, s.balance, s.held, s.created_at, s.captured, s.kept
              FROM pdr_draw_keep(p_holds[i], p_accounts[i], p_captures[i], p_reasons[i], p_measurements[i]::jsonb,
                                 p_points[i]::jsonb, p_reveals[i]::jsonb, p_keys[i], p_statuses[i], p_answers[i],
                                 p_claimants[i]) AS s;
          END IF;
          CONTINUE;
        END IF;
        SELECT * INTO v_hold FROM holds h WHERE h.id = p_holds[i] AND h.status = 'held';
        CONTINUE WHEN NOT FOUND;
        k := array_position(v_drawn_holds, p_holds[i]);
        CONTINUE WHEN p_captures[i] > v_hold.amount - v_hold.captured - coalesce(v_drawn[k], 0);
        -- its claim, still this run's (D115)
        IF p_keys[i] IS NOT NULL AND p_claimants[i] IS NOT NULL THEN
          PERFORM 1 FROM idempotency x WHERE x.account_id = p_accounts[i] AND x.key = p_keys[i]
            AND x.state = 'in_flight' AND x.claimant = p_claimants[i] FOR UPDATE;
          CONTINUE WHEN NOT FOUND;
        END IF;
        IF k IS NULL THEN
          v_drawn_holds := v_drawn_holds || p_holds[i];
          v_drawn := v_drawn || p_captures[i];
        ELSE
          v_drawn[k] := v_drawn[k] + p_captures[i];
        END IF;
        -- a draw does not write the account: the answer is the account as it is
        SELECT x.id, x.name, x.balance, x.held, x.created_at INTO a FROM accounts x WHERE x.id = v_hold.account_id;
        v_body := CASE WHEN p_keys[i] IS NOT NULL THEN json_build_object('answer', p_answers[i]::json, 'cost',
          json_build_object('creditsCharged', p_captures[i], 'creditsRemaining', a.balance - a.held))::text END;
        v_ords := v_ords || i;
        v_bodies := v_bodies || v_body;
        ord := i; id := a.id; name := a.name; balance := a.balance; held := a.held; created_at := a.created_at;
        captured := p_captures[i]; kept := v_body;
        RETURN NEXT;
      END LOOP;
      IF cardinality(v_ords) > 0 THEN
        PERFORM pdr_draw_batch_write(v_ords, v_bodies, p_holds, p_accounts, p_captures, p_reasons, p_measurements,
                                     p_points, p_keys, p_statuses);
      END IF;
    END $$;
  `),
  // D131: an account's row is locked FOR NO KEY UPDATE (as an UPDATE of it locks it), not FOR UPDATE, by every
  // function that writes it: FOR UPDATE also waited for the key-share locks of rows inserted with a reference to the
  // account (call records, idempotency claims, holds) by transactions that were themselves waiting for another
  // account's row, so one account's row locked elsewhere held up the others' holds and settles (and deadlocked with
  // the call records' insert: stop 52's probe). Each function's definition as it stands, with its accounts' locks
  // changed and nothing else.
  // Then the functions that place holds and settle calls wait at most ledgerLockTimeoutMs for a row another session
  // keeps locked, then fail (55P03, nothing of them happened): a batch of several accounts' writes is not held up by
  // one of them (its writes are set apart by GroupCommit's isolation; one alone tries again every 50 ms). Every
  // version of each function (the earlier releases' overloads too)
  "0042_ledger_locks": migration(`
    DO $$
    DECLARE
      r record;
      def text;
      changed text;
    BEGIN
      FOR r IN SELECT p.oid FROM pg_proc p
        WHERE p.pronamespace = current_schema()::text::regnamespace AND p.proname LIKE 'pdr\\_%'
      LOOP
        def := pg_get_functiondef(r.oid);
        changed := regexp_replace(def, '(FROM accounts\\M[^;]*?)FOR UPDATE', '\\1FOR NO KEY UPDATE', 'g');
        IF changed <> def THEN
          EXECUTE changed;
        END IF;
      END LOOP;
    END $$;
    DO $$
    DECLARE f regprocedure;
    BEGIN
      FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = current_schema()::text::regnamespace
          AND p.proname IN ('pdr_place_holds', 'pdr_place_hold', 'pdr_settle_batch_keep', 'pdr_settle', 'pdr_settle_keep')
      LOOP
        EXECUTE format('ALTER FUNCTION %s SET lock_timeout = %L', f, '${ledgerLockTimeoutMs}ms');
      END LOOP;
    END $$;
  `)
}

/** Runs the pending migrations (safe with concurrent starters: the Migrator locks its table). */
export const run = Migrator.make({})({ loader: Migrator.fromRecord(all) })
