"""The screen, tested as a person would use it: `chat demo` under tmux, keys sent with
send-keys, the pane read with capture-pane."""

import re
import subprocess
import uuid

from harness import Results, bin_path, wait_for

SESSION = f"chat-e2e-{uuid.uuid4().hex[:8]}"
# Read is ✓✓ in blue: the escape sequences just before the ticks set colour 34.
READ_TICK = re.compile(r"((?:\x1b\[[0-9;]*m)+)✓✓")


def is_read(line):
    match = READ_TICK.search(line)
    return bool(match) and any(
        "34" in code.split(";") for code in re.findall(r"\x1b\[([0-9;]*)m", match.group(1))
    )


def tmux(*args, check=True):
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=check)


def pane(colors=False):
    args = ["capture-pane", "-p", "-t", SESSION]
    if colors:
        args.insert(2, "-e")
    result = tmux(*args, check=False)
    return result.stdout if result.returncode == 0 else ""


def keys(*names):
    tmux("send-keys", "-t", SESSION, *names)


def text(line):
    tmux("send-keys", "-t", SESSION, "-l", line)


def line_after(marker, screen):
    lines = screen.splitlines()
    for index, line in enumerate(lines):
        if marker in line and index + 1 < len(lines):
            return lines[index + 1]
    return ""


def main():
    results = Results("tmux demo")
    chat = f"{bin_path()}/chat"
    tmux("new-session", "-d", "-s", SESSION, "-x", "100", "-y", "30", f"{chat} demo")
    try:
        results.check(
            "the list shows both conversations with unread counts",
            lambda: wait_for(
                "the list",
                lambda: "Sunday hike" in pane() and "bob" in pane() and "1 unread" in pane(),
            ),
        )

        def open_bob():
            keys("Down", "Enter")
            wait_for("bob's greeting", lambda: "Type a message and press Enter" in pane())

        results.check("Enter opens the conversation", open_bob)

        def send_and_read():
            text("hello from tmux")
            keys("Enter")
            wait_for("the message", lambda: "hello from tmux" in pane())
            wait_for(
                "the read tick under it",
                lambda: is_read(line_after("hello from tmux", pane(colors=True))),
            )

        results.check("a sent message shows, and its tick turns to read", send_and_read)

        def offline_send():
            keys("C-n")
            wait_for("the offline banner", lambda: "Waiting for network" in pane())
            text("sent in a tunnel")
            keys("Enter")
            wait_for("the clock", lambda: "◷" in line_after("sent in a tunnel", pane()))

        results.check("offline: the banner and the clock", offline_send)

        def back_online():
            keys("C-n", "C-n", "C-n")
            wait_for("the banner to go", lambda: "Waiting for network" not in pane())
            wait_for(
                "delivery, then read",
                lambda: is_read(line_after("sent in a tunnel", pane(colors=True))),
            )

        results.check("back online the queued message is delivered and read", back_online)

        def resize():
            tmux("resize-window", "-t", SESSION, "-x", "60", "-y", "20")
            wait_for(
                "a 60-column frame",
                lambda: (screen := pane())
                and all(len(line) <= 60 for line in screen.splitlines())
                and "sent in a tunnel" in screen
                and len(screen.splitlines()) <= 20,
            )

        results.check("the screen redraws at the new size", resize)

        def quit_restores():
            keys("Escape")
            wait_for("the list again", lambda: "Conversations" in pane())
            keys("q")
            wait_for(
                "the process to end",
                lambda: tmux("has-session", "-t", SESSION, check=False).returncode != 0,
            )

        results.check("q quits and the session ends", quit_restores)
    finally:
        tmux("kill-session", "-t", SESSION, check=False)
    results.check("a crash signal restores the terminal", crash_restores)
    results.finish()


def crash_restores():
    """SIGSEGV mid-session: the handler leaves the alternate screen, shows the cursor, puts the
    terminal back, then dies of the signal."""
    session = SESSION + "-crash"
    chat = f"{bin_path()}/chat"
    tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30")
    try:
        tmux("set-option", "-t", session, "remain-on-exit", "on")
        tmux("respawn-pane", "-k", "-t", session, f"{chat} demo")

        def flag(name):
            return tmux("display-message", "-p", "-t", session, f"#{{{name}}}").stdout.strip()

        wait_for("the screen", lambda: flag("alternate_on") == "1" and flag("cursor_flag") == "0")
        pid = flag("pane_pid")
        subprocess.run(["kill", "-SEGV", pid], check=True)
        wait_for("the process to die", lambda: flag("pane_dead") == "1")
        # tmux may mark the pane dead before it has read the last bytes: wait for the restore.
        wait_for(
            "the normal screen with a visible cursor",
            lambda: flag("alternate_on") == "0" and flag("cursor_flag") == "1",
            timeout=5,
        )
    finally:
        tmux("kill-session", "-t", session, check=False)


if __name__ == "__main__":
    main()
