"""`chat demo --script`, the demo without a terminal, over plain HTTP and with `--tls` (HTTPS and
WSS with a certificate the demo makes for the run): the same story, every message read, the
queued one delivered after the network returns, exit 0."""

import os
import re
import subprocess

from harness import ROOT, Results, bin_path


def run_demo(*flags):
    result = subprocess.run([f"{bin_path()}/chat", "demo", "--script", *flags],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr.strip()}"
    return result.stdout + result.stderr


def check_story(transcript):
    for line in ['alice → bob: "hello bob"', 'alice → bob: "sent from a tunnel"', "back online",
                 "In Sunday hike, photos and documents:",
                 'carol: Photo · 1600×1067, thumbnail', "bob: File · route.pdf · ",
                 "downloaded on demand: ", "sha256 checked"]:
        assert line in transcript, f"missing {line!r} in:\n{transcript}"
    assert transcript.count("✓✓ read") == 2, transcript
    # The server's order: alice's two messages, in the order sent, with their sequences (bob's
    # 👍 on the first, an item of its own, may sit between them).
    order = re.findall(r"^  (\d+)  alice: (hello bob|sent from a tunnel)", transcript, re.M)
    assert [text for _, text in order] == ["hello bob", "sent from a tunnel"], transcript
    assert int(order[0][0]) < int(order[1][0]), transcript


def main():
    results = Results("demo script")

    def plain():
        transcript = run_demo()
        check_story(transcript)
        assert "https://" not in transcript, transcript

    results.check("chat demo --script tells the whole story", plain)

    def readme_command():
        # The README's first command, as a newcomer types it (here everything is installed, so
        # it goes straight to `swift run chat demo`).
        result = subprocess.run([os.path.join(ROOT, "scripts", "demo"), "--script"], cwd=ROOT,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"exit {result.returncode}: {result.stderr.strip()[-500:]}"
        check_story(result.stdout + result.stderr)

    results.check("scripts/demo --script (the README's first command) tells it too",
                  readme_command)

    def over_tls():
        transcript = run_demo("--tls")
        assert "Serving https://localhost:" in transcript, transcript
        check_story(transcript)

    results.check("chat demo --script --tls tells it over HTTPS and WSS", over_tls)
    results.finish()


if __name__ == "__main__":
    main()
