/// `chat_post_message`: a new text message stored in one statement, one round trip, one
/// implicit transaction (migration `pg-v10-one-round-trip`).
///
/// It is the send's fast path, not a second copy of its rules: it stores only when every rule
/// of `ServerStore.store` is plainly met, and otherwise returns no row and writes nothing, and
/// the node runs the whole rule set in a transaction of its own (`ServerStore.send`), which
/// gives the exact answer (a retry's stored item, 403, 404, 409). Plainly met means: the
/// conversation exists; the sender is a current member; the sender never used this
/// idempotency key here; in a one-to-one conversation the other member has not blocked the
/// sender. The caller sends only a message with text and nothing else (no media, reply,
/// forward, pushes to queue or known bug), and the mention candidates the text names
/// (`Mentions.candidates`: the sender and invalid names already left out), of which the
/// current members are kept, in order.
///
/// What it writes is what `ServerStore.store` writes for such a message: the conversation's
/// row lock first (the next sequence is the last plus one, as on every other write), the
/// message, the conversation's sequence, change and activity, and the sender's receipts
/// raised to the new sequence. It returns that sequence, the current members (sorted, for
/// the fan-out) and the mentions.
enum PostgresSendFunction {
  static let migration = (
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
}
