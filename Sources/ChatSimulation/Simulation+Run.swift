import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatServer
import ChatWorld
import Foundation
import Support

/// What one seed did.
public struct SeedResult: Sendable {
  public let seed: UInt64
  public let profile: Profile
  /// FNV-1a of the whole trace: two runs of one seed print the same.
  public let traceHash: UInt64
  public let violations: [Violation]
  /// Trace lines that show the first violation (empty when none).
  public let excerpt: [String]
  public let simulatedTime: Duration
  public let faults: [FaultKind: Int]
  public let steps: Int
  public let sends: Int
  public let messagesOnServer: Int
  /// The whole trace, when the options kept it.
  public let trace: [String]
  /// Jobs and timers still pending once the teardown closed every engine and let the world
  /// run a simulated day: anything but zero is a task that outlived its engine.
  public internal(set) var leftAtTeardown = (jobs: 0, timers: 0)
  /// Sends saved with a photo or a document, and downloads of others' media that returned.
  public internal(set) var media = (sends: 0, downloads: 0)
  /// API.md Part 3 in the workload.
  public internal(set) var partThree = PartThreeCounts()
  /// Items the devices pruned; messages below a history floor at the end, and how many of
  /// them the devices' server search found.
  public internal(set) var retention = (pruned: 0, searched: 0, found: 0)
  /// Messages held as stale, and how many times their users chose send now or discard.
  public internal(set) var stale = (held: 0, sentNow: 0, discarded: 0)
  /// The `chat-sim` options beyond the profile that shaped the run, as the replay needs them
  /// (" --retain-messages 5"); the options tests put in (known bugs, a focus) are not among
  /// them.
  var options = ""

  public var passed: Bool { violations.isEmpty }

  /// The one command that replays this seed. A history is a function of the seed and the
  /// build: the optimizer changes which awaits suspend, so a debug build (what `swift test`
  /// runs) and a release build step different jobs and make different histories.
  public var replayCommand: String {
    #if DEBUG
      var command = "swift run chat-sim --seed \(seed)"
    #else
      var command = "swift run -c release chat-sim --seed \(seed)"
    #endif
    if profile != .quick { command += " --profile \(profile.rawValue)" }
    command += options
    return command
  }
}

extension Simulation {
  /// Most jobs one phase may run: far above what a seed needs, so hitting it means a loop that
  /// never waits for time.
  static let stepBudget = 400_000

  /// Runs one seed from start to end, checks it, and removes its files.
  static func run(seed: UInt64, options: SimulationOptions) -> SeedResult {
    let simulation: Simulation
    do {
      simulation = try Simulation(seed: seed, options: options)
    } catch {
      return SeedResult(
        seed: seed, profile: options.profile, traceHash: 0,
        violations: [Violation(invariant: .relaunch, detail: "setup: \(error)", keys: [])],
        excerpt: [], simulatedTime: .zero, faults: [:], steps: 0, sends: 0,
        messagesOnServer: 0, trace: [])
    }
    defer { try? FileManager.default.removeItem(atPath: simulation.folder) }
    return simulation.runPhases()
  }

  private func runPhases() -> SeedResult {
    var log: [LoggedConversation] = []
    if setUp() {
      history.trace("phase safety: \(plan)")
      startFaultPhase()
      let safety = world.run(
        deadline: world.now + options.profile.safetyPhase, maxSteps: Self.stepBudget)
      if safety == .stepBudget {
        checker.report(
          .notQuiet, "\(Self.stepBudget) jobs ran in the fault phase without time passing",
          keys: [])
      }
      history.trace("phase liveness")
      heal()
      // Quiet: nothing runs and nothing is due but held long polls (the long-polling device
      // always holds one).
      let stop = world.run(
        deadline: world.now + options.profile.livenessBudget, maxSteps: Self.stepBudget,
        quietWhenIdle: true)
      if stop != .quiet {
        checker.report(
          .notQuiet, "still busy \(options.profile.livenessBudget) after the faults healed",
          keys: [])
      }
      phase = .reading
      if let read = readServer() {
        log = read
        readDevicesAndCheck(log)
      }
    }
    if world.foreignEnqueues > 0 {
      checker.report(
        .escaped, "\(world.foreignEnqueues) jobs were enqueued from another thread", keys: [])
    }
    let hash = history.hash
    let simulated = world.now
    var result = SeedResult(
      seed: seed, profile: options.profile, traceHash: hash, violations: checker.violations,
      excerpt: checker.violations.first.map { history.excerpt(mentioning: $0.keys) } ?? [],
      simulatedTime: simulated, faults: faultCounts, steps: world.steps,
      sends: history.sends.count, messagesOnServer: log.reduce(0) { $0 + $1.messages.count },
      trace: options.keepsTrace ? history.lines : [])
    result.media = (history.mediaSent.count, history.downloads)
    result.partThree = history.partThree
    result.retention = (history.pruned, history.prunedSearched, history.prunedFound)
    result.stale = checker.stale
    if let window = options.retainMessages { result.options += " --retain-messages \(window)" }
    if let staleAfter = options.staleAfter {
      result.options += " --stale-after \(staleAfter.milliseconds / 1000)"
    }
    result.leftAtTeardown = tearDown()
    return result
  }

  // MARK: - Setup (no faults)

