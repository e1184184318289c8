/// Test-only switches that put known client bugs back, so the simulation can prove its checker
/// catches each of them (`Tests/SimulationTests/KnownBugTests.swift`). Off by default; nothing
/// outside the package can turn them on, and the app never does.
///
/// Each one is one line of the engine: the first four are the traps named in seed 000, the
/// fifth a bug the simulation found, the sixth the order rule of seed 003's outbox, the next
/// two rules of API.md Part 2's deletes, the last its groups that change (the server's own
/// switch for them is `ServerKnownBugs`).
/// - `retryWithNewID`: every post carries a fresh client message ID, so the server cannot
///   recognise a retry after a lost reply (`Outbox.post`).
/// - `orderByDeviceClock`: a conversation is sorted by `sentAt`, the phone's clock for its own
///   unsent messages, instead of the server's sequence (`CompositeMessageRepository.current`).
/// - `skipCatchUpAfterReconnect`: a reconnect trusts the socket and fetches nothing it missed
///   (`ReconnectSequence`).
/// - `stopOutboxAtFirst4xx`: a rejected message is retried like a temporary failure, so the
///   queue stops behind it (`Outbox.post`).
/// - `noRetryOfFailedSync`: a `/v1/sync` that failed (after a connect, or for an unknown
///   conversation's message) is not tried again while the socket stays up, so a conversation
///   created meanwhile stays unknown (`ConversationsRepository.learnLater`). Found by the
///   simulation before it was fixed.
/// - `postNewestFirst`: a conversation's queue posts its newest unsent row first, so messages
///   written offline arrive in the reverse order (`Outbox.postNext`).
/// - `deleteKeepsSearchIndex`: a delete erases a message's text from its row but leaves its
///   words in the search index (`MessagesTable.erase`).
/// - `eraseLeavesIndexSegments`: the same bug one level down, in the file: the search indexes'
///   older segments are never merged after a delete or an edit, so the replaced text stays in
///   their pages (readable with `grep`) though no query finds it (`MessageStore+Erasure`). The
///   trigram index of unspaced text kept it this way until issue 33.
/// - `ignoreMyRemoval`: a members item that removes me changes the members but not where I
///   stand nor what I see, so the conversation stays writable here (`MessagesTable.applyMembers`).
/// - `trustDownloads`: a download is kept without checking its bytes against the sender's
///   sha256 (`MediaTransfers.download`).
/// - `reactionsIgnoreRemovals` (API.md Part 3): a reaction item that takes an emoji back is
///   not folded, so a reaction taken back stays on every other device
///   (`MessagesTable.foldReactions`).
/// - `quotesAsServed`: a reply shows the quote as the server served it, never the answered
///   message as held now, so an edit or delete after it is not seen in the quote
///   (`SnapshotQuery.requote`, `MessagesTable.requoteReplies`).
/// - `mentionsIgnoreRead`: the list counts the mentions of me in every message held, read or
///   not, so reading never lowers the "@" (`ConversationListQuery`).
/// - `pinsKeepLastWhenNoneServed` (API.md Part 3): a conversation served with no pinned
///   message keeps the pinned list served before (an empty list read as "not said"), so the
///   last pin unpinned elsewhere stays in the pinned bar here (`ConversationsTable.save`).
/// - `draftsIgnoreServed` (API.md Part 3): a draft served by `/v1/sync` or a `conversation`
///   event is never taken, so a draft typed on one device never shows on the others
///   (`ConversationsTable.save`).
/// - `blockedIgnoresSync` (API.md Part 3): `/v1/sync`'s `blocked` is never taken, only the
///   socket's event, so a device away during a block never learns it
///   (`ConversationsRepository.performSync`).
/// - `unsyncedCommits` (issue 38): the database commits with `synchronous=NORMAL`, so a power
///   loss takes the last commits: a message saved as sending, shown with its clock, is gone
///   (`MessageStore.open`).
/// - `keepRefusedDelete`: a delete of mine the server refuses keeps its tombstone here, while
///   the message lives on everywhere else (`MessagesTable.undoRefused`). Found by the simulation
///   before it was fixed.
package struct KnownBugs: OptionSet, Sendable, Hashable {
  package let rawValue: Int

  package init(rawValue: Int) { self.rawValue = rawValue }

  package static let retryWithNewID = KnownBugs(rawValue: 1 << 0)
  package static let orderByDeviceClock = KnownBugs(rawValue: 1 << 1)
  package static let skipCatchUpAfterReconnect = KnownBugs(rawValue: 1 << 2)
  package static let stopOutboxAtFirst4xx = KnownBugs(rawValue: 1 << 3)
  package static let noRetryOfFailedSync = KnownBugs(rawValue: 1 << 4)
  package static let postNewestFirst = KnownBugs(rawValue: 1 << 5)
  package static let deleteKeepsSearchIndex = KnownBugs(rawValue: 1 << 6)
  package static let keepRefusedDelete = KnownBugs(rawValue: 1 << 7)
  package static let ignoreMyRemoval = KnownBugs(rawValue: 1 << 8)
  package static let trustDownloads = KnownBugs(rawValue: 1 << 9)
  package static let eraseLeavesIndexSegments = KnownBugs(rawValue: 1 << 10)
  package static let reactionsIgnoreRemovals = KnownBugs(rawValue: 1 << 11)
  package static let quotesAsServed = KnownBugs(rawValue: 1 << 12)
  package static let mentionsIgnoreRead = KnownBugs(rawValue: 1 << 13)
  package static let pinsKeepLastWhenNoneServed = KnownBugs(rawValue: 1 << 14)
  package static let draftsIgnoreServed = KnownBugs(rawValue: 1 << 15)
  package static let blockedIgnoresSync = KnownBugs(rawValue: 1 << 16)
  package static let unsyncedCommits = KnownBugs(rawValue: 1 << 17)

  /// Each switch by the name tools and tests use for it.
  package static let byName: [(name: String, bug: KnownBugs)] = [
    ("retryWithNewID", .retryWithNewID), ("orderByDeviceClock", .orderByDeviceClock),
    ("skipCatchUpAfterReconnect", .skipCatchUpAfterReconnect),
    ("stopOutboxAtFirst4xx", .stopOutboxAtFirst4xx), ("noRetryOfFailedSync", .noRetryOfFailedSync),
    ("postNewestFirst", .postNewestFirst), ("deleteKeepsSearchIndex", .deleteKeepsSearchIndex),
    ("keepRefusedDelete", .keepRefusedDelete), ("ignoreMyRemoval", .ignoreMyRemoval),
    ("trustDownloads", .trustDownloads), ("eraseLeavesIndexSegments", .eraseLeavesIndexSegments),
    ("reactionsIgnoreRemovals", .reactionsIgnoreRemovals), ("quotesAsServed", .quotesAsServed),
    ("mentionsIgnoreRead", .mentionsIgnoreRead),
    ("pinsKeepLastWhenNoneServed", .pinsKeepLastWhenNoneServed),
    ("draftsIgnoreServed", .draftsIgnoreServed), ("blockedIgnoresSync", .blockedIgnoresSync),
    ("unsyncedCommits", .unsyncedCommits),
  ]
}
