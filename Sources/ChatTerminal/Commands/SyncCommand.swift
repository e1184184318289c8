import ArgumentParsing
import ChatData
import ChatDomain
import Foundation

/// `chat sync`: catches up everything, flushes the outbox, then prunes what the retention
/// setting no longer keeps and tidies the database (`ChatEngine.maintain`).
struct SyncCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync",
    abstract: "Catch up every conversation and send what waits (exit 75 if offline).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      let output = context.output
      let report: ChatEngine.SyncReport
      do {
        report = try await engine.sync { progress in
          output.progress(
            "Catching up: \(progress.conversationsDone)/\(progress.conversations) conversations, "
              + "\(progress.messagesFetched) messages")
        }
      } catch {
        output.endProgress()
        throw CommandFailure(error)
      }
      output.endProgress()
      let upkeep = try await attempt { try await engine.maintain() }
      if output.json {
        output.json(
          [
            "conversationsChanged": report.conversationsChanged,
            "outboxRemaining": report.outboxRemaining,
            "prunedItems": upkeep.prunedItems,
            "expiredMediaFiles": upkeep.expiredMediaFiles,
          ])
      } else {
        output.line(
          "Synced: \(report.conversationsChanged) conversation(s) changed, "
            + "\(report.outboxRemaining) message(s) still waiting to send.")
        if upkeep.prunedItems > 0 || upkeep.expiredMediaFiles > 0 {
          output.line(
            "Pruned \(upkeep.prunedItems) older item(s) in \(upkeep.prunedConversations)"
              + " conversation(s) and \(upkeep.expiredMediaFiles) media file(s): the server"
              + " keeps them.")
        }
      }
      return report.outboxRemaining > 0 ? .temporaryFailure : .success
    }
  }
}
