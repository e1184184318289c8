import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatWorld
import Foundation
import SQLite
import Support

// Devices: launching an engine on a device's file, its screens, killing it at any point.
//
// The "view" of a device is what its screens show: one `messages(in:)` stream of the engine's
// `MessageRepository` per open conversation, plus the conversation list. The view models of
// ChatPresentation are MainActor-bound, and the main actor is not a stepped executor, so the
// simulation reads the repository's streams (the values the view models render) instead, and
// maps each message's send and receipt states through the presentation layer's pure `Ticks`
// (what the bubble shows).

extension Simulation {
  func environment(for device: SimDevice, _ incarnation: Incarnation) -> ChatEngine.Environment {
    let clock = world.clock.offset(by: device.clockOffset, wholeMilliseconds: true)
    var random = SimRandom(seed: seed, stream: incarnation.name)
    let engineRandom = SeededRandomSource(seed: random.next())
    let idRandom = SeededRandomSource(seed: random.next())
    var environment = ChatEngine.Environment(
      http: SimHTTPTransport(simulation: self, device: device, incarnation: incarnation),
      live: SimLiveTransport(simulation: self, device: device, incarnation: incarnation),
      clock: clock, random: engineRandom,
      ids: UUIDv7Generator(now: { clock.now().date }, random: { idRandom.next() }),
      executor: incarnation.executor)
    environment.knownBugs = options.knownBugs
    environment.objects = SimObjectTransfer(
      simulation: self, device: device, incarnation: incarnation)
    environment.mediaProcessing = SimMediaProcessing()
    if let staleAfter = options.staleAfter { environment.staleSendAfter = staleAfter }
    if device.name == Self.longPollingDevice { environment.liveUpdates = .longPollOnly }
    return environment
  }

  /// Starts a new incarnation of `device`: opens the engine on its file (signing in the first
  /// time), starts it if the app is in the foreground, and opens its screens. The work runs as
  /// jobs of the new incarnation, so a kill can strike in the middle of a launch too.
  func launch(_ device: SimDevice, signIn: Bool) {
    let number = device.nextIncarnation
    let name = "\(device.name)#\(number)"
    let incarnation = Incarnation(name: name, executor: world.makeExecutor(name))
    device.launched(incarnation)
    let environment = environment(for: device, incarnation)
    history.trace("launch \(name)\(signIn ? " (sign in)" : "")")
    incarnation.executor.spawn { [self] in
      let engine: ChatEngine
      do {
        engine =
          if signIn {
            try await ChatEngine.devSignIn(
              user: device.user, device: device.deviceID, database: .file(device.path),
              environment: environment)
          } else {
            try await ChatEngine.open(.file(device.path), environment: environment)
          }
      } catch let error as ChatError where signIn && error.isTemporary {
        // Signing in needs the server; the user tries again a little later.
        history.trace("launch \(name) failed: the server cannot be reached")
        world.schedule(after: faultRandom.duration(.seconds(5)...(.seconds(30)))) { [self] in
          guard device.current === incarnation, phase != .done else { return }
          device.current = nil
          launch(device, signIn: signIn)
        }
        return
      } catch {
        checker.report(
          .relaunch, "\(name) could not open its engine: \(error)", keys: [name])
        return
      }
      incarnation.engine = engine
      // Every device takes pushes; a token not confirmed (offline) goes at the next connect.
      if signIn {
        do {
          try await engine.registerPush(PushRegistration(provider: .webhook, token: device.name))
        } catch {
          history.trace("push token of \(name) waits: \(error)")
        }
      }
      if let window = options.retainMessages {
        do {
          try await engine.setRetention(Retention(messagesPerConversation: window))
        } catch {
          history.trace("retention of \(name) not saved: \(error)")
        }
      }
      // A launch killed before this point and thawed by the teardown, which has already
      // closed every engine it found: this one closes itself instead of starting.
      guard phase != .done else {
        await engine.close()
        return
      }
      if device.isForeground { await engine.start() }
      watchList(device, incarnation)
      watchSession(device, incarnation)
      watchOutbox(device, incarnation)
    }
  }

  /// A device whose session ended (a refresh refused) shows "Signed out: sign in again"; the
  /// user does, a little later, on the same database.
  private func watchSession(_ device: SimDevice, _ incarnation: Incarnation) {
    guard let engine = incarnation.engine else { return }
    let states = engine.connectionStates()
    incarnation.sessionTask = incarnation.executor.spawn { [self] in
      for await state in states where state == .signedOut {
        history.trace("signed out \(incarnation.name)")
        count(.signedOut)
        await engine.close()
        world.schedule(after: faultRandom.duration(.seconds(5)...(.seconds(60)))) { [self] in
          guard device.current === incarnation, phase != .done else { return }
          device.current = nil
          launch(device, signIn: true)
        }
        return
      }
    }
  }

