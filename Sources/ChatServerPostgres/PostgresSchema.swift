import Postgres
import SQLite

extension PostgresStoreBackend {
  /// The schema on PostgreSQL, one named migration per version, like SQLite's (`migrator`):
  /// never edit a shipped one. `pg-v1` is SQLite's `v1` to `v6-push` in one, with PostgreSQL's
  /// types (text compares byte by byte, `COLLATE "C"`, as in SQLite: ids sort and RFC 3339
  /// times compare the same on both), and items partitioned by conversation (`PARTITION BY
  /// HASH`): the layout a sharded PostgreSQL (Citus) distributes by conversation. The signing
  /// key lives in `server_secrets` (hex), so every node signs and checks the same tokens;
  /// `live_relay` (unlogged: nothing in it outlives a crash on purpose) carries live events
  /// too large for a notification (`NodeRelay`).
  static let migrations = PostgresMigrations(migrations: [
    (
      "pg-v1",
      """
      CREATE TABLE conversations (
        id TEXT COLLATE "C" PRIMARY KEY,
        title TEXT COLLATE "C" NOT NULL,
        created_at BIGINT NOT NULL,
        last_sequence BIGINT NOT NULL DEFAULT 0,
        last_activity_at BIGINT NOT NULL,
        change_version BIGINT NOT NULL DEFAULT 0, -- SQLite's sync cursor; unused here
        change_xid XID8 NOT NULL DEFAULT pg_current_xact_id(), -- the last change's transaction
        last_message_sequence BIGINT NOT NULL DEFAULT 0,
        created_by TEXT COLLATE "C"
      );

      CREATE TABLE members (
        conversation_id TEXT COLLATE "C" NOT NULL REFERENCES conversations (id),
        user_id TEXT COLLATE "C" NOT NULL,
        delivered_up_to BIGINT NOT NULL DEFAULT 0,
        read_up_to BIGINT NOT NULL DEFAULT 0,
        membership TEXT COLLATE "C" NOT NULL DEFAULT 'member',
        muted_until TEXT COLLATE "C",
        PRIMARY KEY (conversation_id, user_id)
      );
      CREATE INDEX members_by_user ON members (user_id);

      CREATE TABLE member_ranges (
        conversation_id TEXT COLLATE "C" NOT NULL,
        user_id TEXT COLLATE "C" NOT NULL,
        first_sequence BIGINT NOT NULL,
        last_sequence BIGINT,
        PRIMARY KEY (conversation_id, user_id, first_sequence)
      );

      CREATE TABLE messages (
        conversation_id TEXT COLLATE "C" NOT NULL REFERENCES conversations (id),
        sequence BIGINT NOT NULL,
        id TEXT COLLATE "C" NOT NULL,
        sender_id TEXT COLLATE "C" NOT NULL,
        client_message_id TEXT COLLATE "C" NOT NULL,
        client_message_key TEXT COLLATE "C" NOT NULL,
        text TEXT COLLATE "C" NOT NULL,
        sent_at BIGINT NOT NULL,
        kind TEXT COLLATE "C" NOT NULL DEFAULT 'message',
        target_id TEXT COLLATE "C",
        target_key TEXT COLLATE "C",
        edited_at BIGINT,
        deleted INTEGER NOT NULL DEFAULT 0,
        added TEXT COLLATE "C",
        removed TEXT COLLATE "C",
        title TEXT COLLATE "C",
        request_key TEXT COLLATE "C",
        previous_title TEXT COLLATE "C",
        media TEXT COLLATE "C",
        media_key TEXT COLLATE "C",
        PRIMARY KEY (conversation_id, sequence),
        UNIQUE (conversation_id, sender_id, client_message_key)
      ) PARTITION BY HASH (conversation_id);
      CREATE TABLE messages_p0 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 0);
      CREATE TABLE messages_p1 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 1);
      CREATE TABLE messages_p2 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 2);
      CREATE TABLE messages_p3 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 3);
      CREATE TABLE messages_p4 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 4);
      CREATE TABLE messages_p5 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 5);
      CREATE TABLE messages_p6 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 6);
      CREATE TABLE messages_p7 PARTITION OF messages FOR VALUES WITH (MODULUS 8, REMAINDER 7);
      CREATE INDEX messages_by_target ON messages (conversation_id, sender_id, target_key)
        WHERE target_key IS NOT NULL;
      CREATE INDEX messages_by_media_key ON messages (media_key) WHERE media_key IS NOT NULL;

      CREATE TABLE refresh_tokens (
        token_hash BYTEA PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL,
        device_id TEXT COLLATE "C" NOT NULL,
        expires_at BIGINT NOT NULL,
        spent_at BIGINT
      );

      CREATE TABLE media_uploads (
        media_key TEXT COLLATE "C" PRIMARY KEY,
        owner_id TEXT COLLATE "C" NOT NULL,
        kind TEXT COLLATE "C" NOT NULL,
        content_type TEXT COLLATE "C" NOT NULL,
        byte_count BIGINT NOT NULL,
        sha256 TEXT COLLATE "C" NOT NULL,
        file_name TEXT COLLATE "C",
        upload_id TEXT COLLATE "C",
        complete INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        purged INTEGER NOT NULL DEFAULT 0
      );

      CREATE TABLE push_tokens (
        user_id TEXT COLLATE "C" NOT NULL,
        device_id TEXT COLLATE "C" NOT NULL,
        provider TEXT COLLATE "C" NOT NULL,
        token TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (user_id, device_id)
      );
      CREATE TABLE push_queue (
        user_id TEXT COLLATE "C" NOT NULL,
        device_id TEXT COLLATE "C" NOT NULL,
        conversation_id TEXT COLLATE "C" NOT NULL,
        sequence BIGINT,
        last_sent_at BIGINT,
        due_at BIGINT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, device_id, conversation_id)
      );
      CREATE INDEX push_queue_due ON push_queue (due_at) WHERE sequence IS NOT NULL;
      CREATE INDEX push_queue_by_conversation ON push_queue (conversation_id);

      CREATE UNLOGGED TABLE live_relay (
        id BIGSERIAL PRIMARY KEY,
        users TEXT NOT NULL,
        frame TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE server_secrets (
        name TEXT COLLATE "C" PRIMARY KEY,
        secret TEXT COLLATE "C" NOT NULL
      );
      """
    ),
    // API.md Part 2's search older messages. Words: a `simple` text-search vector of the
    // text with diacritics removed (`chat_fold`, immutable so it can be indexed; the case is
    // folded by the database's LC_CTYPE: a UTF-8 locale folds every script, `C` only ASCII).
    // Substrings (CJK, Thai…, emoji): `pg_trgm`'s index answers `ILIKE '%…%'`, checked on
    // the text itself, so what the trigrams cannot narrow is still found. Both are on the
    // partitioned table, so on every partition.
    (
      "pg-v2-search",
      """
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE EXTENSION IF NOT EXISTS unaccent;
      CREATE FUNCTION chat_fold(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
        AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
      CREATE INDEX messages_search_words ON messages
        USING gin (to_tsvector('simple', chat_fold(text))) WHERE kind = 'message';
      CREATE INDEX messages_search_substrings ON messages
        USING gin (text gin_trgm_ops) WHERE kind = 'message';
      """
    ),
    // SQLite's `v9-token-families`: refresh tokens in families, and the revoked families.
    (
      "pg-v3-token-families",
      """
      ALTER TABLE refresh_tokens ADD COLUMN family_id TEXT COLLATE "C";
      UPDATE refresh_tokens SET family_id = encode(token_hash, 'hex');
      ALTER TABLE refresh_tokens ALTER COLUMN family_id SET NOT NULL;
      CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
      CREATE TABLE token_family_revocations (
        family_id TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL,
        device_id TEXT COLLATE "C" NOT NULL,
        revoked_at BIGINT NOT NULL,
        forget_after BIGINT NOT NULL
      );
      """
    ),
    // SQLite's `v10-reactions-replies-mentions`: a message's reactions (API.md Part 3) in
    // their current state, a reaction item's emoji and whether it took it back, the members a
    // message mentions, the message a reply answers, and a message's media kind.
    (
      "pg-v4-reactions-replies-mentions",
      """
      ALTER TABLE messages ADD COLUMN reactions TEXT COLLATE "C";
      ALTER TABLE messages ADD COLUMN mentions TEXT COLLATE "C";
      ALTER TABLE messages ADD COLUMN reply_to_id TEXT COLLATE "C";
      ALTER TABLE messages ADD COLUMN reply_to_sequence BIGINT;
      ALTER TABLE messages ADD COLUMN media_kind TEXT COLLATE "C";
      UPDATE messages SET media_kind = CAST(media AS json)->>'kind' WHERE media IS NOT NULL;
      CREATE INDEX messages_by_key ON messages (conversation_id, client_message_key);
      ALTER TABLE messages ADD COLUMN emoji TEXT COLLATE "C";
      ALTER TABLE messages ADD COLUMN reaction_remove INTEGER NOT NULL DEFAULT 0;
      """
    ),
    // SQLite's `v11-mute-mentions`: a muted conversation's mention pushes, `push` or `silent`.
    (
      "pg-v5-mute-mentions",
      """
      ALTER TABLE members ADD COLUMN muted_mentions TEXT COLLATE "C" NOT NULL DEFAULT 'push';
      """
    ),
    // As SQLite's v12-pins.
    (
      "pg-v6-pins",
      """
      ALTER TABLE messages ADD COLUMN pinned_at BIGINT;
      CREATE INDEX messages_pinned ON messages (conversation_id, pinned_at)
        WHERE pinned_at IS NOT NULL;
      """
    ),
    (
      "pg-v7-drafts",
      """
      CREATE TABLE drafts (
        conversation_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        text TEXT NOT NULL,
        reply_to TEXT,
        version BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (conversation_id, user_id)
      );
      """
    ),
    (
      "pg-v8-blocking",
      """
      CREATE TABLE blocks (
        user_id TEXT NOT NULL,
        blocked_id TEXT NOT NULL,
        PRIMARY KEY (user_id, blocked_id)
      );
      CREATE INDEX blocks_blocked ON blocks (blocked_id);
      CREATE TABLE block_lists (
        user_id TEXT PRIMARY KEY,
        change_xid xid8 NOT NULL DEFAULT pg_current_xact_id()
      );
      """
    ),
    // API.md Part 3's forwarding (as SQLite's v15-forwarding).
    ("pg-v9-forwarding", "ALTER TABLE messages ADD COLUMN forwarded_from TEXT;"),
    // The send's fast path, one round trip (PostgresSendFunction.swift), then with pushes.
    PostgresSendFunction.firstMigration,
    PostgresSendFunction.migration,
  ])
}

/// Applies PostgreSQL migrations once, under an advisory lock, so nodes starting together do
/// not race; refuses a database a newer version migrated.
struct PostgresMigrations: Sendable {
  let migrations: [(identifier: String, sql: String)]

  func migrate(_ url: String) throws {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    try connection.execute("BEGIN")
    do {
      try connection.execute(
        """
        SELECT pg_advisory_xact_lock(1);
        CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT PRIMARY KEY);
        """)
      let applied = try connection.query("SELECT identifier FROM schema_migrations") {
        $0.string(0)
      }
      let known = Set(migrations.map(\.identifier))
      let unknown = applied.filter { !known.contains($0) }
      guard unknown.isEmpty else { throw MigrationError.unknownMigrations(unknown.sorted()) }
      for migration in migrations where !applied.contains(migration.identifier) {
        try connection.execute(migration.sql)
        try connection.run(
          "INSERT INTO schema_migrations (identifier) VALUES (?)",
          parameters: [migration.identifier])
      }
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }
}
