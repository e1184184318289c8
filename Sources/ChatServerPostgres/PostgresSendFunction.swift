/// `chat_post_message`: a new text message stored in one statement, one round trip, one
/// implicit transaction (migration `pg-v10-one-round-trip`, and `pg-v11-pushes-in-one-statement`
/// with its pushes).
///
/// It is the send's fast path, not a second copy of its rules: it stores only when every rule
/// of `ServerStore.store` is plainly met, and otherwise returns no row and writes nothing, and
/// the node runs the whole rule set in a transaction of its own (`ServerStore.send`), which
/// gives the exact answer (a retry's stored item, 403, 404, 409). Plainly met means: the
/// conversation exists; the sender is a current member; the sender never used this
/// idempotency key here; in a one-to-one conversation the other member has not blocked the
/// sender. The caller sends only a message with text and nothing else (no media, reply,
/// forward or known bug), and the mention candidates the text names
/// (`Mentions.candidates`: the sender and invalid names already left out), of which the
/// current members are kept, in order.
///
/// What it writes is what `ServerStore.store` writes for such a message: the conversation's
/// row lock first (the next sequence is the last plus one, as on every other write), the
/// message, the conversation's sequence, change and activity, and the sender's receipts
/// raised to the new sequence. It returns that sequence, the current members (sorted, for
/// the fan-out) and the mentions; with `p_push`, it queues the message's pushes too
/// (`migration`).
enum PostgresSendFunction {
  /// The function as first shipped (no pushes): kept as it was, for databases it migrated.
  static let firstMigration = (
    "pg-v10-one-round-trip",
    """
    CREATE FUNCTION chat_post_message(
      p_conversation TEXT, p_id TEXT, p_sender TEXT, p_client_message_id TEXT, p_key TEXT,
      p_text TEXT, p_sent_at BIGINT, p_candidates TEXT[])
    RETURNS TABLE (stored_sequence BIGINT, member_ids TEXT[], mention_ids TEXT[])
    LANGUAGE plpgsql AS $$
    DECLARE
      v_last BIGINT;
      v_members TEXT[];
      v_is_member BOOLEAN;
      v_mentions TEXT[];
    BEGIN
      SELECT c.last_sequence INTO v_last FROM conversations c
      WHERE c.id = p_conversation FOR UPDATE;
      IF NOT FOUND THEN RETURN; END IF;
      SELECT coalesce(
               array_agg(m.user_id ORDER BY m.user_id) FILTER (WHERE m.membership = 'member'),
               '{}'),
             coalesce(bool_or(m.user_id = p_sender AND m.membership = 'member'), false)
        INTO v_members, v_is_member
        FROM members m WHERE m.conversation_id = p_conversation;
      IF NOT v_is_member THEN RETURN; END IF;
      IF EXISTS (
        SELECT 1 FROM messages m
        WHERE m.conversation_id = p_conversation AND m.sender_id = p_sender
          AND m.client_message_key = p_key)
      THEN RETURN; END IF;
      IF cardinality(v_members) = 2 AND EXISTS (
        SELECT 1 FROM blocks b
        WHERE b.blocked_id = p_sender AND b.user_id = ANY (v_members) AND b.user_id <> p_sender)
      THEN RETURN; END IF;
      SELECT coalesce(array_agg(t.candidate ORDER BY t.position), '{}') INTO v_mentions
        FROM unnest(p_candidates) WITH ORDINALITY AS t(candidate, position)
        WHERE t.candidate = ANY (v_members);
      INSERT INTO messages (conversation_id, sequence, id, sender_id, client_message_id,
                            client_message_key, text, sent_at, kind, mentions)
      VALUES (p_conversation, v_last + 1, p_id, p_sender, p_client_message_id, p_key, p_text,
              p_sent_at, 'message',
              CASE WHEN cardinality(v_mentions) > 0 THEN array_to_string(v_mentions, ',') END);
      UPDATE conversations
        SET last_sequence = v_last + 1, change_xid = pg_current_xact_id(),
            last_activity_at = p_sent_at, last_message_sequence = v_last + 1
        WHERE id = p_conversation;
      UPDATE members SET delivered_up_to = v_last + 1, read_up_to = v_last + 1
        WHERE conversation_id = p_conversation AND user_id = p_sender;
      RETURN QUERY SELECT v_last + 1, v_members, v_mentions;
    END
    $$;
    """
  )

