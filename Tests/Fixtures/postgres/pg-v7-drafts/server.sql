--
-- PostgreSQL database dump
--

\restrict OpHB8Yk45xuR6hAHOT5v0xrmIX87Mzt0sgsobPMvYhNlzB6OhayQSo7g6Z711cb

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


SET default_tablespace = '';

SET default_table_access_method = heap;

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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
    pinned_at bigint
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
-- Data for Name: conversations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.conversations (id, title, created_at, last_sequence, last_activity_at, change_version, change_xid, last_message_sequence, created_by) FROM stdin;
69cc0b70-0181-47ce-af6a-0dc03e7124f0	Lunch	1796643265738	4	1796643267369	0	761	3	alice
95381655-aa8c-4228-81de-3c19aaefd0d1	Sunday hike	1796643265532	4	1796643266274	0	763	3	alice
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
95381655-aa8c-4228-81de-3c19aaefd0d1	alice	1	\N
95381655-aa8c-4228-81de-3c19aaefd0d1	bob	1	\N
95381655-aa8c-4228-81de-3c19aaefd0d1	carol	1	\N
69cc0b70-0181-47ce-af6a-0dc03e7124f0	alice	1	\N
69cc0b70-0181-47ce-af6a-0dc03e7124f0	bob	1	\N
\.


--
-- Data for Name: members; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.members (conversation_id, user_id, delivered_up_to, read_up_to, membership, muted_until, muted_mentions) FROM stdin;
95381655-aa8c-4228-81de-3c19aaefd0d1	carol	3	3	member	\N	push
69cc0b70-0181-47ce-af6a-0dc03e7124f0	alice	1	1	member	\N	push
95381655-aa8c-4228-81de-3c19aaefd0d1	bob	4	4	member	\N	push
69cc0b70-0181-47ce-af6a-0dc03e7124f0	bob	4	4	member	\N	push
95381655-aa8c-4228-81de-3c19aaefd0d1	alice	4	4	member	\N	push
\.


--
-- Data for Name: messages_p0; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p0 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
\.


--
-- Data for Name: messages_p1; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p1 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
95381655-aa8c-4228-81de-3c19aaefd0d1	1	684c6dc6-5250-440e-8985-9a3e97fcbc7a	alice	01a25048-9d91-7000-9f52-23b38d725537	01a25048-9d91-7000-9f52-23b38d725537	Meet at the trailhead at nine	1796643265945	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
95381655-aa8c-4228-81de-3c19aaefd0d1	3	00812529-84d6-4630-95d5-30ecba1aa108	carol	01a25048-9edc-7000-81f5-a9a411ee9917	01a25048-9edc-7000-81f5-a9a411ee9917	Café au lait for me, merci	1796643266274	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
95381655-aa8c-4228-81de-3c19aaefd0d1	4	e8601f3b-54c1-494a-acbd-ea0f170cff1c	bob	07723c7d-f499-435d-9369-467e4b15ea7d	07723c7d-f499-435d-9369-467e4b15ea7d	Bringing coffee and tea for everyone	1796643267358	edit	01a25048-9e41-7000-a463-430ccc532988	01a25048-9e41-7000-a463-430ccc532988	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
95381655-aa8c-4228-81de-3c19aaefd0d1	2	ce983c2f-a6a0-4d10-b6a0-f87ae2434657	bob	01a25048-9e41-7000-a463-430ccc532988	01a25048-9e41-7000-a463-430ccc532988	Bringing coffee and tea for everyone	1796643266118	message	\N	\N	1796643267358	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
\.


--
-- Data for Name: messages_p2; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p2 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
\.


--
-- Data for Name: messages_p3; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p3 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
69cc0b70-0181-47ce-af6a-0dc03e7124f0	1	6ae8bb09-1918-4c59-84e7-15aa4e900122	alice	01a25048-9f20-7000-94fe-6acbc9e731f2	01a25048-9f20-7000-94fe-6acbc9e731f2	Did you see the lighthouse photos?	1796643266341	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
69cc0b70-0181-47ce-af6a-0dc03e7124f0	2	f6eab03b-46b6-4922-8daa-3d04702cbe54	bob	01a25048-9fb2-7000-b533-ad4aeb83a413	01a25048-9fb2-7000-b533-ad4aeb83a413	Yes, the one at dusk is the best	1796643266487	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
69cc0b70-0181-47ce-af6a-0dc03e7124f0	4	4d58be1b-67d4-4f6e-9645-ecec30401fec	bob	07824c1c-2c4c-48c5-9802-dcda542d1536	07824c1c-2c4c-48c5-9802-dcda542d1536		1796643267376	delete	a77c9d6e-83e6-4883-850c-ac2a12f2df12	a77c9d6e-83e6-4883-850c-ac2a12f2df12	\N	0	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
69cc0b70-0181-47ce-af6a-0dc03e7124f0	3	ff379c77-f648-449d-9d02-a1a13179b406	bob	a77c9d6e-83e6-4883-850c-ac2a12f2df12	a77c9d6e-83e6-4883-850c-ac2a12f2df12		1796643267369	message	\N	\N	\N	1	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	0	\N
\.


--
-- Data for Name: messages_p4; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p4 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
\.


--
-- Data for Name: messages_p5; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p5 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
\.


--
-- Data for Name: messages_p6; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p6 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
\.


--
-- Data for Name: messages_p7; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p7 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key, reactions, mentions, reply_to_id, reply_to_sequence, media_kind, emoji, reaction_remove, pinned_at) FROM stdin;
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
\\xb5e45e6453365bcf06494ae5be8de17d65defcaba4315bff9461b5dace7f63ce	alice	cli	1799235265177	\N	16e83b8e-a0b5-4aa6-8ded-cd8525d8b6e9
\\x76c65adc1630d0c7416c9876414318d275b64ff7f9a0cd16420e121562448404	bob	cli	1799235265302	\N	8d22e859-a40f-4c6f-b55f-87aeede7d943
\\x4fb6feaf77a139d52fee689e712cd7e160492901334355095ba0074a26293042	carol	cli	1799235265410	\N	4b34ed9d-f9eb-47a6-a9bb-44a2cd4d0964
\\xfa67471bbec3ad58b1a89b9deee2edc0af1f3dd43413dc936ab73402ef10dbc2	bob	fixtures	1799235267349	\N	ec0fc559-119e-4327-8512-78d67e228b4a
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
\.


--
-- Data for Name: server_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.server_secrets (name, secret) FROM stdin;
signing-key	cb507acb77f2430c794e6d2e5ffb96f249d90494faf72d0fa65f788baddd50b9
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

\unrestrict OpHB8Yk45xuR6hAHOT5v0xrmIX87Mzt0sgsobPMvYhNlzB6OhayQSo7g6Z711cb

