import ChatAPI
import SQLite

extension ServerStore {
  /// The schema, one named migration per version. Never edit a shipped migration: add `v2`.
  static var migrator: Migrator {
    var migrator = Migrator()
    migrator.register("v1") { db in
      try db.execute(
        """
        CREATE TABLE conversations (
          id TEXT PRIMARY KEY NOT NULL,
          title TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          last_sequence INTEGER NOT NULL DEFAULT 0,
          last_activity_at INTEGER NOT NULL,
          change_version INTEGER NOT NULL
        );
        CREATE INDEX conversations_by_change ON conversations (change_version);

        CREATE TABLE members (
          conversation_id TEXT NOT NULL REFERENCES conversations (id),
          user_id TEXT NOT NULL,
          delivered_up_to INTEGER NOT NULL DEFAULT 0,
          read_up_to INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (conversation_id, user_id)
        );
        CREATE INDEX members_by_user ON members (user_id);

        CREATE TABLE messages (
          conversation_id TEXT NOT NULL REFERENCES conversations (id),
          sequence INTEGER NOT NULL,
          id TEXT NOT NULL,
          sender_id TEXT NOT NULL,
          client_message_id TEXT NOT NULL,
          client_message_key TEXT NOT NULL,
          text TEXT NOT NULL,
          sent_at INTEGER NOT NULL,
          UNIQUE (conversation_id, sequence),
          UNIQUE (conversation_id, sender_id, client_message_key)
        );

        CREATE TABLE refresh_tokens (
          token_hash BLOB PRIMARY KEY NOT NULL,
          user_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          expires_at INTEGER NOT NULL,
          spent_at INTEGER
        );
        """)
    }
    // API.md Part 2's items: the log holds edits and deletes too (`kind`, `target_key`: the
    // lowercase clientMessageId of the message they change, by the same sender), a message
    // carries its current state (`edited_at`, `deleted`), and a conversation's `lastMessage` is
    // its newest item of kind message. v1's rows are all messages.
    migrator.register("v2-items") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message';
        ALTER TABLE messages ADD COLUMN target_id TEXT;
        ALTER TABLE messages ADD COLUMN target_key TEXT;
        ALTER TABLE messages ADD COLUMN edited_at INTEGER;
        ALTER TABLE messages ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX messages_by_target ON messages (conversation_id, sender_id, target_key)
          WHERE target_key IS NOT NULL;
        ALTER TABLE conversations ADD COLUMN last_message_sequence INTEGER NOT NULL DEFAULT 0;
        UPDATE conversations SET last_message_sequence = last_sequence;
        """)
    }
    // API.md Part 2's groups that change: a member row stays when its user leaves or is
    // removed (`membership`), each stay is a visible range of sequences (`member_ranges`,
    // inclusive, open while a member), and members and title items carry what they changed.
    // `request_key` is a members or title item's request in canonical form, for retries; a
    // title item's `previous_title`, what a former member saw before it. v2's
    // members have been in since the start; v2 did not record who created a conversation.
    migrator.register("v3-groups") { db in
      try db.execute(
        """
        ALTER TABLE conversations ADD COLUMN created_by TEXT;
        ALTER TABLE members ADD COLUMN membership TEXT NOT NULL DEFAULT 'member';
        CREATE TABLE member_ranges (
          conversation_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          first_sequence INTEGER NOT NULL,
          last_sequence INTEGER,
          PRIMARY KEY (conversation_id, user_id, first_sequence)
        );
        INSERT INTO member_ranges (conversation_id, user_id, first_sequence)
          SELECT conversation_id, user_id, 1 FROM members;
        ALTER TABLE messages ADD COLUMN added TEXT;
        ALTER TABLE messages ADD COLUMN removed TEXT;
        ALTER TABLE messages ADD COLUMN title TEXT;
        ALTER TABLE messages ADD COLUMN request_key TEXT;
        ALTER TABLE messages ADD COLUMN previous_title TEXT;
        """)
    }
    // API.md Part 2's mute, per user and conversation: an RFC 3339 time, `forever`, or NULL.
    migrator.register("v4-mute") { db in
      try db.execute("ALTER TABLE members ADD COLUMN muted_until TEXT;")
    }
    // API.md Part 2's media: each upload a device asked for, until and after it completes
    // (`upload_id`: the store's multipart upload, NULL for a single PUT); a message's media
    // (API.md's Media as JSON, NULL once deleted) and its key, to find who may download it.
    migrator.register("v5-media") { db in
      try db.execute(
        """
        CREATE TABLE media_uploads (
          media_key TEXT PRIMARY KEY NOT NULL,
          owner_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          content_type TEXT NOT NULL,
          byte_count INTEGER NOT NULL,
          sha256 TEXT NOT NULL,
          file_name TEXT,
          upload_id TEXT,
          complete INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL,
          purged INTEGER NOT NULL DEFAULT 0
        );
        ALTER TABLE messages ADD COLUMN media TEXT;
        ALTER TABLE messages ADD COLUMN media_key TEXT;
        CREATE INDEX messages_by_media_key ON messages (media_key) WHERE media_key IS NOT NULL;
        """)
    }
    // API.md Part 2's push: one token per device (`push_tokens`), and what each device is owed
    // per conversation (`push_queue`): the newest message not yet pushed (`sequence`, NULL when
    // nothing is owed), when the last push went (`last_sent_at`, wall-clock milliseconds: the
    // collapse window holds across a restart), when the next may go (`due_at`), and failed
    // attempts in a row. A row is written in the same transaction as the message it is owed
    // for, so a push owed survives a restart.
    migrator.register("v6-push") { db in
      try db.execute(
        """
        CREATE TABLE push_tokens (
          user_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          provider TEXT NOT NULL,
          token TEXT NOT NULL,
          PRIMARY KEY (user_id, device_id)
        );
        CREATE TABLE push_queue (
          user_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          conversation_id TEXT NOT NULL,
          sequence INTEGER,
          last_sent_at INTEGER,
          due_at INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (user_id, device_id, conversation_id)
        );
        CREATE INDEX push_queue_due ON push_queue (due_at) WHERE sequence IS NOT NULL;
        """)
    }
    // API.md Part 2's search older messages. Items get a stable integer key (`row_id`: an
    // implicit rowid may change in a VACUUM, and the index names rows by it), so the table is
    // made again with the same rows and indexes. `message_search` (`unicode61`, diacritics and
    // case folded) indexes every item's text from the table itself; `message_search_unspaced`
    // (`trigram`) holds its own copy of the messages with Chinese, Japanese, Korean, Thai…
    // text or emoji (`FullTextQuery.unspacedGlob`), found by any substring. A delete blanks
    // the text, which takes it out of both.
    migrator.register("v7-search") { db in
      let unspaced = "new.kind = 'message' AND new.text GLOB '\(FullTextQuery.unspacedGlob)'"
      let columns = """
        conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text,
        sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title,
        request_key, previous_title, media, media_key
        """
      try db.execute(
        """
        CREATE TABLE messages_v7 (
          row_id INTEGER PRIMARY KEY,
          conversation_id TEXT NOT NULL REFERENCES conversations (id),
          sequence INTEGER NOT NULL,
          id TEXT NOT NULL,
          sender_id TEXT NOT NULL,
          client_message_id TEXT NOT NULL,
          client_message_key TEXT NOT NULL,
          text TEXT NOT NULL,
          sent_at INTEGER NOT NULL,
          kind TEXT NOT NULL DEFAULT 'message',
          target_id TEXT,
          target_key TEXT,
          edited_at INTEGER,
          deleted INTEGER NOT NULL DEFAULT 0,
          added TEXT,
          removed TEXT,
          title TEXT,
          request_key TEXT,
          previous_title TEXT,
          media TEXT,
          media_key TEXT,
          UNIQUE (conversation_id, sequence),
          UNIQUE (conversation_id, sender_id, client_message_key)
        );
        INSERT INTO messages_v7 (row_id, \(columns)) SELECT rowid, \(columns) FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_v7 RENAME TO messages;
        CREATE INDEX messages_by_target ON messages (conversation_id, sender_id, target_key)
          WHERE target_key IS NOT NULL;
        CREATE INDEX messages_by_media_key ON messages (media_key) WHERE media_key IS NOT NULL;

        CREATE VIRTUAL TABLE message_search USING fts5(
          text, content = 'messages', content_rowid = 'row_id',
          tokenize = 'unicode61 remove_diacritics 2'
        );
        INSERT INTO message_search (message_search) VALUES ('rebuild');
        CREATE VIRTUAL TABLE message_search_unspaced USING fts5(text, tokenize = 'trigram');
        INSERT INTO message_search_unspaced (rowid, text)
          SELECT row_id, text FROM messages
          WHERE kind = 'message' AND text GLOB '\(FullTextQuery.unspacedGlob)';
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
          INSERT INTO message_search (rowid, text) VALUES (new.row_id, new.text);
          INSERT INTO message_search_unspaced (rowid, text)
            SELECT new.row_id, new.text WHERE \(unspaced);
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
          INSERT INTO message_search (message_search, rowid, text)
            VALUES ('delete', old.row_id, old.text);
          DELETE FROM message_search_unspaced WHERE rowid = old.row_id;
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF text ON messages BEGIN
          INSERT INTO message_search (message_search, rowid, text)
            VALUES ('delete', old.row_id, old.text);
          INSERT INTO message_search (rowid, text) VALUES (new.row_id, new.text);
          DELETE FROM message_search_unspaced WHERE rowid = old.row_id;
          INSERT INTO message_search_unspaced (rowid, text)
            SELECT new.row_id, new.text WHERE \(unspaced);
        END;
        """)
    }
    // A delete erases every byte (issue 33): what the search indexes' older segments keep of
    // a replaced or removed text is merged away by `SegmentEraser` passes, and the log's old
    // pages emptied, owed by these triggers: a text replaced or blanked, a message's media
    // dropped, an upload's file name dropped or the upload gone. Owed once from the start:
    // the indexes of a database made before may hold the words of edits (only deletes were
    // merged then).
    migrator.register("v8-erasure") { db in
      try db.execute(
        SegmentEraser.schema
          + SegmentEraser.trigger(
            "messages_text_erased", after: "UPDATE OF text", on: "messages",
            when: "old.text != new.text")
          + SegmentEraser.trigger(
            "messages_media_erased", after: "UPDATE OF media", on: "messages",
            when: "old.media IS NOT NULL AND new.media IS NULL")
          + SegmentEraser.trigger(
            "media_uploads_name_erased", after: "UPDATE OF file_name", on: "media_uploads",
            when: "old.file_name IS NOT NULL AND new.file_name IS NULL")
          + SegmentEraser.trigger(
            "media_uploads_erased", after: "DELETE", on: "media_uploads",
            when: "old.file_name IS NOT NULL"))
      try db.execute("UPDATE erasure SET owed = 1")
    }
    // Refresh-token families (issue 33): every token rotated from one sign-in shares its
    // `family_id`, and a spent token presented again revokes its family (its rows go, and
    // `token_family_revocations` keeps the family until no access token of it can still be
    // unexpired, `forget_after`). A token kept before is a family of its own (its hash in hex).
    migrator.register("v9-token-families") { db in
      try db.execute(
        """
        ALTER TABLE refresh_tokens ADD COLUMN family_id TEXT NOT NULL DEFAULT '';
        UPDATE refresh_tokens SET family_id = lower(hex(token_hash));
        CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
        CREATE TABLE token_family_revocations (
          family_id TEXT PRIMARY KEY NOT NULL,
          user_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          revoked_at INTEGER NOT NULL,
          forget_after INTEGER NOT NULL
        );
        """)
    }
    // API.md Part 3's reactions, replies and mentions: a message's reactions in their current
    // state (`reactions`: API.md's array as JSON, NULL for none, so every read of a message
    // carries them without a second query), a reaction item's `emoji` and whether it took the
    // emoji back, the members a message's current text mentions (`mentions`, comma-separated,
    // NULL for none; v9's messages mention nobody), the message a reply answers
    // (`reply_to_id` as the client spelled it, `reply_to_sequence`), and a message's media
    // kind on its own (`media_kind`, what a quote shows of it without reading the media). A
    // reaction or a reply names its target by clientMessageId alone (`messages_by_key`).
    migrator.register("v10-reactions-replies-mentions") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN reactions TEXT;
        ALTER TABLE messages ADD COLUMN mentions TEXT;
        ALTER TABLE messages ADD COLUMN reply_to_id TEXT;
        ALTER TABLE messages ADD COLUMN reply_to_sequence INTEGER;
        ALTER TABLE messages ADD COLUMN media_kind TEXT;
        UPDATE messages SET media_kind = json_extract(media, '$.kind') WHERE media IS NOT NULL;
        CREATE INDEX messages_by_key ON messages (conversation_id, client_message_key);
        ALTER TABLE messages ADD COLUMN emoji TEXT;
        ALTER TABLE messages ADD COLUMN reaction_remove INTEGER NOT NULL DEFAULT 0;
        """)
    }
    // API.md Part 3's mute option: whether a muted conversation still pushes a message that
    // mentions the user (`push`, the default) or not (`silent`).
    migrator.register("v11-mute-mentions") { db in
      try db.execute(
        "ALTER TABLE members ADD COLUMN muted_mentions TEXT NOT NULL DEFAULT 'push';")
    }
    // API.md Part 3's pins: a pinned message carries the sequence of the pin item that pinned
    // it (`pinned_at`, NULL when not pinned: the newest pin first is the highest), and a pin
    // item keeps whether it unpinned in `reaction_remove` (a reaction's "took it back").
    migrator.register("v12-pins") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN pinned_at INTEGER;
        CREATE INDEX messages_pinned ON messages (conversation_id, pinned_at)
          WHERE pinned_at IS NOT NULL;
        """)
    }
    // API.md Part 3's drafts: one per user and conversation, its text, the message it
    // answers, its version (each save one more) and when it was saved (milliseconds).
    migrator.register("v13-drafts") { db in
      try db.execute(
        """
        CREATE TABLE drafts (
          conversation_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          text TEXT NOT NULL,
          reply_to TEXT,
          version INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (conversation_id, user_id)
        );
        """)
    }
    // API.md Part 3's blocking: who blocked whom, and each user's list's change version (the
    // conversations' counter: `/v1/sync` answers the list when it changed since the cursor).
    migrator.register("v14-blocking") { db in
      try db.execute(
        """
        CREATE TABLE blocks (
          user_id TEXT NOT NULL,
          blocked_id TEXT NOT NULL,
          PRIMARY KEY (user_id, blocked_id)
        );
        CREATE INDEX blocks_blocked ON blocks (blocked_id);
        CREATE TABLE block_lists (
          user_id TEXT PRIMARY KEY,
          change_version INTEGER NOT NULL
        );
        """)
    }
    // API.md Part 3's forwarding: a forward names its source ("conversationId/clientMessageKey"
    // of the message it copied), never served (it is served as `forwarded: true`), so that a
    // retry is recognised by its source.
    migrator.register("v15-forwarding") { db in
      try db.execute("ALTER TABLE messages ADD COLUMN forwarded_from TEXT;")
    }
    return migrator
  }
}
