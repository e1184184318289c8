/// The `GET /v1/sync?wait=` requests being held, by user: the long-poll twin of `LiveHub`.
///
/// A poll is armed before its first look at the store, so a change published while that look
/// is in flight is not missed: the change marks it woken, and it looks again instead of
/// waiting. A poll that found nothing suspends until a change for its user, its `wait` running
/// out, or the server stopping (`endAll`), whichever comes first.
struct LongPolls {
  private struct Poll {
    var userId: String
    var woken = false
    var continuation: CheckedContinuation<Void, Never>?
  }

  private var polls: [UInt64: Poll] = [:]
  private var pollsByUser: [String: Set<UInt64>] = [:]
  private var lastID: UInt64 = 0
  /// The server is stopping: nothing is held any more.
  private(set) var isEnding = false

  /// Polls suspended now (the `/metrics` gauge).
  var heldCount: Int { polls.values.count { $0.continuation != nil } }

  /// Polls of `user` armed now, held or looking.
  func count(of user: String) -> Int { pollsByUser[user]?.count ?? 0 }

  mutating func arm(_ user: String) -> UInt64 {
    lastID += 1
    polls[lastID] = Poll(userId: user, woken: isEnding)
    pollsByUser[user, default: []].insert(lastID)
    return lastID
  }

  /// Whether the poll should look again at once rather than wait.
  func isWoken(_ id: UInt64) -> Bool { polls[id]?.woken ?? true }

  /// Suspends the poll with `continuation`; resumed at once when already woken.
  mutating func hold(_ id: UInt64, _ continuation: CheckedContinuation<Void, Never>) {
    guard let poll = polls[id], !poll.woken else {
      continuation.resume()
      return
    }
    polls[id]?.continuation = continuation
  }

  /// Something changed for `users`: each of their polls wakes (or, still looking, looks again).
  mutating func wake(_ users: [String]) {
    for user in users {
      for id in pollsByUser[user]?.sorted() ?? [] { wake(id) }
    }
  }

  /// The poll looks again: from here, only a new change wakes it.
  mutating func rearm(_ id: UInt64) {
    guard !isEnding else { return }
    polls[id]?.woken = false
  }

  /// Wakes one poll (its `wait` ran out).
  mutating func wake(_ id: UInt64) {
    guard polls[id] != nil else { return }
    polls[id]?.woken = true
    polls[id]?.continuation?.resume()
    polls[id]?.continuation = nil
  }

  /// The poll answered: forget it.
  mutating func disarm(_ id: UInt64) {
    guard let poll = polls.removeValue(forKey: id) else { return }
    poll.continuation?.resume()
    pollsByUser[poll.userId]?.remove(id)
    if pollsByUser[poll.userId]?.isEmpty == true { pollsByUser[poll.userId] = nil }
  }

  /// Every poll looks again (events may have been missed: `NodeRelay`'s listener was away).
  mutating func wakeAll() {
    for id in polls.keys.sorted() { wake(id) }
  }

  /// The server is stopping: every held poll answers now, and none is held from here on.
  mutating func endAll() {
    isEnding = true
    for id in polls.keys.sorted() { wake(id) }
  }
}
