import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite
import Support

/// The composition root: the one object an app creates at launch. It owns the database, the
/// one socket, and the shared repositories, and wires the socket's events to their owners.
///
/// - `start()` when the app comes to the foreground: opens the socket; on every connect the
///   engine learns which conversations changed (`/v1/sync`), catches them up, then flushes the
///   outbox and owed read receipts.
/// - `stop()` when it goes to the background: closes the socket; a send in flight finishes or
///   stays queued for the next start.
/// - `signOut()` deletes the database and closes everything.
public final class ChatEngine: Sendable {
  /// The seams, with the real implementations as defaults where the platform has one.
  public struct Environment: Sendable {
    public var http: any HTTPTransport
    public var live: any LiveTransport
    public var clock: any TimeSource
    public var random: any RandomSource
    public var ids: (any MessageIDGenerator)?
    public var network: any NetworkMonitor
    public var log: any LogSink
    /// The serial executor every part of the engine runs on; nil makes one with its own thread.
    public var executor: (any SerialTaskExecutor)?
    /// Test-only: known bugs put back so the simulation can show it catches them. Empty in apps.
    package var knownBugs: KnownBugs = []
    /// Media's bytes go to and from object storage through this; nil: media cannot be sent or
    /// downloaded (`ChatError.invalidInput` says so), though messages with media show.
    public var objects: (any ObjectTransfer)?
    /// The image codecs and digest media needs; nil: as for `objects`.
    public var mediaProcessing: (any MediaProcessing)?
    /// The size others' downloaded media may take on this device (least recently viewed go
    /// first); my own are kept.
    public var mediaCacheBytes = 512 * 1024 * 1024
    /// The socket with a long-poll fallback, or long poll only.
    public var liveUpdates = LiveUpdates.automatic
    /// A message that waited in the outbox longer than this before its first post is not sent
    /// silently: it turns `stale` ("not sent — send now?"), for `retry` (send now) or `delete`
    /// (discard). Measured by the engine's elapsed time (`SendClock`), across launches. nil: a
    /// message waits as long as it takes.
    public var staleSendAfter: Duration? = .seconds(24 * 3600)

    public init(
      http: any HTTPTransport, live: any LiveTransport,
      clock: any TimeSource = SystemTimeSource(),
      random: any RandomSource = SystemRandomSource(), ids: (any MessageIDGenerator)? = nil,
      network: any NetworkMonitor = NoNetworkMonitor(), log: any LogSink = DiscardingLogSink(),
      executor: (any SerialTaskExecutor)? = nil
    ) {
      self.http = http
      self.live = live
      self.clock = clock
      self.random = random
      self.ids = ids
      self.network = network
      self.log = log
      self.executor = executor
    }
  }

  /// Live conversations: watch, send, retry, history, read.
  public let messages: any MessageRepository
  /// The conversation list and search.
  public let conversationList: any ConversationListRepository
  /// Who is typing.
  public let typing: any TypingIndicators
  /// Photos and documents: sending them, fetching their bytes.
  public let media: any MediaRepository
  public var currentUserID: UserID { context.me }
  /// The outbox as the user sees it: what waits, what is held, retry and discard.
  public var outboxQueue: any OutboxRepository {
    OutboxEntries(context: context, messages: messagesSource, outbox: outbox)
  }

  /// Everything the screens read: what the view models are built with.
  public var sources: ChatSources {
    ChatSources(
      me: context.me, messages: messages, conversations: conversationList, typing: typing,
      connection: live, outbox: outboxQueue)
  }

  let context: EngineContext
  /// The engine's database, for the package's tools that read a device's state below the
  /// screens (`ChatDataInspection`). `package`: no app sees it.
  package var store: MessageStore { context.store }
  let storage: Storage
  let session: SessionManager
  let messagesSource: MessagesRepository
  let outbox: Outbox
  let catchUp: CatchUp
  let receiptsSource: ReceiptsRepository
  let drafts: DraftsRepository
  let conversationsSource: ConversationsRepository
  let typingSource: TypingRepository
  let mediaSource: MediaTransfers
  let live: LiveConnection
  let push: PushRegistrar
  let lifecycle: AppLifecycle
  private let ownsExecutor: Bool
  private let networkTask: Task<Void, Never>

