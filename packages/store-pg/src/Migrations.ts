/** Versioned migrations, run at start on the real server and on the embedded default alike. */

import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect } from "effect"

const migration = (statements: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statements).raw)

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
  `)
}

/** Runs the pending migrations (safe with concurrent starters: the Migrator locks its table). */
export const run = Migrator.make({})({ loader: Migrator.fromRecord(all) })
