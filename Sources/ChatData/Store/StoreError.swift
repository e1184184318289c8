import ChatDomain
import SQLite

/// Why the store could not do what was asked.
package enum StoreError: Error, Equatable, CustomStringConvertible {
  /// SQLite failed; the text says how. A corrupt file needs the user's attention.
  case database(String, corrupt: Bool)
  /// The device's storage is full: nothing was written (what was saved before stays), and
  /// the same write goes through once the user frees some space.
  case full(String)
  /// A search query with nothing to search for, or one SQLite could not parse.
  case invalidQuery(String)

  init(_ error: any Error) {
    if let sqlite = error as? SQLiteError, sqlite.isFull {
      self = .full(sqlite.description)
    } else if let sqlite = error as? SQLiteError {
      self = .database(sqlite.description, corrupt: sqlite.isCorrupt)
    } else if let store = error as? StoreError {
      self = store
    } else {
      self = .database(String(describing: error), corrupt: false)
    }
  }

  package var description: String {
    switch self {
    case .database(let reason, _), .full(let reason): reason
    case .invalidQuery(let reason): reason
    }
  }

  /// The domain's view of this error.
  var chatError: ChatError {
    switch self {
    case .database(let reason, _): .storage(reason)
    case .full: .deviceFull
    case .invalidQuery(let reason): .invalidInput(reason)
    }
  }
}
