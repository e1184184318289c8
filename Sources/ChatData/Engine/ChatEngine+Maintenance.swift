import ChatDomain
import Foundation
import SQLite

/// What `ChatEngine.maintain()` did.
public struct MaintenanceReport: Sendable, Equatable {
  /// Held items deleted (they stay on the server).
  public var prunedItems = 0
  /// Conversations whose local history now begins later.
  public var prunedConversations = 0
  /// Downloaded media files removed by the media window.
  public var expiredMediaFiles = 0
  /// Database pages given back to the file system.
  public var freedPages = 0
}

/// The database as `chat doctor` shows it.
public struct DatabaseHealth: Sendable, Equatable {
  /// The migrations applied, oldest first: the last is the schema version.
  public var schema: [String]
  public var pageSize: Int
  public var pages: Int
  /// Pages free inside the file (reused by later writes, or given back by a vacuum).
  public var freePages: Int
  /// `none`, `full` or `incremental` (files made before the engine asked for incremental: `none`,
  /// until a `VACUUM`).
  public var autoVacuum: String
  public var conversations: Int
  public var messages: Int
  /// Every row of the log: messages, edits, deletes, members and title changes.
  public var items: Int
  /// Rows waiting in the outbox.
  public var unsent: Int
  public var mediaFiles: Int
  /// Conversations whose local history begins after their first message (pruned, or never
  /// paged back): a local search may miss what lies before.
  public var prunedConversations: Int
  /// What SQLite's `integrity_check` and FTS5's `integrity-check` found; empty: all is well.
  public var problems: [String]
}

extension ChatEngine {
  /// Items deleted per transaction while pruning: small, so a send or a screen's read waits
  /// for one batch at most.
  package static let pruneBatch = 500

  /// The retention setting (everything, unless set).
  public func retention() async -> Retention {
    let saved = await context.readOrLog { try await context.store.setting(Self.retentionKey) }
    return saved.flatMap { $0 }.flatMap(Retention.init) ?? .everything
  }

  /// Saves the retention setting; the next `maintain()` applies it.
  public func setRetention(_ retention: Retention) async throws(ChatError) {
    do {
      try await context.store.saveSetting(Self.retentionKey, retention.description)
    } catch {
      throw error.chatError
    }
  }

  static let retentionKey = "retention"

  /// The device's upkeep, for a background task or a quiet moment (`chat sync` runs it):
  /// prunes what the retention window no longer keeps, conversation by conversation in
  /// small transactions (each conversation's history then begins at its floor, and paging
  /// back asks the server); expires old media; then `tidy`s the database.
  public func maintain() async throws(ChatError) -> MaintenanceReport {
    let store = context.store
    let retention = await retention()
    var report = MaintenanceReport()
    do {
      let now = context.clock.now().date
      for target in try await store.pruneTargets(retention, now: now) {
        report.prunedConversations += 1
        while true {
          let deleted = try await store.pruneStep(target, batch: Self.pruneBatch)
          report.prunedItems += deleted
          guard deleted == Self.pruneBatch else { break }
        }
      }
      if let days = retention.mediaDays {
        report.expiredMediaFiles = try await store.expireMedia(
          sentBefore: now.addingTimeInterval(-Double(days) * 86_400))
      }
      report.freedPages = try await store.tidy()
    } catch {
      throw error.chatError
    }
    return report
  }

  /// Sizes, counts, the schema and the integrity checks of the database.
  public func health() async throws(ChatError) -> DatabaseHealth {
    do {
      return try await context.store.health()
    } catch {
      throw error.chatError
    }
  }
}