  /// The function with the message's pushes queued in it too, as `ServerStore.queuePushes`
  /// queues them (`p_push`: a push gateway is set): the conversation's `push_queue` rows
  /// locked first; each device of a member other than the sender with a push token, not
  /// blocking the sender, the conversation not muted now (or muted with mentions still
  /// pushed and the member named), and not among the devices that hear it live (`p_skip_*`);
  /// a device already owed one keeps its due time (counted as collapsed), any other is due
  /// at the later of now and its last push plus the window. It returns, besides, how many
  /// collapsed and the earliest due time.
  static let migration = (
    "pg-v11-pushes-in-one-statement",
    """
    DROP FUNCTION chat_post_message(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT[]);
    CREATE FUNCTION chat_post_message(
      p_conversation TEXT, p_id TEXT, p_sender TEXT, p_client_message_id TEXT, p_key TEXT,
      p_text TEXT, p_sent_at BIGINT, p_candidates TEXT[], p_push BOOLEAN, p_now TEXT,
      p_window BIGINT, p_skip_users TEXT[], p_skip_devices TEXT[])
    RETURNS TABLE (stored_sequence BIGINT, member_ids TEXT[], mention_ids TEXT[],
                   push_collapsed INTEGER, push_earliest_due BIGINT)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_last BIGINT;
      v_members TEXT[];
      v_is_member BOOLEAN;
      v_mentions TEXT[];
      v_collapsed INTEGER := 0;
      v_earliest BIGINT;
      v_due BIGINT;
      r RECORD;
    BEGIN
      SELECT c.last_sequence INTO v_last FROM conversations c
      WHERE c.id = p_conversation FOR UPDATE;
      IF NOT FOUND THEN RETURN; END IF;
      SELECT coalesce(
               array_agg(m.user_id ORDER BY m.user_id) FILTER (WHERE m.membership = 'member'),
               '{}'),
             coalesce(bool_or(m.user_id = p_sender AND m.membership = 'member'), false)
        INTO v_members, v_is_member
        FROM members m WHERE m.conversation_id = p_conversation;
      IF NOT v_is_member THEN RETURN; END IF;
      IF EXISTS (
        SELECT 1 FROM messages m
        WHERE m.conversation_id = p_conversation AND m.sender_id = p_sender
          AND m.client_message_key = p_key)
      THEN RETURN; END IF;
      IF cardinality(v_members) = 2 AND EXISTS (
        SELECT 1 FROM blocks b
        WHERE b.blocked_id = p_sender AND b.user_id = ANY (v_members) AND b.user_id <> p_sender)
      THEN RETURN; END IF;
      SELECT coalesce(array_agg(t.candidate ORDER BY t.position), '{}') INTO v_mentions
        FROM unnest(p_candidates) WITH ORDINALITY AS t(candidate, position)
        WHERE t.candidate = ANY (v_members);
      INSERT INTO messages (conversation_id, sequence, id, sender_id, client_message_id,
                            client_message_key, text, sent_at, kind, mentions)
      VALUES (p_conversation, v_last + 1, p_id, p_sender, p_client_message_id, p_key, p_text,
              p_sent_at, 'message',
              CASE WHEN cardinality(v_mentions) > 0 THEN array_to_string(v_mentions, ',') END);
      UPDATE conversations
        SET last_sequence = v_last + 1, change_xid = pg_current_xact_id(),
            last_activity_at = p_sent_at, last_message_sequence = v_last + 1
        WHERE id = p_conversation;
      UPDATE members SET delivered_up_to = v_last + 1, read_up_to = v_last + 1
        WHERE conversation_id = p_conversation AND user_id = p_sender;
      IF p_push THEN
        PERFORM 1 FROM push_queue q WHERE q.conversation_id = p_conversation FOR UPDATE;
        FOR r IN
          SELECT t.user_id, t.device_id, q.sequence AS owed, q.last_sent_at, q.due_at
          FROM members AS m
          JOIN push_tokens AS t ON t.user_id = m.user_id
          LEFT JOIN push_queue AS q ON q.user_id = t.user_id AND q.device_id = t.device_id
            AND q.conversation_id = m.conversation_id
          WHERE m.conversation_id = p_conversation AND m.membership = 'member'
            AND m.user_id <> p_sender
            AND NOT EXISTS (SELECT 1 FROM blocks AS b WHERE b.user_id = m.user_id
                              AND b.blocked_id = p_sender)
            AND ((m.muted_until IS NULL
                  OR (m.muted_until <> 'forever' AND m.muted_until <= p_now))
                 OR (m.muted_mentions = 'push' AND m.user_id = ANY (v_mentions)))
            AND NOT EXISTS (SELECT 1 FROM unnest(p_skip_users, p_skip_devices) AS s(u, d)
                            WHERE s.u = t.user_id AND s.d = t.device_id)
        LOOP
          IF r.owed IS NOT NULL AND r.due_at IS NOT NULL THEN
            v_due := r.due_at;
            v_collapsed := v_collapsed + 1;
          ELSE
            v_due := greatest(p_sent_at, coalesce(r.last_sent_at + p_window, p_sent_at));
          END IF;
          INSERT INTO push_queue (user_id, device_id, conversation_id, sequence, due_at)
          VALUES (r.user_id, r.device_id, p_conversation, v_last + 1, v_due)
          ON CONFLICT (user_id, device_id, conversation_id) DO UPDATE
            SET sequence = excluded.sequence, due_at = excluded.due_at;
          v_earliest := least(coalesce(v_earliest, v_due), v_due);
        END LOOP;
      END IF;
      RETURN QUERY SELECT v_last + 1, v_members, v_mentions, v_collapsed, v_earliest;
    END
    $$;
    """
  )
}