  // MARK: - Opening

  /// Where the engine keeps its database: a file (created 0600, deleted at sign-out), or
  /// memory (tests, previews).
  public enum Storage: Sendable, Equatable {
    case file(String)
    case memory

    var location: Database.Location {
      switch self {
      case .file(let path): .file(path)
      case .memory: .memory
      }
    }
  }

  /// Signs in with `POST /v1/auth/dev-login` (a server in dev mode) and opens the database at
  /// `storage`, which must be empty or belong to the same user and device.
  public static func devSignIn(
    user: UserID, device: DeviceID, database storage: Storage,
    environment: Environment
  ) async throws(ChatError) -> ChatEngine {
    let tokens: Tokens
    do {
      tokens = try await APIClient.devLogin(
        user: user, device: device, transport: environment.http, retryPolicy: RetryPolicy())
    } catch {
      throw error.chatError
    }
    guard let expiresAt = Timestamp(rfc3339: tokens.expiresAt)?.date else {
      throw .unavailable(retryAfterSeconds: nil)
    }
    let session = SessionRecord(
      userID: user, deviceID: device, accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken, expiresAt: expiresAt)
    return try await open(storage, environment: environment, newSession: session)
  }

  /// Opens the database of a device that signed in before.
  public static func open(_ storage: Storage, environment: Environment)
    async throws(ChatError) -> ChatEngine
  {
    try await open(storage, environment: environment, newSession: nil)
  }

  private static func open(
    _ storage: Storage, environment: Environment, newSession: SessionRecord?
  ) async throws(ChatError) -> ChatEngine {
    let ownsExecutor = environment.executor == nil
    let executor = environment.executor ?? ThreadExecutor(name: "chat.engine")
    func fail(_ error: ChatError) -> ChatError {
      if ownsExecutor, let thread = executor as? ThreadExecutor { thread.shutdown() }
      return error
    }
    let store: MessageStore
    let session: SessionRecord
    do {
      store = try await MessageStore.open(
        storage.location, executor: executor, knownBugs: environment.knownBugs)
      let saved = try await store.session()
      if let newSession {
        if let saved, saved.userID != newSession.userID || saved.deviceID != newSession.deviceID {
          throw ChatError.invalidInput(
            "this database belongs to \(saved.userID) on \(saved.deviceID); sign out first")
        }
        try await store.saveSession(newSession)
        session = newSession
      } else if let saved {
        session = saved
      } else {
        throw ChatError.signedOut
      }
    } catch let error as ChatError {
      throw fail(error)
    } catch let error as StoreError {
      throw fail(error.chatError)
    } catch {
      throw fail(.storage("\(error)"))
    }
    let sendClock: SendClock
    do {
      sendClock = SendClock(
        clock: environment.clock, saved: try await store.setting(SendClock.settingKey))
    } catch {
      throw fail(error.chatError)
    }
    do {
      try await store.saveSetting(SendClock.settingKey, sendClock.checkpoint())
    } catch .full {
      // A full disk: the engine still opens, to show what it holds. Sends fail while it is
      // full (`ChatError.deviceFull`); once space returns, the times they take are covered by
      // the checkpoint saved at `stop()` (a crash before it falls back to the one before).
    } catch {
      throw fail(error.chatError)
    }
    let ids =
      environment.ids ?? UUIDv7Generator(now: { [clock = environment.clock] in clock.now().date })
    // IDs made by an earlier launch still waiting in the outbox keep sorting before new ones.
    do {
      for message in try await store.unsent() { ids.observe(message.clientID) }
    } catch {
      throw fail(error.chatError)
    }
    return ChatEngine(
      storage: storage, store: store, session: session, environment: environment, ids: ids,
      sendClock: sendClock, executor: executor, ownsExecutor: ownsExecutor)
  }

