import SQLite

extension MessageStore {
  /// The client database's migrations. Shipped identifiers are never edited: a change is a new
  /// migration, tested against a database the previous version made.
  static var migrator: Migrator {
    var migrator = Migrator()
    migrator.register("v1") { db in
      try db.execute(
        """
        CREATE TABLE session (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          user_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          access_token TEXT NOT NULL,
          refresh_token TEXT NOT NULL,
          expires_at REAL NOT NULL
        );
        CREATE TABLE conversations (
          id TEXT PRIMARY KEY NOT NULL,
          title TEXT NOT NULL,
          member_ids TEXT NOT NULL,
          created_at REAL NOT NULL,
          last_sequence INTEGER NOT NULL DEFAULT 0,
          read_up_to INTEGER NOT NULL DEFAULT 0,
          read_acknowledged INTEGER NOT NULL DEFAULT 0,
          synced_up_to INTEGER,
          history_floor INTEGER
        );
        CREATE TABLE messages (
          id INTEGER PRIMARY KEY,
          conversation_id TEXT NOT NULL,
          client_id TEXT NOT NULL,
          sender_id TEXT NOT NULL,
          server_id TEXT,
          text TEXT NOT NULL,
          sequence INTEGER,
          sent_at REAL NOT NULL,
          state INTEGER NOT NULL,
          failure TEXT,
          outbox_position INTEGER,
          UNIQUE (conversation_id, sender_id, client_id)
        );
        CREATE UNIQUE INDEX messages_by_sequence ON messages (conversation_id, sequence);
        CREATE INDEX messages_outbox ON messages (outbox_position)
          WHERE outbox_position IS NOT NULL;
        CREATE INDEX messages_by_client_id ON messages (client_id);
        CREATE TABLE receipts (
          conversation_id TEXT PRIMARY KEY NOT NULL,
          delivered_up_to INTEGER NOT NULL,
          read_up_to INTEGER NOT NULL
        );
        CREATE TABLE member_receipts (
          conversation_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          delivered_up_to INTEGER NOT NULL,
          read_up_to INTEGER NOT NULL,
          PRIMARY KEY (conversation_id, user_id)
        );
        CREATE TABLE sync_state (
          key TEXT PRIMARY KEY NOT NULL,
          value TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE message_search USING fts5(
          text, content = 'messages', content_rowid = 'id',
          tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
          INSERT INTO message_search (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
          INSERT INTO message_search (message_search, rowid, text)
            VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF text ON messages BEGIN
          INSERT INTO message_search (message_search, rowid, text)
            VALUES ('delete', old.id, old.text);
          INSERT INTO message_search (rowid, text) VALUES (new.id, new.text);
        END;
        """)
    }
    // API.md Part 2's items: edits, deletes, member and title changes are rows of the log too
    // (so sequences stay dense for gap detection), and a message keeps its current state. Only
    // messages are in the search index, so its triggers now look at the kind; v1's rows are all
    // messages, so the index v1 built stays exact.
    migrator.register("v2-items") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message';
        ALTER TABLE messages ADD COLUMN target TEXT;
        ALTER TABLE messages ADD COLUMN edited_at REAL;
        ALTER TABLE messages ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX messages_by_target ON messages (conversation_id, sender_id, target)
          WHERE target IS NOT NULL;
        DROP TRIGGER messages_search_insert;
        DROP TRIGGER messages_search_delete;
        DROP TRIGGER messages_search_update;
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
        WHEN new.kind = 'message' BEGIN
          INSERT INTO message_search (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
        WHEN old.kind = 'message' BEGIN
          INSERT INTO message_search (message_search, rowid, text)
            VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF text ON messages
        WHEN old.kind = 'message' BEGIN
          INSERT INTO message_search (message_search, rowid, text)
            VALUES ('delete', old.id, old.text);
          INSERT INTO message_search (rowid, text) VALUES (new.id, new.text);
        END;
        """)
    }
    // Edits and deletes made on this device (API.md Part 2: an unsent message changes in place,
    // one whose post has started gets the change queued behind it). `posted_text` is the body
    // as first posted, kept for every retry of the same ID (a retry with another body is 409),
    // so `text` can follow local changes; set means "posting has started". A queued row that a
    // v2 app may already have posted counts as started. `pending_edited_at`: when a local edit
    // the server has not confirmed was made (shown as "edited"; never compared with the
    // server's times).
    migrator.register("v3-local-changes") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN posted_text TEXT;
        ALTER TABLE messages ADD COLUMN pending_edited_at REAL;
        UPDATE messages SET posted_text = text WHERE sequence IS NULL AND state = 0;
        """)
    }
    // API.md Part 2's groups that change: where I stand in each conversation (`membership`,
    // my `visible` ranges as `first:last` pairs, the creator), what members and title items
    // changed (`added`, `removed` as comma lists, `item_title`; `messages_members` finds a
    // group's members items without walking its messages), and the sequence each of the
    // conversation's members and title is known as of, so a late item never undoes a newer
    // state. v3's conversations: a member since the start.
    migrator.register("v4-groups") { db in
      try db.execute(
        """
        ALTER TABLE conversations ADD COLUMN membership TEXT NOT NULL DEFAULT 'member';
        ALTER TABLE conversations ADD COLUMN visible TEXT NOT NULL DEFAULT '1:';
        ALTER TABLE conversations ADD COLUMN created_by TEXT;
        ALTER TABLE conversations ADD COLUMN members_as_of INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN title_as_of INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE messages ADD COLUMN added TEXT;
        ALTER TABLE messages ADD COLUMN removed TEXT;
        ALTER TABLE messages ADD COLUMN item_title TEXT;
        CREATE INDEX messages_members ON messages (conversation_id, sequence)
          WHERE kind = 'members';
        """)
    }
    // API.md Part 2's mute, mine, from any of my devices: seconds since 1970, a far future for
    // `forever`, NULL when not muted.
    migrator.register("v5-mute") { db in
      try db.execute("ALTER TABLE conversations ADD COLUMN muted_until REAL;")
    }
    // A queued edit or delete of mine keeps the text its message had just before it
    // (`restore_text`), so a refusal by the server puts the message back as the server has it.
    // Blanked once the server answers.
    migrator.register("v6-restore") { db in
      try db.execute("ALTER TABLE messages ADD COLUMN restore_text TEXT;")
    }
    // API.md Part 2's media: a message's `media` as the API describes it (JSON, the thumbnail
    // inline as base64; my unsent one's `key` empty until its upload completes), `media_file`
    // (the full bytes' file name in the media folder beside the database, when this device
    // holds them), `media_viewed` (when last downloaded or opened: the cache of others' media
    // lets the least recently viewed go first), and my upload's progress: the store's key once
    // created, the bytes the store confirmed, and whether it completed.
    migrator.register("v7-media") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN media TEXT;
        ALTER TABLE messages ADD COLUMN media_file TEXT;
        ALTER TABLE messages ADD COLUMN media_viewed REAL;
        ALTER TABLE messages ADD COLUMN upload_key TEXT;
        ALTER TABLE messages ADD COLUMN upload_sent INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE messages ADD COLUMN upload_done INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX messages_media_files ON messages (media_viewed)
          WHERE media_file IS NOT NULL;
        """)
    }
    // Every script searchable: messages holding Chinese, Japanese, Korean, Thai… text or an
    // emoji (`FullTextQuery.unspacedGlob`) are also in a `trigram` index, which finds any
    // substring of three characters or more; its own copy of their text is what a one- or
    // two-character query scans. Other messages pay one GLOB per write. Changing the unspaced
    // ranges needs a migration that remakes these triggers and refills the index.
    migrator.register("v8-unspaced") { db in
      let unspaced = "new.kind = 'message' AND new.text GLOB '\(FullTextQuery.unspacedGlob)'"
      try db.execute(
        """
        CREATE VIRTUAL TABLE message_search_unspaced USING fts5(text, tokenize = 'trigram');
        INSERT INTO message_search_unspaced (rowid, text)
          SELECT id, text FROM messages
          WHERE kind = 'message' AND text GLOB '\(FullTextQuery.unspacedGlob)';
        CREATE TRIGGER messages_unspaced_insert AFTER INSERT ON messages
        WHEN \(unspaced) BEGIN
          INSERT INTO message_search_unspaced (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER messages_unspaced_delete AFTER DELETE ON messages BEGIN
          DELETE FROM message_search_unspaced WHERE rowid = old.id;
        END;
        CREATE TRIGGER messages_unspaced_update AFTER UPDATE OF text ON messages BEGIN
          DELETE FROM message_search_unspaced WHERE rowid = old.id;
          INSERT INTO message_search_unspaced (rowid, text)
            SELECT new.id, new.text WHERE \(unspaced);
        END;
        """)
    }
    // An outbox you can see, and stale sends that ask first. `queued_elapsed`: when the row
    // entered the outbox, in the engine's elapsed seconds (`SendClock`, which the phone's date
    // alone cannot move); a row of an older version counts from its `sent_at` (its creation on
    // this device's wall clock): its age so far, measured as the launch that migrates finds it.
    // `send_attempts`, `last_error` (a label, never a server's text about the message) and
    // `next_attempt_at` (wall seconds, shown only) describe its posts so far. `messages_unsent`:
    // the outbox as the user sees it, refused and held rows included, without a scan.
    migrator.register("v9-outbox") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN queued_elapsed REAL;
        ALTER TABLE messages ADD COLUMN send_attempts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE messages ADD COLUMN last_error TEXT;
        ALTER TABLE messages ADD COLUMN next_attempt_at REAL;
        UPDATE messages SET queued_elapsed = sent_at - CAST(strftime('%s', 'now') AS REAL)
        WHERE sequence IS NULL;
        CREATE INDEX messages_unsent ON messages (id) WHERE sequence IS NULL;
        """)
    }
    // A delete erases every byte (issue 33): what the search indexes' older segments keep of
    // a replaced or removed text is merged away by `SegmentEraser` passes, and the log's old
    // pages emptied, owed by these triggers: a text replaced or blanked, a row with text or
    // media gone, a media description (a file name) dropped, and the last copy of a text
    // before my own edit or delete (`posted_text`, `restore_text`) let go once the server
    // answered. A sent message letting go of `posted_text` (the same text) owes nothing.
    // Owed once from the start: a file made before kept deleted text in the unspaced index's
    // segments (it was never merged).
    migrator.register("v10-erasure") { db in
      try db.execute(
        SegmentEraser.schema
          + SegmentEraser.trigger(
            "messages_text_erased", after: "UPDATE OF text", on: "messages",
            when: "old.text != new.text")
          + SegmentEraser.trigger(
            "messages_media_erased", after: "UPDATE OF media", on: "messages",
            when: "old.media IS NOT NULL AND new.media IS NULL")
          + SegmentEraser.trigger(
            "messages_posted_text_erased", after: "UPDATE OF posted_text", on: "messages",
            when: "old.posted_text IS NOT NULL AND new.posted_text IS NULL"
              + " AND old.posted_text != new.text")
          + SegmentEraser.trigger(
            "messages_restore_text_erased", after: "UPDATE OF restore_text", on: "messages",
            when: "old.restore_text IS NOT NULL AND new.restore_text IS NULL"
              + " AND old.restore_text != new.text")
          + SegmentEraser.trigger(
            "messages_erased", after: "DELETE", on: "messages",
            when: "old.text != '' OR old.media IS NOT NULL"))
      try db.execute("UPDATE erasure SET owed = 1")
    }
    // API.md Part 3's reactions: a message's reactions as the server last served them
    // (`reactions_served`, JSON) and as shown (`reactions`: the served ones with every held
    // reaction item folded on top, kept at each save so the screen reads one column); a
    // reaction item's `emoji` and whether it took it back; the reaction items of a message
    // found by its ID (`messages_reactions`).
    migrator.register("v11-reactions") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN reactions TEXT;
        ALTER TABLE messages ADD COLUMN reactions_served TEXT;
        ALTER TABLE messages ADD COLUMN emoji TEXT;
        ALTER TABLE messages ADD COLUMN reaction_remove INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX messages_reactions ON messages (conversation_id, target, sequence)
          WHERE kind = 'reaction';
        """)
    }
    // API.md Part 3's replies and mentions: a reply's target (`reply_to`) and its quote as
    // the server served it (`quote`: JSON, 'null' when the reader cannot see the target; a
    // screen rebuilds it from the target when this device holds it); the members a message's
    // text names (`mentions`, comma-separated); a conversation's unread mentions as the server
    // last counted them and the mute's mentions option.
    migrator.register("v12-replies-mentions") { db in
      try db.execute(
        """
        ALTER TABLE messages ADD COLUMN reply_to TEXT;
        ALTER TABLE messages ADD COLUMN quote TEXT;
        ALTER TABLE messages ADD COLUMN mentions TEXT;
        ALTER TABLE conversations ADD COLUMN unread_mentions INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN muted_mentions TEXT NOT NULL DEFAULT 'push';
        """)
    }
    // The replies to a message, found by its ID (`messages_replies`): their stored quotes are
    // written again when it is edited or deleted (`MessagesTable+Replies.swift`).
    migrator.register("v13-replies-index") { db in
      try db.execute(
        """
        CREATE INDEX messages_replies ON messages (conversation_id, reply_to)
          WHERE reply_to IS NOT NULL;
        """)
    }
    // The messages whose mentions an edit made unknown (`MessagesTable.unknownMentions`),
    // found by the catch-up without walking the conversation.
    migrator.register("v14-mentions-unknown") { db in
      try db.execute(
        """
        CREATE INDEX messages_mentions_unknown ON messages (conversation_id, sequence)
          WHERE mentions = '?';
        """)
    }
    // API.md Part 3's pins: a conversation's pinned messages as the server last served them
    // (`pinned_served`) and the sequence they were true at (`pinned_as_of`: the answer's
    // `lastSequence`), and as shown (`pinned`: the served ones with the pin items above
    // `pinned_as_of` and my queued pins folded on top, `ConversationsTable+Pins.swift`); the
    // pin items of a conversation found by sequence (`messages_pins`). A device that held pin
    // items before kept no unpin flag on them: those are left behind `pinned_as_of`, and the
    // next `/v1/sync` starts from scratch so that every conversation brings its pinned list.
    migrator.register("v15-pins") { db in
      try db.execute(
        """
        ALTER TABLE conversations ADD COLUMN pinned_served TEXT;
        ALTER TABLE conversations ADD COLUMN pinned_as_of INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN pinned TEXT;
        UPDATE conversations SET pinned_as_of = last_sequence;
        CREATE INDEX messages_pins ON messages (conversation_id, sequence) WHERE kind = 'pin';
        DELETE FROM sync_state WHERE key = 'conversations';
        """)
    }
    // API.md Part 3's drafts: my draft of a conversation as typed here (`draft_text`,
    // `draft_reply_to`; NULL text: none known), the server's version it was typed on
    // (`draft_version`), and whether it was typed here since its last successful save
    // (`draft_dirty`: the server is owed it; `ConversationsTable+Drafts.swift`).
    migrator.register("v16-drafts") { db in
      try db.execute(
        """
        ALTER TABLE conversations ADD COLUMN draft_text TEXT;
        ALTER TABLE conversations ADD COLUMN draft_reply_to TEXT;
        ALTER TABLE conversations ADD COLUMN draft_version INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE conversations ADD COLUMN draft_dirty INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX conversations_draft_dirty ON conversations (id) WHERE draft_dirty = 1;
        """)
    }
    // API.md Part 3's blocking: the users I blocked, as the server last answered (`/v1/sync`'s
    // `blocked`, the `blocked` event, or my own block). A device that synced before kept no
    // list: the next `/v1/sync` starts from scratch so that the server answers it.
    migrator.register("v17-blocking") { db in
      try db.execute(
        """
        CREATE TABLE blocked_users (user_id TEXT PRIMARY KEY) WITHOUT ROWID;
        DELETE FROM sync_state WHERE key = 'conversations';
        """)
    }
    // API.md Part 3's forwarding: `forward_of` is what my unsent forward copies
    // ("conversationId/clientMessageId"), '' for a message the server serves as forwarded,
    // NULL for any other.
    migrator.register("v18-forwarding") { db in
      try db.execute("ALTER TABLE messages ADD COLUMN forward_of TEXT;")
    }
    return migrator
  }
}
