import ChatDomain
import ChatIdentifiers

/// What the engine does every time the socket connects (the first time and after every drop):
/// the socket may have missed anything while it was down, so its events are trusted only after
///
/// 1. learning which conversations changed (`/v1/sync`; retried with backoff if it fails),
/// 2. catching up every conversation the server is ahead in or a screen shows (`?after=`), and
///    their receipts,
/// 3. flushing what waits: the outbox, read numbers the server never confirmed, drafts typed
///    offline, and a push token the server has not confirmed.
struct ReconnectSequence: Sendable {
  let context: EngineContext
  let conversations: ConversationsRepository
  let catchUp: CatchUp
  let receipts: ReceiptsRepository
  let outbox: Outbox
  let push: PushRegistrar
  let drafts: DraftsRepository

  func run() async {
    if await skipsCatchUp() {
      await flush()
      return
    }
    let changed = await conversations.learn()
    await catchUp.catchUpAll()
    let watched = await catchUp.watchedConversations()
    for conversation in Set((changed ?? []) + watched).sorted() {
      context.spawn { [receipts] in await receipts.sync(conversation) }
    }
    await flush()
  }

  /// After a long poll said which conversations changed (saved already): the same catch-up
  /// as a connect's, for them.
  func caughtUp(after changed: [ConversationID]) async {
    await catchUp.catchUpAll()
    for conversation in changed.sorted() {
      context.spawn { [receipts] in await receipts.sync(conversation) }
    }
    await flush()
  }

  private func flush() async {
    await outbox.wake()
    await receipts.postOwedReads()
    await drafts.postOwed()
    // A token the server never confirmed (registered offline, or changed).
    try? await push.sync()
  }

  /// `KnownBugs.skipCatchUpAfterReconnect`: a reconnect trusts the socket.
  private func skipsCatchUp() async -> Bool {
    guard context.knownBugs.contains(.skipCatchUpAfterReconnect) else { return false }
    return await context.metrics.current().reconnects > 0
  }
}
