--
-- PostgreSQL database dump
--

\restrict 0GFZ3bzrc1BlfgbtnEuDueCdaKxZqx6lO2H86GJ6930GDHwwHehSvhu7doExoL4

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
    muted_until text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    media_key text COLLATE pg_catalog."C"
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
    spent_at bigint
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
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	Lunch	1796387873662	4	1796387874598	0	761	3	alice
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	Sunday hike	1796387873509	4	1796387873991	0	763	3	alice
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
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	alice	1	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	bob	1	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	carol	1	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	alice	1	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	bob	1	\N
\.


--
-- Data for Name: members; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.members (conversation_id, user_id, delivered_up_to, read_up_to, membership, muted_until) FROM stdin;
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	carol	3	3	member	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	bob	4	4	member	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	alice	3	1	member	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	bob	4	4	member	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	alice	4	4	member	\N
\.


--
-- Data for Name: messages_p0; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p0 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
\.


--
-- Data for Name: messages_p1; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p1 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	1	452e5d2a-8cbf-4af0-a520-f3a7a4891635	alice	01a2410f-a400-7000-9922-ad50354c2e1c	01a2410f-a400-7000-9922-ad50354c2e1c	Meet at the trailhead at nine	1796387873796	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	3	4277a64c-194e-4053-9c82-3c9c54083101	carol	01a2410f-a4c2-7000-8812-ea1fddd94d76	01a2410f-a4c2-7000-8812-ea1fddd94d76	Café au lait for me, merci	1796387873991	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	4	1b817559-1790-4edf-9138-3cfd160e741e	bob	ceaa0864-40e6-4a01-8407-fbedbc65dbe0	ceaa0864-40e6-4a01-8407-fbedbc65dbe0	Bringing coffee and tea for everyone	1796387874591	edit	01a2410f-a464-7000-88f8-1e93bc1c7fc5	01a2410f-a464-7000-88f8-1e93bc1c7fc5	\N	0	\N	\N	\N	\N	\N	\N	\N
19bb2bc6-69e1-428e-ab5a-3c39b7ef2fdc	2	8509a0c8-d1d5-4be5-8aaa-5f0607dbfaaa	bob	01a2410f-a464-7000-88f8-1e93bc1c7fc5	01a2410f-a464-7000-88f8-1e93bc1c7fc5	Bringing coffee and tea for everyone	1796387873897	message	\N	\N	1796387874591	0	\N	\N	\N	\N	\N	\N	\N
\.


--
-- Data for Name: messages_p2; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p2 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	1	2bbc13b5-0800-4fd5-ad51-ffcbaba63fc3	alice	01a2410f-a4ef-7000-b4ab-79ead4943970	01a2410f-a4ef-7000-b4ab-79ead4943970	Did you see the lighthouse photos?	1796387874036	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	2	56d6d80b-7ab9-484a-9926-52ec779d44c4	bob	01a2410f-a552-7000-8c19-72107070835d	01a2410f-a552-7000-8c19-72107070835d	Yes, the one at dusk is the best	1796387874135	message	\N	\N	\N	0	\N	\N	\N	\N	\N	\N	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	4	e54df6c9-ebda-42b3-ab6d-b4938716d951	bob	7dc74acf-15e2-4c46-b12f-5ba406452516	7dc74acf-15e2-4c46-b12f-5ba406452516		1796387874605	delete	bbf6e48c-7b9f-4d72-a806-54547d80ceb6	bbf6e48c-7b9f-4d72-a806-54547d80ceb6	\N	0	\N	\N	\N	\N	\N	\N	\N
fe98a8a7-c6a5-4c50-96d7-e1ab9fdc41e8	3	ab969403-749f-40ec-9b2c-a342208da712	bob	bbf6e48c-7b9f-4d72-a806-54547d80ceb6	bbf6e48c-7b9f-4d72-a806-54547d80ceb6		1796387874598	message	\N	\N	\N	1	\N	\N	\N	\N	\N	\N	\N
\.


--
-- Data for Name: messages_p3; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p3 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
\.


--
-- Data for Name: messages_p4; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p4 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
\.


--
-- Data for Name: messages_p5; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p5 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
\.


--
-- Data for Name: messages_p6; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p6 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
\.


--
-- Data for Name: messages_p7; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages_p7 (conversation_id, sequence, id, sender_id, client_message_id, client_message_key, text, sent_at, kind, target_id, target_key, edited_at, deleted, added, removed, title, request_key, previous_title, media, media_key) FROM stdin;
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

COPY public.refresh_tokens (token_hash, user_id, device_id, expires_at, spent_at) FROM stdin;
\\x4106a094247dd98b4476e88a846ccd45d075b62ff79d256b4833acf9888d37f3	alice	cli	1798979873331	\N
\\x4486ed2a31b0793a3188bdea4b82c6111e0f4aaab4de40e679d6366de0bfbe66	bob	cli	1798979873393	\N
\\x5762e993e54ab5c164745d60a2364a7adf77dbadb13a8ea5f09626909a343ffd	carol	cli	1798979873451	\N
\\xf388499e660e43ced5c40f23b66da7255e8d6b763694e4b1cfd0625ea126fd8f	bob	fixtures	1798979874587	\N
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (identifier) FROM stdin;
pg-v1
\.


--
-- Data for Name: server_secrets; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.server_secrets (name, secret) FROM stdin;
signing-key	f8434f784ed342fcf8946ea9ae4e6787b0cc0ad5cf76e0734f458f7f3e6c32ce
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
-- Name: members_by_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX members_by_user ON public.members USING btree (user_id);


--
-- Name: messages_by_media_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_media_key ON ONLY public.messages USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_by_target; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_by_target ON ONLY public.messages USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p0_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_conversation_id_sender_id_target_key_idx ON public.messages_p0 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p0_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p0_media_key_idx ON public.messages_p0 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p1_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_conversation_id_sender_id_target_key_idx ON public.messages_p1 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p1_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p1_media_key_idx ON public.messages_p1 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p2_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_conversation_id_sender_id_target_key_idx ON public.messages_p2 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p2_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p2_media_key_idx ON public.messages_p2 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p3_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_conversation_id_sender_id_target_key_idx ON public.messages_p3 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p3_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p3_media_key_idx ON public.messages_p3 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p4_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_conversation_id_sender_id_target_key_idx ON public.messages_p4 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p4_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p4_media_key_idx ON public.messages_p4 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p5_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_conversation_id_sender_id_target_key_idx ON public.messages_p5 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p5_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p5_media_key_idx ON public.messages_p5 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p6_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_conversation_id_sender_id_target_key_idx ON public.messages_p6 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p6_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p6_media_key_idx ON public.messages_p6 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: messages_p7_conversation_id_sender_id_target_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_conversation_id_sender_id_target_key_idx ON public.messages_p7 USING btree (conversation_id, sender_id, target_key) WHERE (target_key IS NOT NULL);


--
-- Name: messages_p7_media_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_p7_media_key_idx ON public.messages_p7 USING btree (media_key) WHERE (media_key IS NOT NULL);


--
-- Name: push_queue_by_conversation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_queue_by_conversation ON public.push_queue USING btree (conversation_id);


--
-- Name: push_queue_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_queue_due ON public.push_queue USING btree (due_at) WHERE (sequence IS NOT NULL);


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

\unrestrict 0GFZ3bzrc1BlfgbtnEuDueCdaKxZqx6lO2H86GJ6930GDHwwHehSvhu7doExoL4