  private init(
    storage: Storage, store: MessageStore, session record: SessionRecord,
    environment: Environment, ids: any MessageIDGenerator, sendClock: SendClock,
    executor: any SerialTaskExecutor, ownsExecutor: Bool
  ) {
    self.storage = storage
    self.ownsExecutor = ownsExecutor
    let retryPolicy = RetryPolicy()
    let session = SessionManager(
      session: record, store: store, transport: environment.http, log: environment.log,
      retryPolicy: retryPolicy, executor: executor)
    self.session = session
    let context = EngineContext(
      executor: executor, me: record.userID, store: store,
      api: APIClient(transport: environment.http, session: session, retryPolicy: retryPolicy),
      clock: environment.clock, random: environment.random, ids: ids, log: environment.log,
      metrics: ClientMetrics(executor: executor), retryPolicy: retryPolicy,
      knownBugs: environment.knownBugs, sendClock: sendClock,
      staleSendAfter: environment.staleSendAfter, objects: environment.objects,
      mediaProcessing: environment.mediaProcessing)
    self.context = context
    let receipts = ReceiptsRepository(context: context)
    let drafts = DraftsRepository(context: context)
    self.drafts = drafts
    let conversations = ConversationsRepository(context: context)
    let catchUp = CatchUp(
      context: context,
      onSynced: { conversation, synced in
        await receipts.markDelivered(upTo: synced, in: conversation)
      })
    let outbox = Outbox(context: context, catchUp: catchUp)
    let messages = MessagesRepository(
      context: context, catchUp: catchUp, outbox: outbox,
      onUnknownConversation: { await conversations.learn() })
    let outgoing = OpenSocket(executor: executor)
    let typing = TypingRepository(context: context, sendFrame: { await outgoing.send($0) })
    let router = LiveEventRouter(
      messages: messages, receipts: receipts, conversations: conversations, typing: typing,
      log: environment.log)
    let push = PushRegistrar(context: context)
    self.push = push
    lifecycle = AppLifecycle(executor: executor)
    let reconnect = ReconnectSequence(
      context: context, conversations: conversations, catchUp: catchUp, receipts: receipts,
      outbox: outbox, push: push, drafts: drafts)
    let live = LiveConnection(
      context: context, transport: environment.live, session: session, outgoing: outgoing,
      onFrame: { await router.route($0) }, onConnected: { await reconnect.run() },
      probeHTTP: { (try? await conversations.sync()) != nil },
      longPoll: {
        guard let changed = try? await conversations.longPoll(wait: LiveConnection.longPollWait)
        else { return .failed }
        guard !changed.isEmpty else { return .unchanged }
        await reconnect.caughtUp(after: changed)
        return .changed
      }, mode: environment.liveUpdates)
    self.messagesSource = messages
    self.outbox = outbox
    self.catchUp = catchUp
    self.receiptsSource = receipts
    self.conversationsSource = conversations
    self.typingSource = typing
    self.live = live
    self.messages = CompositeMessageRepository(
      context: context, messages: messages, receipts: receipts, drafts: drafts)
    self.conversationList = conversations
    self.typing = typing
    let network = environment.network
    let media = MediaTransfers(
      context: context, messages: messages, cacheBytes: environment.mediaCacheBytes,
      isMetered: { network.isMetered() })
    self.media = media
    self.mediaSource = media
    let reachability = environment.network.reachability()
    networkTask = context.spawn {
      for await reachable in reachability where reachable {
        await live.networkReturned()
        await outbox.wake()
      }
    }
    context.spawn {
      // Weak: the socket already holds the session, so strong captures would make a cycle that
      // keeps a closed engine, and its database connection, alive.
      await session.onSignedOut {
        [weak live, weak messages, weak receipts, weak conversations, weak drafts] in
        await live?.signedOut()
        await messages?.stop()
        await receipts?.stop()
        await drafts?.stop()
        await conversations?.stop()
      }
    }
  }

  // MARK: - Lifecycle

  /// The app is in the foreground: connect, catch up, send.
  /// Starts, stops and the close run one at a time, in the order asked (`AppLifecycle`): a
  /// start asked during a stop runs after it, whole (this returns at once then, without
  /// waiting for the stop); nothing starts after `close()`.
  public func start() async {
    await lifecycle.transition(waitsBehind: false) { [self] in await startParts() }
  }

  /// The app is leaving the foreground: close the socket, start no new send.
  public func stop() async {
    await lifecycle.transition { [self] in await stopParts() }
  }

