--
-- PostgreSQL database dump
--

\restrict csMl18AghK9mtzxYNY2YnOsjeFnaA8rgVW92066pQYeunUsy1UU0Heo9SReXcd6

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


--
-- Name: unaccent; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;


--
-- Name: EXTENSION unaccent; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION unaccent IS 'text search dictionary that removes accents';


--
-- Name: chat_fold(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.chat_fold(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $_$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $_$;


--
-- Name: chat_post_message(text, text, text, text, text, text, bigint, text[], boolean, text, bigint, text[], text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.chat_post_message(p_conversation text, p_id text, p_sender text, p_client_message_id text, p_key text, p_text text, p_sent_at bigint, p_candidates text[], p_push boolean, p_now text, p_window bigint, p_skip_users text[], p_skip_devices text[]) RETURNS TABLE(stored_sequence bigint, member_ids text[], mention_ids text[], push_collapsed integer, push_earliest_due bigint)
    LANGUAGE plpgsql
    AS $$
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


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: block_lists; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.block_lists (
    user_id text NOT NULL,
    change_xid xid8 DEFAULT pg_current_xact_id() NOT NULL
);


--
-- Name: blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blocks (
    user_id text NOT NULL,
    blocked_id text NOT NULL
);


--
-- Name: conversations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversations (
    id text NOT NULL COLLATE pg_catalog."C",
    title text NOT NULL COLLATE pg_catalog."C",
    created_at bigint NOT NULL,
    last_sequence bigint DEFAULT 0 NOT NULL,
    last_activity_at bigint NOT NULL,
    change_version bigint DEFAULT 0 NOT NULL,
    change_xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
    last_message_sequence bigint DEFAULT 0 NOT NULL,
    created_by text COLLATE pg_catalog."C"
);


--
-- Name: drafts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.drafts (
    conversation_id text NOT NULL,
    user_id text NOT NULL,
    text text NOT NULL,
    reply_to text,
    version bigint NOT NULL,
    updated_at bigint NOT NULL
);


--
-- Name: live_relay; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.live_relay (
    id bigint NOT NULL,
    users text NOT NULL,
    frame text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: live_relay_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE UNLOGGED SEQUENCE public.live_relay_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: live_relay_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.live_relay_id_seq OWNED BY public.live_relay.id;


--
-- Name: media_uploads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.media_uploads (
    media_key text NOT NULL COLLATE pg_catalog."C",
    owner_id text NOT NULL COLLATE pg_catalog."C",
    kind text NOT NULL COLLATE pg_catalog."C",
    content_type text NOT NULL COLLATE pg_catalog."C",
    byte_count bigint NOT NULL,
    sha256 text NOT NULL COLLATE pg_catalog."C",
    file_name text COLLATE pg_catalog."C",
    upload_id text COLLATE pg_catalog."C",
    complete integer DEFAULT 0 NOT NULL,
    created_at bigint NOT NULL,
    purged integer DEFAULT 0 NOT NULL
);


--
-- Name: member_ranges; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.member_ranges (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    user_id text NOT NULL COLLATE pg_catalog."C",
    first_sequence bigint NOT NULL,
    last_sequence bigint
);


--
-- Name: members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.members (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    user_id text NOT NULL COLLATE pg_catalog."C",
    delivered_up_to bigint DEFAULT 0 NOT NULL,
    read_up_to bigint DEFAULT 0 NOT NULL,
    membership text DEFAULT 'member'::text NOT NULL COLLATE pg_catalog."C",
    muted_until text COLLATE pg_catalog."C",
    muted_mentions text DEFAULT 'push'::text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
)
PARTITION BY HASH (conversation_id);


--
-- Name: messages_p0; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p0 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p1; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p1 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p2; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p2 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p3; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p3 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p4; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p4 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p5; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p5 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p6; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p6 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: messages_p7; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_p7 (
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    sender_id text NOT NULL COLLATE pg_catalog."C",
    client_message_id text NOT NULL COLLATE pg_catalog."C",
    client_message_key text NOT NULL COLLATE pg_catalog."C",
    text text NOT NULL COLLATE pg_catalog."C",
    sent_at bigint NOT NULL,
    kind text DEFAULT 'message'::text NOT NULL COLLATE pg_catalog."C",
    target_id text COLLATE pg_catalog."C",
    target_key text COLLATE pg_catalog."C",
    edited_at bigint,
    deleted integer DEFAULT 0 NOT NULL,
    added text COLLATE pg_catalog."C",
    removed text COLLATE pg_catalog."C",
    title text COLLATE pg_catalog."C",
    request_key text COLLATE pg_catalog."C",
    previous_title text COLLATE pg_catalog."C",
    media text COLLATE pg_catalog."C",
    media_key text COLLATE pg_catalog."C",
    reactions text COLLATE pg_catalog."C",
    mentions text COLLATE pg_catalog."C",
    reply_to_id text COLLATE pg_catalog."C",
    reply_to_sequence bigint,
    media_kind text COLLATE pg_catalog."C",
    emoji text COLLATE pg_catalog."C",
    reaction_remove integer DEFAULT 0 NOT NULL,
    pinned_at bigint,
    forwarded_from text
);


--
-- Name: push_queue; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_queue (
    user_id text NOT NULL COLLATE pg_catalog."C",
    device_id text NOT NULL COLLATE pg_catalog."C",
    conversation_id text NOT NULL COLLATE pg_catalog."C",
    sequence bigint,
    last_sent_at bigint,
    due_at bigint NOT NULL,
    attempts bigint DEFAULT 0 NOT NULL
);


--
-- Name: push_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_tokens (
    user_id text NOT NULL COLLATE pg_catalog."C",
    device_id text NOT NULL COLLATE pg_catalog."C",
    provider text NOT NULL COLLATE pg_catalog."C",
    token text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.refresh_tokens (
    token_hash bytea NOT NULL,
    user_id text NOT NULL COLLATE pg_catalog."C",
    device_id text NOT NULL COLLATE pg_catalog."C",
    expires_at bigint NOT NULL,
    spent_at bigint,
    family_id text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    identifier text NOT NULL
);


--
-- Name: server_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_secrets (
    name text NOT NULL COLLATE pg_catalog."C",
    secret text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: token_family_revocations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_family_revocations (
    family_id text NOT NULL COLLATE pg_catalog."C",
    user_id text NOT NULL COLLATE pg_catalog."C",
    device_id text NOT NULL COLLATE pg_catalog."C",
    revoked_at bigint NOT NULL,
    forget_after bigint NOT NULL
);


--
-- Name: messages_p0; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p0 FOR VALUES WITH (modulus 8, remainder 0);


--
-- Name: messages_p1; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p1 FOR VALUES WITH (modulus 8, remainder 1);


--
-- Name: messages_p2; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p2 FOR VALUES WITH (modulus 8, remainder 2);


--
-- Name: messages_p3; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p3 FOR VALUES WITH (modulus 8, remainder 3);


--
-- Name: messages_p4; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p4 FOR VALUES WITH (modulus 8, remainder 4);


--
-- Name: messages_p5; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p5 FOR VALUES WITH (modulus 8, remainder 5);


--
-- Name: messages_p6; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p6 FOR VALUES WITH (modulus 8, remainder 6);


--
-- Name: messages_p7; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ATTACH PARTITION public.messages_p7 FOR VALUES WITH (modulus 8, remainder 7);


--
-- Name: live_relay id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.live_relay ALTER COLUMN id SET DEFAULT nextval('public.live_relay_id_seq'::regclass);


--
-- Data for Name: block_lists; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.block_lists (user_id, change_xid) FROM stdin;
\.


--
-- Data for Name: blocks; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.blocks (user_id, blocked_id) FROM stdin;
\.


--
-- Data for Name: conversations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.conversations (id, title, created_at, last_sequence, last_activity_at, change_version, change_xid, last_message_sequence, created_by) FROM stdin;
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	Lunch	1796669075085	4	1796669077054	0	761	3	alice
f0afa55b-af0b-499d-8785-ad13ad0c4bee	Sunday hike	1796669074786	4	1796669075766	0	763	3	alice
\.


--
-- Data for Name: drafts; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.drafts (conversation_id, user_id, text, reply_to, version, updated_at) FROM stdin;
\.


--
-- Data for Name: live_relay; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.live_relay (id, users, frame, created_at) FROM stdin;
\.


--
-- Data for Name: media_uploads; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.media_uploads (media_key, owner_id, kind, content_type, byte_count, sha256, file_name, upload_id, complete, created_at, purged) FROM stdin;
\.


--
-- Data for Name: member_ranges; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.member_ranges (conversation_id, user_id, first_sequence, last_sequence) FROM stdin;
f0afa55b-af0b-499d-8785-ad13ad0c4bee	alice	1	\N
f0afa55b-af0b-499d-8785-ad13ad0c4bee	bob	1	\N
f0afa55b-af0b-499d-8785-ad13ad0c4bee	carol	1	\N
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	alice	1	\N
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	bob	1	\N
\.


--
-- Data for Name: members; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.members (conversation_id, user_id, delivered_up_to, read_up_to, membership, muted_until, muted_mentions) FROM stdin;
f0afa55b-af0b-499d-8785-ad13ad0c4bee	carol	3	3	member	\N	push
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	alice	1	1	member	\N	push
f0afa55b-af0b-499d-8785-ad13ad0c4bee	bob	4	4	member	\N	push
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	bob	4	4	member	\N	push
f0afa55b-af0b-499d-8785-ad13ad0c4bee	alice	4	4	member	\N	push
\.


--
-- Data for Name: messages_p0; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p0 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
\.


--
-- Data for Name: messages_p1; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p1 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
f0afa55b-af0b-499d-8785-ad13ad0c4bee	1	f68c1e97-c89f-4ecf-9abd-815f6372dbe2	alice	01a251d2-6f97-7000-823b-738652c90307	01a251d2-6f97-7000-823b-738652c90307	Meet at the trailhead at nine	1796669075359	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
f0afa55b-af0b-499d-8785-ad13ad0c4bee	3	1c4afc18-d19d-406b-af5c-d5ad668d717e	carol	01a251d2-712f-7000-b410-34606ef2b86d	01a251d2-712f-7000-b410-34606ef2b86d	Café au lait for me, merci	1796669075766	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
f0afa55b-af0b-499d-8785-ad13ad0c4bee	4	69b330c2-39fa-4519-adae-36776542a482	bob	cf99894f-93a6-4a5d-844e-356b3d1825a9	cf99894f-93a6-4a5d-844e-356b3d1825a9	Bringing coffee and tea for everyone	1796669077040	edit	01a251d2-7073-7000-94d8-7ae6e4c19204	01a251d2-7073-7000-94d8-7ae6e4c19204	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
f0afa55b-af0b-499d-8785-ad13ad0c4bee	2	383e0c4d-1301-4cc9-9750-392aa1e3fc44	bob	01a251d2-7073-7000-94d8-7ae6e4c19204	01a251d2-7073-7000-94d8-7ae6e4c19204	Bringing coffee and tea for everyone	1796669075586	message	\N	\N	1796669077040	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
\.


--
-- Data for Name: messages_p2; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p2 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	1	af853fe8-b24c-4e32-b4be-9e0ce545df50	alice	01a251d2-717b-7000-85c7-3b7b1e7d7034	01a251d2-717b-7000-85c7-3b7b1e7d7034	Did you see the lighthouse photos?	1796669075840	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	2	1fae59be-16cb-4dc5-a9d6-09d1a5fb351f	bob	01a251d2-71fb-7000-93d6-7507dc00dea9	01a251d2-71fb-7000-93d6-7507dc00dea9	Yes, the one at dusk is the best	1796669075968	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	4	c871e900-2086-4e13-825b-c23f8a229721	bob	f0c31236-04b3-4fab-b72a-4081491e7df3	f0c31236-04b3-4fab-b72a-4081491e7df3		1796669077060	delete	efa25a70-425f-4b6f-b1e2-6b132cdbddcc	efa25a70-425f-4b6f-b1e2-6b132cdbddcc	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
6e1eaf16-1c1d-47b4-80be-23cf3136fcf7	3	e629037b-cfbb-47a0-a469-7c5f5ddca7e2	bob	efa25a70-425f-4b6f-b1e2-6b132cdbddcc	efa25a70-425f-4b6f-b1e2-6b132cdbddcc		1796669077054	message	\N	\N	\N	1	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N	\N
\.


--
-- Data for Name: messages_p3; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p3 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
\.


--
-- Data for Name: messages_p4; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p4 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
\.


--
-- Data for Name: messages_p5; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p5 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
\.


--
-- Data for Name: messages_p6; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p6 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
\.


--
-- Data for Name: messages_p7; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p7 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at, forwarded_from) FROM stdin;
\.


--
-- Data for Name: push_queue; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.push_queue (user_id, device_id, conversation_id, sequence, last_sent_at, due_at, attempts) FROM stdin;
\.


--
-- Data for Name: push_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.push_tokens (user_id, device_id, provider, token) FROM stdin;
\.


--
-- Data for Name: refresh_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.refresh_tokens (token_hash, user_id, device_id, expires_at, spent_at, family_id) FROM stdin;
\\x62dec75e12c64db76f460811ec0f0e476c06d121b98934326f90ce31941cfd89	alice	cli	1799261074430	\N	2c077564-d12a-42d9-ad31-ebf3a6cef01d
\\x008896d3d1daab431b7b63bf7ddb3733ddee4305676648b7ed903fa4d753b726	bob	cli	1799261074563	\N	0daf7def-4163-4248-94c8-32bb35fced55
\\x41e3013db35f942f7bb139708f6bc3974dfbd94fa7ee541e725e39df5b3b567a	carol	cli	1799261074667	\N	113c84f8-8db0-4f80-91b3-c2ca2dd6f109
\\x1859b079b46a7137ab6775094087a1db3a3ed562988108e435e68e6ea98c041c	bob	fixtures	1799261077023	\N	d4cd4c4d-6029-474e-8bae-930f7471c461
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (identifier) FROM stdin;
pg-v1
pg-v2-search
pg-v3-token-families
pg-v4-reactions-replies-mentions
pg-v5-mute-mentions
pg-v6-pins
pg-v7-drafts
pg-v8-blocking
pg-v9-forwarding
pg-v10-one-round-trip
pg-v11-pushes-in-one-statement
\.


--
-- Data for Name: server_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.server_secrets (name, secret) FROM stdin;
signing-key	e0f3a24c420b9158994e74eafc42df84c684e5083db5eef154df72d556594fbd
\.


--
-- Data for Name: token_family_revocations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.token_family_revocations (family_id, user_id, device_id, revoked_at, forget_after) FROM stdin;
\.


--
-- Name: live_relay_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.live_relay_id_seq', 1, false);


--
-- Name: block_lists block_lists_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.block_lists
    ADD CONSTRAINT block_lists_pkey PRIMARY KEY (user_id);


--
-- Name: blocks blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_pkey PRIMARY KEY (user_id, blocked_id);


--
-- Name: conversations conversations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (id);


--
-- Name: drafts drafts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.drafts
    ADD CONSTRAINT drafts_pkey PRIMARY KEY (conversation_id, user_id);


--
-- Name: live_relay live_relay_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.live_relay
    ADD CONSTRAINT live_relay_pkey PRIMARY KEY (id);


--
-- Name: media_uploads media_uploads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.media_uploads
    ADD CONSTRAINT media_uploads_pkey PRIMARY KEY (media_key);


--
-- Name: member_ranges member_ranges_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.member_ranges
    ADD CONSTRAINT member_ranges_pkey PRIMARY KEY (conversation_id, user_id, first_sequence);


--
-- Name: members members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_pkey PRIMARY KEY (conversation_id, user_id);


--
-- Name: messages messages_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p0 messages_p0_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p0
    ADD CONSTRAINT messages_p0_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p0 messages_p0_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p0
    ADD CONSTRAINT messages_p0_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p1 messages_p1_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p1
    ADD CONSTRAINT messages_p1_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p1 messages_p1_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p1
    ADD CONSTRAINT messages_p1_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p2 messages_p2_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p2
    ADD CONSTRAINT messages_p2_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p2 messages_p2_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p2
    ADD CONSTRAINT messages_p2_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p3 messages_p3_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p3
    ADD CONSTRAINT messages_p3_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p3 messages_p3_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p3
    ADD CONSTRAINT messages_p3_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p4 messages_p4_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p4
    ADD CONSTRAINT messages_p4_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p4 messages_p4_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p4
    ADD CONSTRAINT messages_p4_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p5 messages_p5_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p5
    ADD CONSTRAINT messages_p5_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p5 messages_p5_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p5
    ADD CONSTRAINT messages_p5_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p6 messages_p6_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p6
    ADD CONSTRAINT messages_p6_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p6 messages_p6_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p6
    ADD CONSTRAINT messages_p6_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: messages_p7 messages_p7_conversation_id_sender_id_client_message_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p7
    ADD CONSTRAINT messages_p7_conversation_id_sender_id_client_message_key_key UNIQUE (conversation_id, sender_id, client_message_key);


--
-- Name: messages_p7 messages_p7_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_p7
    ADD CONSTRAINT messages_p7_pkey PRIMARY KEY (conversation_id, sequence);


--
-- Name: push_queue push_queue_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_queue
    ADD CONSTRAINT push_queue_pkey PRIMARY KEY (user_id, device_id, conversation_id);


--
-- Name: push_tokens push_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_tokens
    ADD CONSTRAINT push_tokens_pkey PRIMARY KEY (user_id, device_id);


--
-- Name: refresh_tokens refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (identifier);


--
-- Name: server_secrets server_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_secrets
    ADD CONSTRAINT server_secrets_pkey PRIMARY KEY (name);


--
-- Name: token_family_revocations token_family_revocations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_family_revocations
    ADD CONSTRAINT token_family_revocations_pkey PRIMARY KEY (family_id);


--
-- Name: blocks_blocked; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blocks_blocked ON public.blocks USING btree (blocked_id);


--
-- Name: members_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX members_by_user ON public.members USING btree (user_id);


--
-- Name: messages_by_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_key ON ONLY public.messages USING btree (conversation_id, client_message_key);


--
-- Name: messages_by_media_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_media_key ON ONLY public.messages USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_by_target; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_target ON ONLY public.messages USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p0_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_conversation_id_client_message_key_idx ON public.messages_p0 USING btree (conversation_id, client_message_key);


--
-- Name: messages_pinned; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_pinned ON ONLY public.messages USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p0_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_conversation_id_pinned_at_idx ON public.messages_p0 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p0_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_conversation_id_sender_id_target_key_idx ON public.messages_p0 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p0_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_media_key_idx ON public.messages_p0 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_search_substrings; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_search_substrings ON ONLY public.messages USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p0_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_text_idx ON public.messages_p0 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_search_words; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_search_words ON ONLY public.messages USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p0_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_to_tsvector_idx ON public.messages_p0 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p1_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_conversation_id_client_message_key_idx ON public.messages_p1 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p1_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_conversation_id_pinned_at_idx ON public.messages_p1 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p1_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_conversation_id_sender_id_target_key_idx ON public.messages_p1 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p1_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_media_key_idx ON public.messages_p1 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p1_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_text_idx ON public.messages_p1 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p1_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_to_tsvector_idx ON public.messages_p1 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p2_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_conversation_id_client_message_key_idx ON public.messages_p2 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p2_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_conversation_id_pinned_at_idx ON public.messages_p2 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p2_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_conversation_id_sender_id_target_key_idx ON public.messages_p2 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p2_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_media_key_idx ON public.messages_p2 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p2_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_text_idx ON public.messages_p2 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p2_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_to_tsvector_idx ON public.messages_p2 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p3_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_conversation_id_client_message_key_idx ON public.messages_p3 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p3_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_conversation_id_pinned_at_idx ON public.messages_p3 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p3_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_conversation_id_sender_id_target_key_idx ON public.messages_p3 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p3_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_media_key_idx ON public.messages_p3 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p3_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_text_idx ON public.messages_p3 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p3_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_to_tsvector_idx ON public.messages_p3 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p4_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_conversation_id_client_message_key_idx ON public.messages_p4 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p4_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_conversation_id_pinned_at_idx ON public.messages_p4 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p4_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_conversation_id_sender_id_target_key_idx ON public.messages_p4 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p4_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_media_key_idx ON public.messages_p4 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p4_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_text_idx ON public.messages_p4 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p4_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_to_tsvector_idx ON public.messages_p4 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p5_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_conversation_id_client_message_key_idx ON public.messages_p5 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p5_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_conversation_id_pinned_at_idx ON public.messages_p5 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p5_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_conversation_id_sender_id_target_key_idx ON public.messages_p5 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p5_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_media_key_idx ON public.messages_p5 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p5_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_text_idx ON public.messages_p5 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p5_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_to_tsvector_idx ON public.messages_p5 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p6_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_conversation_id_client_message_key_idx ON public.messages_p6 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p6_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_conversation_id_pinned_at_idx ON public.messages_p6 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p6_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_conversation_id_sender_id_target_key_idx ON public.messages_p6 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p6_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_media_key_idx ON public.messages_p6 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p6_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_text_idx ON public.messages_p6 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p6_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_to_tsvector_idx ON public.messages_p6 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: messages_p7_conversation_id_client_message_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_conversation_id_client_message_key_idx ON public.messages_p7 USING btree (conversation_id, client_message_key);


--
-- Name: messages_p7_conversation_id_pinned_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_conversation_id_pinned_at_idx ON public.messages_p7 USING btree (conversation_id, pinned_at) WHERE (pinned_at IS NOT NULL);


--
-- Name: messages_p7_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_conversation_id_sender_id_target_key_idx ON public.messages_p7 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p7_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_media_key_idx ON public.messages_p7 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p7_text_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_text_idx ON public.messages_p7 USING gin (text public.gin_trgm_ops) WHERE (kind = 'message'::text);


--
-- Name: messages_p7_to_tsvector_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_to_tsvector_idx ON public.messages_p7 USING gin (to_tsvector('simple'::regconfig, public.chat_fold(text))) WHERE (kind = 'message'::text);


--
-- Name: push_queue_by_conversation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_queue_by_conversation ON public.push_queue USING btree (conversation_id);


--
-- Name: push_queue_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_queue_due ON public.push_queue USING btree (due_at) WHERE (sequence IS NOT NULL);


--
-- Name: refresh_tokens_by_family; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX refresh_tokens_by_family ON public.refresh_tokens USING btree (family_id);


--
-- Name: messages_p0_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p0_conversation_id_client_message_key_idx;


--
-- Name: messages_p0_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p0_conversation_id_pinned_at_idx;


--
-- Name: messages_p0_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p0_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p0_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p0_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p0_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p0_media_key_idx;


--
-- Name: messages_p0_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p0_pkey;


--
-- Name: messages_p0_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p0_text_idx;


--
-- Name: messages_p0_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p0_to_tsvector_idx;


--
-- Name: messages_p1_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p1_conversation_id_client_message_key_idx;


--
-- Name: messages_p1_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p1_conversation_id_pinned_at_idx;


--
-- Name: messages_p1_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p1_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p1_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p1_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p1_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p1_media_key_idx;


--
-- Name: messages_p1_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p1_pkey;


--
-- Name: messages_p1_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p1_text_idx;


--
-- Name: messages_p1_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p1_to_tsvector_idx;


--
-- Name: messages_p2_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p2_conversation_id_client_message_key_idx;


--
-- Name: messages_p2_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p2_conversation_id_pinned_at_idx;


--
-- Name: messages_p2_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p2_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p2_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p2_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p2_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p2_media_key_idx;


--
-- Name: messages_p2_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p2_pkey;


--
-- Name: messages_p2_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p2_text_idx;


--
-- Name: messages_p2_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p2_to_tsvector_idx;


--
-- Name: messages_p3_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p3_conversation_id_client_message_key_idx;


--
-- Name: messages_p3_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p3_conversation_id_pinned_at_idx;


--
-- Name: messages_p3_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p3_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p3_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p3_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p3_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p3_media_key_idx;


--
-- Name: messages_p3_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p3_pkey;


--
-- Name: messages_p3_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p3_text_idx;


--
-- Name: messages_p3_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p3_to_tsvector_idx;


--
-- Name: messages_p4_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p4_conversation_id_client_message_key_idx;


--
-- Name: messages_p4_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p4_conversation_id_pinned_at_idx;


--
-- Name: messages_p4_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p4_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p4_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p4_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p4_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p4_media_key_idx;


--
-- Name: messages_p4_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p4_pkey;


--
-- Name: messages_p4_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p4_text_idx;


--
-- Name: messages_p4_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p4_to_tsvector_idx;


--
-- Name: messages_p5_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p5_conversation_id_client_message_key_idx;


--
-- Name: messages_p5_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p5_conversation_id_pinned_at_idx;


--
-- Name: messages_p5_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p5_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p5_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p5_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p5_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p5_media_key_idx;


--
-- Name: messages_p5_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p5_pkey;


--
-- Name: messages_p5_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p5_text_idx;


--
-- Name: messages_p5_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p5_to_tsvector_idx;


--
-- Name: messages_p6_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p6_conversation_id_client_message_key_idx;


--
-- Name: messages_p6_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p6_conversation_id_pinned_at_idx;


--
-- Name: messages_p6_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p6_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p6_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p6_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p6_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p6_media_key_idx;


--
-- Name: messages_p6_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p6_pkey;


--
-- Name: messages_p6_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p6_text_idx;


--
-- Name: messages_p6_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p6_to_tsvector_idx;


--
-- Name: messages_p7_conversation_id_client_message_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_key ATTACH PARTITION public.messages_p7_conversation_id_client_message_key_idx;


--
-- Name: messages_p7_conversation_id_pinned_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pinned ATTACH PARTITION public.messages_p7_conversation_id_pinned_at_idx;


--
-- Name: messages_p7_conversation_id_sender_id_client_message_key_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_conversation_id_sender_id_client_message_key_key ATTACH PARTITION public.messages_p7_conversation_id_sender_id_client_message_key_key;


--
-- Name: messages_p7_conversation_id_sender_id_target_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_target ATTACH PARTITION public.messages_p7_conversation_id_sender_id_target_key_idx;


--
-- Name: messages_p7_media_key_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_by_media_key ATTACH PARTITION public.messages_p7_media_key_idx;


--
-- Name: messages_p7_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_pkey ATTACH PARTITION public.messages_p7_pkey;


--
-- Name: messages_p7_text_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_substrings ATTACH PARTITION public.messages_p7_text_idx;


--
-- Name: messages_p7_to_tsvector_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.messages_search_words ATTACH PARTITION public.messages_p7_to_tsvector_idx;


--
-- Name: members members_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.members
    ADD CONSTRAINT members_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id);


--
-- Name: messages messages_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.messages
    ADD CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id);


--
-- PostgreSQL database dump complete
--

\unrestrict csMl18AghK9mtzxYNY2YnOsjeFnaA8rgVW92066pQYeunUsy1UU0Heo9SReXcd6

