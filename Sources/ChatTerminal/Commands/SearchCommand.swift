import ArgumentParsing
import ChatData
import ChatDomain
import ChatPresentation
import Foundation

/// `chat search`: the local full-text index, offline; with `--on-server`, the server's search of
/// everything I can see ("Search older messages").
struct SearchCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Search the messages on this device (works offline), or on the server.",
    discussion: """
      Words match whole words, the last also as a prefix (`hik` finds `hiking`; `hik*` makes \
      any word a prefix); case and accents are ignored. Chinese, Japanese, Korean and Thai \
      text, and emoji, are found by any part of them. When this device does not hold every \
      conversation from its start (its retention window pruned it, or older pages were never \
      fetched), the answer says older messages may be on the server: search there with \
      --on-server.
      """)

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  /// Not `--server`: that global option names the server's URL.
  @Flag(
    name: .customLong("on-server"),
    help: "Search the server: older messages this device does not hold (needs the network).")
  var onServer = false
  @Option(help: "With --on-server: the next page, from the previous page's nextCursor.")
  var before: String?
  @Argument(help: "The words to find.") var words: [String] = []

  var query: String { words.joined(separator: " ") }

  func validate() throws {
    guard !words.isEmpty else { throw ValidationError("missing <words>") }
    if before != nil && !onServer { throw ValidationError("--before needs --on-server") }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      if onServer {
        let page = try await attempt {
          try await engine.conversationList.searchServer(query, limit: 50, before: before)
        }
        if context.output.json {
          context.output.json(
            ServerSearchJSON(hits: page.hits.map(SearchHitJSON.init), nextCursor: page.nextCursor))
        } else {
          print(page.hits, context)
          if let cursor = page.nextCursor {
            context.output.line("More on the server: --before \(cursor)")
          }
        }
        return .success
      }
      let search = try await attempt {
        try await engine.conversationList.search(query, limit: 50)
      }
      if context.output.json {
        context.output.json(
          LocalSearchJSON(
            hits: search.hits.map(SearchHitJSON.init), mayBeIncomplete: search.mayBeIncomplete))
      } else {
        print(search.hits, context)
        if search.mayBeIncomplete {
          context.output.line(
            "Older messages may be on the server only: \(SearchState.searchOlderLabel.lowercased())"
              + " with `chat search --on-server \(query)`.")
        }
      }
      return .success
    }
  }

  private func print(_ hits: [SearchHit], _ context: CommandContext) {
    guard !hits.isEmpty else {
      context.output.line("No messages match.")
      return
    }
    for hit in hits {
      let snippet = hit.snippet.parts.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
      let title =
        hit.conversationTitle.isEmpty ? hit.conversationID.rawValue : hit.conversationTitle
      context.output.line("\(title)  \(hit.senderID): \(snippet)".terminalSafe)
    }
  }
}

/// `chat search --json`.
struct LocalSearchJSON: Encodable {
  let hits: [SearchHitJSON]
  /// Some conversation's history here does not reach its start: try `--on-server`.
  let mayBeIncomplete: Bool
}

/// `chat search --on-server --json`.
struct ServerSearchJSON: Encodable {
  let hits: [SearchHitJSON]
  let nextCursor: String?

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(hits, forKey: .hits)
    try container.encode(nextCursor, forKey: .nextCursor)
  }

  private enum CodingKeys: String, CodingKey { case hits, nextCursor }
}
