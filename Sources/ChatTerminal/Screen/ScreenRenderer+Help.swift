/// The help screen's text: what the ticks mean and what each key does.
extension ScreenRenderer {
  static func helpBody(offersBackground: Bool) -> [StyledLine] {
    let background =
      offersBackground
      ? [
        "Ctrl-B sends the app to the background and back: the socket closes, the bots keep",
        "talking, and their pushes show at the top as a phone's lock screen would, one line per",
        "conversation; back in the foreground everything is there.",
        "",
      ] : []
    let lines = [
      "Messages are saved on this device first, then sent. Order is the server's on every device.",
      "",
      "Ticks on your messages:",
      "  ◷   sending (saved here, waiting for the server)",
      "  !   refused by the server: press Ctrl-R in the conversation to retry (same ID)",
      "  !   not sent: it waited over a day to go; Ctrl-R sends it now, Ctrl-X discards it",
      "  ✓   sent (dim: receipts not known yet)",
      "  ✓✓  delivered to the others",
      "  ✓✓  read (blue)",
      "",
      "Ctrl-N cycles the network: normal → offline → flaky → slow. Offline, sends wait with a",
      "clock and the banner says so; back online they go out, once each, in order. Flaky drops",
      "requests and loses replies: watch the retries keep one copy of each message.",
      "While anything waits, the list says \"N messages waiting\": w opens the outbox (each",
      "message's attempts, last error and next attempt; Enter sends now, x discards).",
      "",
      "In a conversation, Ctrl-E edits your last message (Enter saves, Esc cancels) and Ctrl-X",
      "twice deletes it for everyone. Offline, the change shows at once and goes out later; a",
      "message not sent yet is changed before it goes. Ctrl-G puts 👍 on the newest message",
      "(or takes yours back); pressed twice before it is sent, nothing is sent. Ctrl-Y replies",
      "to the newest message: the reply quotes it as it is now, on every device; Ctrl-T opens",
      "the conversation at the message the newest reply quotes, and Ctrl-L goes back to the",
      "newest. A conversation with more unread than fits opens at the first unread, under",
      "\"new messages\". In search, Tab opens the selected hit's conversation at that message.",
      "Ctrl-P pins the newest message for everyone (or unpins it), at most 10 a conversation;",
      "the pinned bar at the top shows one pin at a time, and Ctrl-O opens the conversation at",
      "it and moves the bar on to the next.",
      "",
      "Keys: ↑↓ select · Enter open/send · / search · n new conversation · Esc back · q quit",
    ]
    // Before the edit keys' paragraph.
    let at = lines.firstIndex { $0.hasPrefix("In a conversation") } ?? lines.count
    return (Array(lines[..<at]) + background + Array(lines[at...])).map { StyledLine("  " + $0) }
  }
}
