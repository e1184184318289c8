"""The contract suite: API.md's every route, error, limit and event against the real chat-server
binary over the network. Prints counts per group and ends with 'contract: N passed, N failed'.

    .venv/bin/python Tests/peers/contract/contract.py [--tls] [group ...]

With --tls the whole suite runs over TLS: certificates are made once for the run
(scripts/make-test-certificates, in a temporary folder), every server the suite starts serves
them (--tls-cert/--tls-key), and every client (httpx, websockets, the raw sockets) trusts only
their root CA; it then ends with 'contract-tls: N passed, N failed'. Every case runs in both
modes, the raw-socket ones (parser errors, the silent WebSocket, the request in flight at a stop)
included: they send the same bytes inside TLS records.

Groups: errors (with precedence and parser errors), rate-limit, address-rate-limit, auth (with refresh
and families), expiry, production,
conversations, messages, concurrency, paging, receipts, live, keepalive, limits, operations,
unavailable, push (with --push-webhook to a webhook in the test process), long-poll.
The binary is .build/debug/chat-server, or $CHAT_SERVER_BINARY.

With --postgres DIR every server keeps its data in the cluster scripts/postgres-local started in
DIR; --nodes N then runs the shared groups on N nodes of one database, and --relay DIR has the
nodes relay their live events through the NATS cluster scripts/nats-local started in DIR
(chat-server --relay) instead of PostgreSQL's NOTIFY.
"""

import sys
import time
import traceback

import cases_auth
import cases_blocking
import cases_data
import cases_drafts
import cases_errors
import cases_forwarding
import cases_groups
import cases_items
import cases_live
import cases_media
import cases_pins
import cases_ops
import cases_push
import cases_search
import chatserver
from chatserver import Certificates, Cluster, Report, Server

# Groups that share the main server (--dev, default rate limit), in order.
SHARED = [
    ("errors", cases_errors.run),
    ("auth", cases_auth.run),
    ("conversations", cases_data.run_conversations),
    ("messages", cases_data.run_messages),
    ("concurrency", cases_data.run_concurrency),
    ("paging", cases_data.run_paging),
    ("receipts", cases_data.run_receipts),
    ("edits", cases_items.run_edits),
    ("reactions", cases_items.run_reactions),
    ("mentions", cases_items.run_mentions),
    ("replies", cases_items.run_replies),
    ("pins", cases_pins.run),
    ("drafts", cases_drafts.run),
    ("blocking", cases_blocking.run),
    ("groups", cases_groups.run),
    ("mute", cases_groups.run_mute),
    ("receipts-burst", cases_groups.run_receipts_burst),
    ("search", cases_search.run),
    ("live", cases_live.run),
    ("limits", cases_ops.run_limits),
    ("operations", cases_ops.run_operations),
]
# Groups that start servers of their own (other options, or a stop).
OWN = [
    ("rate-limit", cases_errors.run_rate_limit),
    ("address-rate-limit", cases_errors.run_address_rate_limit),
    ("expiry", cases_auth.run_expiry),
    ("production", cases_auth.run_production),
    ("keepalive", cases_live.run_keepalive),
    ("slow-reader", cases_live.run_slow_reader),
    ("unavailable", cases_ops.run_unavailable),
    ("media", cases_media.run_uploads),
    ("media-off", cases_media.run_without_store),
    ("forwarding", cases_forwarding.run),
    ("push", cases_push.run),
    ("long-poll", cases_push.run_long_poll),
]


def main(arguments):
    arguments = list(arguments)
    if "--postgres" in arguments:
        at = arguments.index("--postgres")
        chatserver.serve_postgres(arguments[at + 1])
        del arguments[at:at + 2]
    relay = ""
    if "--relay" in arguments:
        at = arguments.index("--relay")
        if not chatserver.suite_postgres:
            sys.exit("contract.py: --relay needs --postgres (it relays between a database's nodes)")
        chatserver.serve_relay(arguments[at + 1])
        del arguments[at:at + 2]
        relay = "-nats"
    nodes = 1
    if "--nodes" in arguments:
        at = arguments.index("--nodes")
        nodes = int(arguments[at + 1])
        del arguments[at:at + 2]
        if nodes > 1 and not chatserver.suite_postgres:
            sys.exit("contract.py: --nodes needs --postgres (nodes share a PostgreSQL database)")
    tls = "--tls" in arguments
    selected = [argument for argument in arguments if argument != "--tls"]
    known = {name for name, _ in SHARED + OWN}
    unknown = [name for name in selected if name not in known]
    if unknown:
        sys.exit(f"contract.py: unknown group {', '.join(unknown)}; groups: {', '.join(sorted(known))}")
    if nodes > 1:
        return run_groups(Report(f"contract-{nodes}-nodes{relay}"), selected, nodes)
    if not tls:
        return run_groups(Report("contract"), selected)
    certificates = Certificates()
    chatserver.serve_tls(certificates)
    print(f"over TLS: https and wss, trusting only {certificates.path('ca.pem')}", flush=True)
    try:
        return run_groups(Report("contract-tls"), selected)
    finally:
        chatserver.serve_tls(None)
        certificates.remove()


def run_groups(report, selected, nodes=1):
    started = time.monotonic()
    wanted = lambda name: not selected or name in selected  # noqa: E731
    # The shared groups sign some 400 devices in from this one address within seconds: far over
    # the default per-address budget (its own group, address-rate-limit, proves it).
    arguments = ("--dev", "--address-rate-limit", "1000,100")
    shared = Server(*arguments) if nodes == 1 else Cluster(*arguments, nodes=nodes)
    with shared as server:
        for name, run in SHARED:
            if wanted(name):
                guarded(report, name, lambda: run(report, server))
    for name, run in OWN:
        if wanted(name):
            guarded(report, name, lambda: run(report))
    print(f"({time.monotonic() - started:.1f} s)")
    return report.finish()


def guarded(report, name, body):
    """A group that raises counts as one failure and the suite goes on."""
    try:
        body()
    except Exception as error:  # noqa: BLE001
        report.start_group(name)
        report.check(f"{name} ran to the end", False, f"{type(error).__name__}: {error}")
        traceback.print_exc()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