  func startParts() async {
    await receiptsSource.start()
    await drafts.start()
    await conversationsSource.start()
    await messagesSource.start()
    await mediaSource.start()
    await live.start()
  }

  func stopParts() async {
    // Where the stale-send clock stands, for the next launch (best effort: without it, the
    // next launch counts from the checkpoint made when this one opened).
    try? await context.store.saveSetting(SendClock.settingKey, context.sendClock.checkpoint())
    await mediaSource.stop()
    await messagesSource.stop()
    await receiptsSource.stop()
    await drafts.stop()
    await conversationsSource.stop()
    await live.stop()
  }

  /// Stops, ends every stream the engine handed out, closes the database and releases the
  /// engine's thread. The engine cannot be used afterwards.
  public func close() async {
    await lifecycle.transition(closing: true) { [self] in await stopParts() }
    networkTask.cancel()
    await outbox.drained()
    await context.store.finishSubscriptions()
    await live.finishSubscriptions()
    await typingSource.finishSubscriptions()
    await context.metrics.finishSubscriptions()
    await context.store.close()
    if ownsExecutor, let thread = context.executor as? ThreadExecutor {
      await thread.waitUntilIdle()
      thread.shutdown()
    }
  }

  /// Signs out: closes everything and deletes the database with the tokens in it, and the
  /// media folder beside it.
  public func signOut() async throws(ChatError) {
    // This device's pushes end with the session (the next user of the phone must not see
    // them); best effort: a server out of reach forgets the token on its next 410.
    try? await push.want(nil)
    await close()
    guard case .file(let path) = storage else { return }
    do {
      try Database.deleteFiles(at: path)
    } catch {
      throw .storage("could not delete the database: \(error)")
    }
    do {
      try MediaFolder(databasePath: path).removeAll()
    } catch {
      throw .storage(error.description)
    }
  }

  // MARK: - One-shot work (command-line tools)

  /// What `sync()` did.
  public struct SyncReport: Sendable, Equatable {
    public var conversationsChanged: Int
    public var outboxRemaining: Int
  }

  /// How far a `sync()` has got.
  public struct SyncProgress: Sendable, Equatable {
    public var conversationsDone: Int
    public var conversations: Int
    public var messagesFetched: Int
  }

  /// Catches up everything, newest page first for conversations never opened, and posts the
  /// outbox once. Throws when the server cannot be reached.
  public func sync(progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws(ChatError)
    -> SyncReport
  {
    let changed: Int
    do {
      changed = try await conversationsSource.sync().count
    } catch {
      throw error.chatError
    }
    try await catchUp.catchUpEverything(progress: progress)
    let remaining = await outbox.drain()
    await receiptsSource.postOwedReads()
    _ = await drafts.sendOwedOnce()
    return SyncReport(conversationsChanged: changed, outboxRemaining: remaining)
  }

  /// Posts every queued message once, in order, stopping at the first temporary failure, then
  /// the drafts the server is owed (a send's cleared draft among them); returns how many
  /// messages are left (for one-shot tools: no backoff, no waiting).
  public func drainOutbox() async -> Int {
    let left = await outbox.drain()
    _ = await drafts.sendOwedOnce()
    return left
  }

  /// Messages waiting to be accepted by the server (0 when the database cannot be read, which
  /// is logged).
  public func outboxCount() async -> Int {
    await outbox.size() ?? 0
  }

  /// The client's figures now.
  public func metrics() async -> ClientMetricsSnapshot {
    await context.metrics.current()
  }

  /// The socket's state now and on every change.
  public func connectionStates() -> AsyncStream<ConnectionState> {
    live.connectionStates()
  }

  /// For `chat-bench` (figure B4): each message sent from this engine, from now on, the
  /// moment its row turns sent (the post's reply or the socket's echo was saved), stamped with
  /// `environment.clock.uptime()`. `ClientMetricsSnapshot.sendToSent` keeps only percentiles;
  /// a benchmark needs every sample. `package`: not part of the engine's public API.
  package func sentMessages() async -> AsyncStream<SentMessage> {
    await context.metrics.sentMessages()
  }
}
