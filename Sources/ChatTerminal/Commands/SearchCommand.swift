import ArgumentParsing
import ChatData
import ChatDomain
import Foundation

/// `chat search`: the local full-text index, offline.
struct SearchCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "search", abstract: "Search the messages on this device (works offline).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(help: "The words to find.") var words: [String] = []

  var query: String { words.joined(separator: " ") }

  func validate() throws {
    guard !words.isEmpty else { throw ValidationError("missing <words>") }
  }

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let hits: [SearchHit] = try await attempt {
        try await engine.conversationList.search(query, limit: 50)
      }
      if context.output.json {
        context.output.json(hits.map(SearchHitJSON.init))
      } else if hits.isEmpty {
        context.output.line("No messages match.")
      } else {
        for hit in hits {
          let snippet = hit.snippet.parts.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
          context.output.line("\(hit.conversationTitle)  \(hit.senderID): \(snippet)".terminalSafe)
        }
      }
      return .success
    }
  }
}
