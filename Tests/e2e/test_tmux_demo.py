"""The screen, tested as a person would use it: `chat demo` under tmux, keys sent with
send-keys, the pane read with capture-pane."""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import uuid

from harness import Results, bin_path, wait_for

SESSION = f"chat-e2e-{uuid.uuid4().hex[:8]}"
# Read is ✓✓ in blue: the escape sequences just before the ticks set colour 34.
READ_TICK = re.compile(r"((?:\x1b\[[0-9;]*m)+)✓✓")


# A reactions line under a bubble: emoji and counts only ("👍 1  ❤️ 2"), styles aside.
REACTIONS = re.compile(r"^\s*(?:\x1b\[[0-9;]*m)*[^\w\s✓◷!]+ \d+(?:\x1b\[[0-9;]*m)*\s*(?:\x1b\[[0-9;]*m)*$")


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
    """The line under the text `marker`, past its reactions line ("👍 1") if it has one."""
    lines = screen.splitlines()
    for index, line in enumerate(lines):
        if marker in line and index + 1 < len(lines):
            after = lines[index + 1]
            if REACTIONS.search(after) and index + 2 < len(lines):
                return lines[index + 2]
            return after
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
            # And bob's answer, before anything else: arriving later, while the app is in the
            # background, it would be a second notification line.
            wait_for("bob's answer", lambda: "Got it." in pane())

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

        def edit_and_delete():
            keys("C-e")
            wait_for("the edit prompt", lambda: "✎ sent in a tunnel" in pane())
            keys(*["BSpace"] * len("tunnel"))
            text("train")
            keys("Enter")
            wait_for("the edited text", lambda: "sent in a train" in pane())
            wait_for("the edited mark", lambda: "· edited" in pane())
            keys("C-x")
            wait_for("the question", lambda: "^X again" in pane())
            keys("C-x")
            wait_for("the tombstone", lambda: "This message was deleted" in pane())
            assert "sent in a train" not in pane()

        results.check("Ctrl-E edits the last message of mine, Ctrl-X twice deletes it",
                      edit_and_delete)

        def photo_in_half_blocks():
            tmux("resize-window", "-t", SESSION, "-x", "100", "-y", "40")
            keys("Escape")
            wait_for("the list again", lambda: "Conversations" in pane())
            # The list's order follows activity: move to the row titled "Sunday hike".
            titles = [line for line in pane().splitlines()[1:] if line.startswith("› ")
                      or (line.startswith("  ") and not line.startswith("   ") and line.strip())]
            selected = next(i for i, line in enumerate(titles) if line.startswith("› "))
            target = next(i for i, line in enumerate(titles) if line[2:].startswith("Sunday hike"))
            step = "Down" if target > selected else "Up"
            keys(*[step] * abs(target - selected), "Enter")
            # A frame of 24-bit colour cells is tens of kilobytes: the pty hands it to tmux in
            # pieces, so a capture can land mid-frame. Wait for a whole photo, not the label.
            def photo_rows():
                screen = pane(colors=True)
                if "Photo · 1600×1067" not in screen or "File · route.pdf" not in screen:
                    return None
                cells = [line for line in screen.splitlines() if line.count("▀") >= 10]
                return cells if len(cells) >= 4 else None

            cells = wait_for("carol's photo in at least four rows of half blocks", photo_rows)
            colours = set(re.findall(r"\x1b\[38;2;(\d+;\d+;\d+)m", "".join(cells)))
            assert len(colours) > 10, f"{len(colours)} colours"

        results.check("a photo is drawn in coloured half blocks, a document by its name",
                      photo_in_half_blocks)

        def background_and_back():
            # In the group: both bots answer a question, about 3 s later. ^B at once: by then
            # the socket is closed (1 s grace) and their replies come as pushes.
            text("are you there?")
            keys("Enter")
            keys("C-b")
            wait_for("the background note", lambda: "In the background" in pane())
            wait_for("a notification line for the group",
                     lambda: "🔔 Sunday hike" in pane() and "Good question" in pane(), timeout=30)
            notifications = [line for line in pane().splitlines() if "🔔" in line]
            assert len(notifications) == 1, notifications  # one line per conversation
            keys("C-b")
            wait_for("the foreground", lambda: "Back in the foreground" in pane())
            assert "🔔" not in pane()
            wait_for("both replies in the conversation",
                     lambda: pane().count("Good question") >= 2, timeout=30)

        results.check("^B: in the background the bots' replies come as one notification line, "
                      "and are all there back in the foreground", background_and_back)

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
    """SIGSEGV mid-session: the handler leaves the alternate screen, shows the cursor and puts
    the terminal settings back, then dies of the signal. Run on a pty of our own rather than
    tmux, so every byte the process wrote before dying is read."""
    chat = f"{bin_path()}/chat"
    pid, master = pty.fork()
    if pid == 0:
        os.execv(chat, [chat, "demo"])
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    output = bytearray()

    def read_some():
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            return False
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return True
        output.extend(chunk)
        return not chunk

    try:
        wait_for("the screen", lambda: read_some() or b"Conversations" in output)
        assert not termios.tcgetattr(master)[3] & termios.ECHO, "raw mode was not entered"
        entered = len(output)
        os.kill(pid, signal.SIGSEGV)
        wait_for("the output to end", read_some)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV, "not SIGSEGV"
        tail = bytes(output[entered:])
        assert b"\x1b[?1049l" in tail, "the alternate screen was not left"
        assert b"\x1b[?25h" in tail, "the cursor was not shown again"
        flags = termios.tcgetattr(master)[3]
        assert flags & termios.ECHO and flags & termios.ICANON, "terminal settings not restored"
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(master)


if __name__ == "__main__":
    main()
