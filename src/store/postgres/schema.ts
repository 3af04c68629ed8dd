import type { Db } from './client.js'
import { StoreOpenError } from './errors.js'

/**
 * The database's format, in numbered steps. A start applies the steps the database lacks, in one
 * transaction under an advisory lock (several processes starting together upgrade it once), and
 * refuses a database whose version is newer than the last step it knows: a newer sendbox wrote
 * it, and this one could misread it.
 */
export const SCHEMA_VERSION = 6

/** Any fixed number, shared by every sendbox: the lock the upgrade takes. */
const UPGRADE_LOCK = 0x5e9db0c5

const STEPS: ReadonlyArray<(db: Db) => Promise<unknown>> = [
  // 1: messages as rows (the filterable columns, lower-cased as the filters compare them, and the
  // record as JSONB), suppressions, the sandbox's counters.
  (db) =>
    db.query({
      text: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE TABLE sendbox_messages (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        project text NOT NULL,
        status text NOT NULL,
        template_lc text NOT NULL,
        subject_lc text NOT NULL,
        from_lc text NOT NULL,
        to_lc text NOT NULL,
        recipients text[] NOT NULL,
        bytes integer NOT NULL,
        record jsonb NOT NULL
      );
      CREATE INDEX sendbox_messages_project ON sendbox_messages (project, seq);
      CREATE INDEX sendbox_messages_status ON sendbox_messages (status, seq);
      CREATE INDEX sendbox_messages_created ON sendbox_messages (created_at);
      CREATE INDEX sendbox_messages_recipients ON sendbox_messages USING gin (recipients);
      CREATE INDEX sendbox_messages_to ON sendbox_messages USING gin (to_lc gin_trgm_ops);
      CREATE INDEX sendbox_messages_from ON sendbox_messages USING gin (from_lc gin_trgm_ops);
      CREATE INDEX sendbox_messages_subject ON sendbox_messages USING gin (subject_lc gin_trgm_ops);
      CREATE INDEX sendbox_messages_template ON sendbox_messages USING gin (template_lc gin_trgm_ops);
      CREATE TABLE sendbox_suppressions (
        project text NOT NULL,
        address text NOT NULL,
        seq bigserial NOT NULL,
        entry jsonb NOT NULL,
        PRIMARY KEY (project, address)
      );
      CREATE TABLE sendbox_counters (name text PRIMARY KEY, value bigint NOT NULL);
      INSERT INTO sendbox_counters (name, value) VALUES ('dropped', 0);
    `,
    }),
  // 2: armed faults, counted down by every process.
  (db) =>
    db.query({
      text: `
      CREATE TABLE sendbox_faults (
        seq bigserial PRIMARY KEY,
        id text GENERATED ALWAYS AS ('fault_' || seq) STORED UNIQUE,
        remaining integer NOT NULL,
        fault jsonb NOT NULL
      );
    `,
    }),
  // 3: work any process claims (delivery steps, webhook attempts), webhook deliveries (one per
  // event and URL), rejected sends.
  (db) =>
    db.query({
      text: `
      CREATE TABLE sendbox_work (
        seq bigserial PRIMARY KEY,
        kind text NOT NULL,
        key text NOT NULL,
        lane text,
        due_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        owner text,
        lease_until timestamptz,
        payload jsonb NOT NULL,
        UNIQUE (kind, key)
      );
      CREATE INDEX sendbox_work_due ON sendbox_work (due_at);
      CREATE INDEX sendbox_work_lane ON sendbox_work (lane, seq) WHERE lane IS NOT NULL;
      CREATE TABLE sendbox_webhooks (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        webhook_id text NOT NULL,
        url text NOT NULL,
        message_id text NOT NULL,
        project text NOT NULL,
        type text NOT NULL,
        status text NOT NULL,
        delivery jsonb NOT NULL,
        UNIQUE (webhook_id, url)
      );
      CREATE INDEX sendbox_webhooks_message ON sendbox_webhooks (message_id, seq);
      CREATE TABLE sendbox_rejections (
        seq bigserial PRIMARY KEY,
        project text,
        rejection jsonb NOT NULL
      );
    `,
    }),
  // 4: a message's html and text in columns of their own, out of the record: they never change,
  // so a change of state (a delivery step) writes the record without them, about 0.5 KB where it
  // wrote 6.6 KB (the order-receipt example), and their stored values are kept as they are.
  // And every JSON value as json, not jsonb: jsonb refuses `\u0000`, which a send may carry
  // (text.ts), and json only checks the text, where jsonb rebuilds it. PostgreSQL's CPU per
  // statement on one backend (1,500 each): UPDATE of a state 0.17 → 0.05 ms, INSERT 0.19 →
  // 0.11 ms. An upgrade moves what is stored, once (seconds for 200,000 messages).
  (db) =>
    db.query({
      text: `
      ALTER TABLE sendbox_messages
        ADD COLUMN html json NOT NULL DEFAULT '""',
        ADD COLUMN text json NOT NULL DEFAULT '""';
      UPDATE sendbox_messages
      SET html = coalesce(record->'html', '""')::json, text = coalesce(record->'text', '""')::json,
          record = record - 'html' - 'text'
      WHERE record ? 'html' OR record ? 'text';
      ALTER TABLE sendbox_messages ALTER COLUMN record TYPE json USING record::json;
      ALTER TABLE sendbox_suppressions ALTER COLUMN entry TYPE json USING entry::json;
      ALTER TABLE sendbox_faults ALTER COLUMN fault TYPE json USING fault::json;
      ALTER TABLE sendbox_work ALTER COLUMN payload TYPE json USING payload::json;
      ALTER TABLE sendbox_webhooks ALTER COLUMN delivery TYPE json USING delivery::json;
      ALTER TABLE sendbox_rejections ALTER COLUMN rejection TYPE json USING rejection::json;
    `,
    }),
  // 5: how many messages the sandbox holds, kept in sendbox_counters ('stored') by triggers on
  // every statement that adds or removes messages (a send, a delete, a clear, a trim, a row
  // written by hand). The trim reads it and cuts the oldest past --max-messages from the old end
  // of the primary key, where it walked the newest `max` entries to find the cut; the count is
  // one row where it was a scan. The table is locked while the count is taken, so no message
  // added meanwhile is missed.
  (db) =>
    db.query({
      text: `
      LOCK TABLE sendbox_messages IN SHARE ROW EXCLUSIVE MODE;
      INSERT INTO sendbox_counters (name, value)
        SELECT 'stored', count(*) FROM sendbox_messages
        ON CONFLICT (name) DO UPDATE SET value = excluded.value;
      CREATE OR REPLACE FUNCTION sendbox_messages_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE sendbox_counters SET value = value + (SELECT count(*) FROM added)
        WHERE name = 'stored';
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION sendbox_messages_removed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE sendbox_counters SET value = value - (SELECT count(*) FROM removed)
        WHERE name = 'stored';
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION sendbox_messages_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE sendbox_counters SET value = 0 WHERE name = 'stored';
        RETURN NULL;
      END $$;
      DROP TRIGGER IF EXISTS sendbox_messages_added ON sendbox_messages;
      DROP TRIGGER IF EXISTS sendbox_messages_removed ON sendbox_messages;
      DROP TRIGGER IF EXISTS sendbox_messages_emptied ON sendbox_messages;
      CREATE TRIGGER sendbox_messages_added AFTER INSERT ON sendbox_messages
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION sendbox_messages_added();
      CREATE TRIGGER sendbox_messages_removed AFTER DELETE ON sendbox_messages
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION sendbox_messages_removed();
      CREATE TRIGGER sendbox_messages_emptied AFTER TRUNCATE ON sendbox_messages
        FOR EACH STATEMENT EXECUTE FUNCTION sendbox_messages_emptied();
    `,
    }),
  // 6: a statement that adds messages takes the 'stored' counter's row lock before it draws a
  // seq, and keeps it to its commit (the count's update took it after the rows, step 5): the
  // seqs of the messages being added are then above every seq committed, and messages commit in
  // seq order, so the highest seq a reader sees is a cursor that misses nothing (store.ts,
  // cursor). Without it, two sends drew seqs 7 and 8 and 8 committed first: a list read then
  // answered cursor 8, and a reader following it never saw 7 (23 of 600 missed, 16 senders).
  (db) =>
    db.query({
      text: `
      CREATE OR REPLACE FUNCTION sendbox_messages_adding() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM sendbox_counters WHERE name = 'stored' FOR NO KEY UPDATE;
        RETURN NULL;
      END $$;
      DROP TRIGGER IF EXISTS sendbox_messages_adding ON sendbox_messages;
      CREATE TRIGGER sendbox_messages_adding BEFORE INSERT ON sendbox_messages
        FOR EACH STATEMENT EXECUTE FUNCTION sendbox_messages_adding();
    `,
    }),
]

/**
 * Creates or upgrades the schema to SCHEMA_VERSION, in the transaction `tx` is in (index.ts runs
 * it in one); throws `store_newer` for a newer one. Answers the format the database had (0 when
 * it had none) and the one it has now. Only the client's type is imported here: the CLI reads
 * SCHEMA_VERSION without loading the client.
 *
 * @example
 * await transaction(pool, (tx) => migrate(tx, 'db.internal:5432/sendbox')) // { from: 4, to: 5 }
 */
export async function migrate(tx: Db, name: string): Promise<{ from: number; to: number }> {
  await tx.query({ text: 'SELECT pg_advisory_xact_lock($1)', values: [UPGRADE_LOCK] })
  await tx.query({ text: 'CREATE TABLE IF NOT EXISTS sendbox_schema (version integer NOT NULL)' })
  const { rows } = await tx.query<{ version: number }>({
    text: 'SELECT version FROM sendbox_schema',
  })
  const version = rows[0]?.version ?? 0
  if (version > SCHEMA_VERSION)
    throw new StoreOpenError(
      'store_newer',
      name,
      `The PostgreSQL store ${name} was written by a newer sendbox (format ${version}; this one reads up to ${SCHEMA_VERSION}). Upgrade sendbox on every process, or point --store at another database.`,
    )
  for (let step = version; step < SCHEMA_VERSION; step++) await STEPS[step]!(tx)
  if (rows.length === 0)
    await tx.query({
      text: 'INSERT INTO sendbox_schema (version) VALUES ($1)',
      values: [SCHEMA_VERSION],
    })
  else if (version < SCHEMA_VERSION)
    await tx.query({ text: 'UPDATE sendbox_schema SET version = $1', values: [SCHEMA_VERSION] })
  return { from: version, to: SCHEMA_VERSION }
}
