import ArgumentParsing
import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatTransports
import Foundation
import Wire

/// `chat demo`: the whole system in one command. A server on a free loopback port with a
/// temporary data folder, alice signed in, a one-to-one conversation with bob and a group with
/// bob and carol, both played by bots that read and answer (carol soon edits her plan, then adds
/// dave, a third bot, who says hello); then the interactive screen.
/// Everything is removed on exit.
struct DemoCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Start a server and bot friends, sign in as alice, open the screen.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Flag(help: "Run a short scripted session and print it (the default without a terminal).")
  var script = false
  @Flag(help: "Keep the temporary data folder and print where it is.") var keep = false
  @Flag(
    help: ArgumentHelp(
      "Serve HTTPS and WSS with a certificate made for this run (trusted by the demo's own "
        + "clients only)."))
  var tls = false

  func run(_ context: CommandContext) async -> ExitCode {
    let output = context.output
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "chat-demo-\(UUID().uuidString.prefix(8).lowercased())"
    ).path
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      output.error("cannot create \(folder): \(error)")
      return .cannotCreate
    }
    defer {
      if keep {
        output.note("Demo data kept in \(folder)")
      } else {
        try? FileManager.default.removeItem(atPath: folder)
      }
    }
    let server: DemoServer
    do {
      server = try DemoServer.start(folder: folder + "/server", tls: tls)
    } catch {
      output.error("cannot start the demo server: \(error)")
      return .failure
    }
    if tls {
      output.note("Serving \(server.url.absoluteString) with a certificate made for this run.")
    }
    let conditions = NetworkConditions()
    let code: ExitCode
    do throws(ChatError) {
      let world = try await DemoWorld.make(server: server, folder: folder, conditions: conditions)
      if script || !RawTerminal.isAvailable {
        code = await DemoScript(world: world, output: output, conditions: conditions).run()
      } else {
        await TerminalApp(
          engine: world.alice, conditions: conditions, notifications: server.notifications
        ).run()
        code = .success
      }
      await world.close()
    } catch {
      output.error("the demo could not start: \(error)")
      code = ExitCode(error)
    }
    await server.stop()
    return code
  }
}

/// alice, her two friends and their conversations.
struct DemoWorld {
  let alice: ChatEngine
  let bots: [DemoBot]
  let direct: ConversationID
  let group: ConversationID

  static func make(server: DemoServer, folder: String, conditions: NetworkConditions)
    async throws(ChatError) -> DemoWorld
  {
    let trust: TLSContext?
    do {
      trust = try server.clientTLS()
    } catch {
      throw .invalidInput("the demo's certificate: \(error)")
    }
    func environment(_ conditions: NetworkConditions? = nil) throws(ChatError)
      -> ChatEngine.Environment
    {
      var configuration = HTTPClient.Configuration()
      configuration.tls = trust
      // The demo's own loopback URL, which the transport does not refuse; if it ever did, the
      // demo stops with the reason rather than crashing.
      let wire: WireHTTPTransport
      do {
        wire = try WireHTTPTransport(baseURL: server.url, configuration: configuration)
      } catch {
        throw .invalidInput("the demo server's URL: \(error)")
      }
      var http: any HTTPTransport = wire
      var objects: any ObjectTransfer = wire
      var live: any LiveTransport = WireLiveTransport(url: server.liveURL, tls: trust)
      if let conditions {
        http = conditions.http(http)
        objects = conditions.objects(objects)
        live = conditions.live(live)
      }
      var environment = ChatEngine.Environment(
        http: http, live: live, network: conditions ?? NoNetworkMonitor())
      environment.objects = objects
      environment.mediaProcessing = LinuxMediaProcessing()
      return environment
    }
    let alice = try await ChatEngine.devSignIn(
      user: UserID("alice"), device: DeviceID("demo"), database: .file(folder + "/alice.sqlite"),
      environment: environment(conditions))
    let bob = try await ChatEngine.devSignIn(
      user: UserID("bob"), device: DeviceID("bot"), database: .file(folder + "/bob.sqlite"),
      environment: environment())
    let carol = try await ChatEngine.devSignIn(
      user: UserID("carol"), device: DeviceID("bot"), database: .file(folder + "/carol.sqlite"),
      environment: environment())
    let dave = try await ChatEngine.devSignIn(
      user: UserID("dave"), device: DeviceID("bot"), database: .file(folder + "/dave.sqlite"),
      environment: environment())
    // Her device takes pushes through the demo's webhook gateway (seen with ^B, the background).
    try await alice.registerPush(PushRegistration(provider: .webhook, token: "demo-alice"))
    let direct = try await alice.conversationList.createConversation(
      title: "bob", memberIDs: [UserID("bob")])
    let group = try await alice.conversationList.createConversation(
      title: "Sunday hike", memberIDs: [UserID("bob"), UserID("carol")])
    _ = try await bob.sync()
    _ = try await carol.sync()
    try await bob.messages.send("Hey alice! Type a message and press Enter.", in: direct)
    _ = await bob.drainOutbox()
    let plan = try await carol.messages.send("Sunday hike at nine? 🥾", in: group)
    _ = await carol.drainOutbox()
    // A photo and a document, made for this run: they go up as any device's would
    // (compressed, uploaded to the object store, then posted with their key).
    try await carol.media.send(
      .photo(path: try DemoMedia.sunset(in: folder)), caption: "The view from the top last time",
      in: group)
    _ = await carol.drainOutbox()
    try await bob.media.send(
      .file(path: try DemoMedia.route(in: folder)), caption: "The route, if you want it",
      in: group)
    _ = await bob.drainOutbox()
    let bots = [
      DemoBot(engine: bob, answers: UserID("alice")),
      DemoBot(engine: carol, answers: UserID("alice")),
      DemoBot(engine: dave, answers: UserID("alice")),
    ]
    for bot in bots { await bot.start() }
    await bots[1].edit(
      plan, in: group, to: "Sunday hike at half past nine? 🥾 The early bus is gone.",
      after: .seconds(5))
    await bots[1].add(
      dave, to: group, after: .seconds(12), greeting: "Hi all! carol asked me along 👋")
    return DemoWorld(alice: alice, bots: bots, direct: direct, group: group)
  }

  func close() async {
    for bot in bots { await bot.stop() }
    await alice.close()
  }
}