  /// Starts the server, seeds some history, signs every device in, creates the conversations
  /// and lets everything settle.
  private func setUp() -> Bool {
    restartServer()
    guard server.isUp else { return false }
    var setupRandom = SimRandom(seed: seed, stream: "setup")
    // Alice creates a one-to-one with bob and a group; bob one with carol (alice is not in it).
    guard let alice = observer("alice"), let bob = observer("bob"),
      create(["bob"], by: alice) != nil, let abc = create(["bob", "carol"], by: alice),
      create(["carol"], by: bob) != nil
    else {
      checker.report(.relaunch, "setup: the server did not answer", keys: ["setup"])
      return false
    }
    // History older than what a new device fetches first, so scrolling back pages.
    let seeded = setupRandom.int(in: options.profile.seededHistory)
    let idRandom = SeededRandomSource(seed: setupRandom.next())
    let ids = UUIDv7Generator(now: { ManualClock.epoch.date }, random: { idRandom.next() })
    for index in 0..<seeded {
      let (user, token) = setupRandom.chance(0.5) ? ("alice", alice) : ("bob", bob)
      let text = "sim setup-\(index) \(Self.marker(Self.setupMarkers + index)) history"
      let number = history.invokeSend(
        device: "setup", user: UserID(user), conversation: abc, text: text)
      let id = ids.next()
      guard
        serverRequest(
          APIRequest(
            .postItem(conversation: abc.rawValue),
            json: PostItem(clientMessageId: id.rawValue, text: text)), token: token) != nil
      else { return false }
      history.sendSaved(number, as: id)
    }
    for device in devices { launch(device, signIn: true) }
    world.run(deadline: world.now + .seconds(120))
    let ready = devices.allSatisfy { $0.current?.engine != nil }
    if !ready { checker.report(.relaunch, "a device could not sign in", keys: []) }
    return ready
  }

  /// A token for `user` on a device the checker uses to read the server past every fault.
  func observer(_ user: String) -> String? {
    guard
      let response = serverRequest(
        APIRequest(.devLogin, json: DevLogin(userId: user, deviceId: "sim-observer")),
        token: nil),
      let tokens = try? APICoding.decode(Tokens.self, from: response.body)
    else { return nil }
    return tokens.accessToken
  }

  private func create(_ others: [String], by token: String) -> ConversationID? {
    guard
      let response = serverRequest(
        APIRequest(
          .createConversation, json: CreateConversation(title: "sim", memberIds: others)),
        token: token),
      let created = try? APICoding.decode(CreatedConversation.self, from: response.body)
    else { return nil }
    registerConversation(created.conversation)
    return ConversationID(created.conversation.id)
  }

  /// One request straight to the live service (no network, no faults), run to its answer.
  func serverRequest(_ request: APIRequest, token: String?) -> APIResponse? {
    guard let service = server.service, let executor = server.executor else { return nil }
    var request = request
    if let token { request.headers["Authorization"] = "Bearer \(token)" }
    let method = request.method
    let path = request.path
    let response = world.perform(on: executor, timeout: .seconds(60)) {
      await service.handle(request)
    }
    guard let response, (200..<300).contains(response.status) else {
      history.trace(
        "setup: \(method) \(path) → \(response.map { "\($0.status) \(String(decoding: $0.body, as: UTF8.self))" } ?? "no answer")"
      )
      return nil
    }
    return response
  }

  /// Runs the server's media sweep as it would run a day and a second from now: what a delete
  /// cut short by a crash left (an upload no message names) goes, nothing within the
  /// retention does. For the checker's last look at the store.
  func sweepServerMedia() {
    guard let service = server.service, let executor = server.executor else { return }
    let later = world.clock.now() + .seconds(86_401)
    _ = world.perform(on: executor, timeout: .seconds(60)) {
      await service.sweepMedia(at: later)
    }
  }

  // MARK: - Teardown

  /// Lets every task end so nothing outlives the run (each dead incarnation still holds its
  /// database connection in its frozen tasks): the network refuses everything, every engine
  /// stops and closes, and the world runs until nothing is left.
  private func tearDown() -> (jobs: Int, timers: Int) {
    phase = .done
    world.isEnding = true
    world.thawAll()
    server.stopCrashedIncarnations()
    for device in devices {
      for socket in device.sockets { socket.drop(reason: "teardown") }
    }
    for device in devices {
      for incarnation in device.incarnations {
        for view in incarnation.views.values { view.cancel() }
        incarnation.listTask?.cancel()
        incarnation.sessionTask?.cancel()
        incarnation.outboxTask?.cancel()
        incarnation.views.removeAll()
        if let engine = incarnation.engine {
          incarnation.executor.spawn { await engine.close() }
        }
      }
    }
    world.run(deadline: world.now + .seconds(24 * 3600), maxSteps: Self.stepBudget)
    for device in devices {
      for incarnation in device.incarnations {
        incarnation.engine = nil
        incarnation.latest.removeAll()
        incarnation.listTask = nil
        incarnation.sessionTask = nil
        incarnation.outboxTask = nil
      }
    }
    sockets.removeAll()
    let left = world.dismantle()
    if left.jobs > 0 || left.timers > 0 {
      FileHandle.standardError.write(
        Data("seed \(seed): \(left.jobs) jobs and \(left.timers) timers left at the end\n".utf8))
    }
    return (left.jobs, left.timers)
  }
}
