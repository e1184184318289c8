import ChatDomain
import Foundation

/// The writer's entry points to the database's upkeep (`StoreUpkeep`): retention, tidying and
/// health. Each runs the rule of the same name in one transaction, or as one read; `tidy`
/// runs outside any transaction (SQLite's pragmas and the checkpoint need none open).
extension MessageStore {
  package func pruneTargets(_ retention: Retention, now: Date) throws(StoreError) -> [PruneTarget] {
    try read { try StoreUpkeep.pruneTargets(retention, now: now, db: $0) }
  }

  package func pruneStep(_ target: PruneTarget, batch: Int) throws(StoreError) -> Int {
    try write { try StoreUpkeep.pruneStep(target, batch: batch, tx: $0) }
  }

  func holdsPartialHistory() throws(StoreError) -> Bool {
    try read { try StoreUpkeep.holdsPartialHistory(db: $0) }
  }

  func expireMedia(sentBefore cutoff: Date) throws(StoreError) -> Int {
    try write { try StoreUpkeep.expireMedia(sentBefore: cutoff, tx: $0) }
  }

  package func tidy() throws(StoreError) -> Int {
    do {
      return try StoreUpkeep.tidy(db: db)
    } catch {
      throw StoreError(error)
    }
  }

  func health() throws(StoreError) -> DatabaseHealth {
    try read { try StoreUpkeep.health(db: $0) }
  }
}