  /// Follows the conversation list; opens a screen for each conversation the device learns.
  private func watchList(_ device: SimDevice, _ incarnation: Incarnation) {
    guard let engine = incarnation.engine else { return }
    let summaries = engine.conversationList.conversations()
    incarnation.listTask = incarnation.executor.spawn { [self] in
      for await list in summaries {
        incarnation.known = list
        checker.observeList(list, device: device, incarnation: incarnation, simulation: self)
        for summary in list.sorted(by: { $0.id < $1.id })
        where incarnation.views[summary.id] == nil && !incarnation.closed.contains(summary.id) {
          openScreen(summary.id, on: device, incarnation)
        }
      }
    }
  }

  /// Opens a conversation screen: watches the conversation as the view model would.
  func openScreen(_ conversation: ConversationID, on device: SimDevice, _ incarnation: Incarnation)
  {
    guard let engine = incarnation.engine, incarnation.views[conversation] == nil else { return }
    incarnation.closed.remove(conversation)
    let messages = engine.messages.messages(in: conversation)
    incarnation.views[conversation] = incarnation.executor.spawn { [self] in
      for await shown in messages {
        incarnation.latest[conversation] = shown
        checker.observe(
          shown, in: conversation, device: device, incarnation: incarnation, simulation: self)
      }
    }
  }

  /// Closes a screen (the user went back): the engine stops watching the conversation.
  func closeScreen(_ conversation: ConversationID, on incarnation: Incarnation) {
    guard let view = incarnation.views.removeValue(forKey: conversation) else { return }
    view.cancel()
    incarnation.latest[conversation] = nil
    incarnation.closed.insert(conversation)
  }

  // MARK: - Kills

  /// Arms a kill: the device dies after its next few jobs, wherever they are (mid-send,
  /// mid-catch-up, mid-launch), or in a minute if it stays idle that long.
  func armKill(_ device: SimDevice) {
    guard let incarnation = device.current, device.killCountdown == nil else { return }
    device.killCountdown = faultRandom.int(in: 1...60)
    world.afterEachStep(of: incarnation.executor) { [self] in
      guard let left = device.killCountdown else { return }
      if left <= 1 {
        kill(device)
      } else {
        device.killCountdown = left - 1
      }
    }
    world.schedule(after: .seconds(60)) { [self] in
      if device.killCountdown != nil, device.current === incarnation { kill(device) }
    }
  }

  /// The process dies between two jobs: only what its SQLite file holds survives. It is
  /// launched again on the same file after a while.
  func kill(_ device: SimDevice) {
    guard let incarnation = device.current else { return }
    device.killCountdown = nil
    world.afterEachStep(of: incarnation.executor, nil)
    world.freeze(incarnation.executor)
    device.current = nil
    count(.deviceKilled)
    history.trace("kill \(incarnation.name) after \(world.steps) steps")
    losePowerMaybe(under: device.path, of: device.name)
    // The server notices the dead sockets only when TCP gives up.
    for socket in device.sockets {
      world.schedule(after: faultRandom.duration(.seconds(1)...(.seconds(30)))) {
        socket.drop(reason: "the device died")
      }
    }
    guard phase == .safety else { return }
    world.schedule(after: faultRandom.duration(.seconds(1)...(.seconds(120)))) { [self] in
      guard device.current == nil, phase == .safety else { return }
      launch(device, signIn: false)
    }
  }

  // MARK: - Server restarts

  /// Arms a server crash after its next few jobs (or in a minute), then a restart.
  func armServerCrash() {
    guard let executor = server.executor else { return }
    var left = faultRandom.int(in: 1...40)
    world.afterEachStep(of: executor) { [self] in
      left -= 1
      if left <= 0, phase == .safety { crashServer() }
    }
    world.schedule(after: .seconds(60)) { [self] in
      if server.isCurrent(executor), phase == .safety { crashServer() }
    }
  }

  func crashServer() {
    guard let executor = server.executor else { return }
    world.afterEachStep(of: executor, nil)
    server.crash()
    count(.serverRestarted)
    history.trace("crash \(executor.name) after \(world.steps) steps")
    losePowerMaybe(under: server.path, of: "the server")
    // Every socket on it, those whose upgrade reply is still on its way included.
    for socket in sockets where socket.serverExecutor === executor {
      socket.drop(reason: "the server went away")
    }
    world.schedule(after: faultRandom.duration(.milliseconds(500)...(.seconds(20)))) {
      [self] in
      guard !server.isUp else { return }
      restartServer()
    }
  }

  /// With the plan's chance, the machine that just died lost its power too: its SQLite files
  /// keep only what they had synced, and its connections die for good.
  private func losePowerMaybe(under path: String, of machine: String) {
    guard powerRandom.chance(faults.powerLoss) else { return }
    count(.powerLost)
    do {
      let lost = try PageCache.losePower(under: path)
      history.trace("power lost on \(machine): \(lost) bytes not synced")
    } catch {
      checker.report(.relaunch, "\(machine) lost its power: \(error)", keys: [machine])
    }
  }

  func restartServer() {
    do {
      try server.start()
      history.trace("start \(server.name)")
    } catch {
      checker.report(.relaunch, "the server could not restart: \(error)", keys: ["server"])
    }
  }
}

extension ChatError {
  /// The server could not be reached or was busy: worth trying again.
  fileprivate var isTemporary: Bool {
    switch self {
    case .offline, .unavailable: true
    default: false
    }
  }
}
