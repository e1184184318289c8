import Foundation
import Glibc
import Wire

/// B11: what TLS costs, next to plain TCP and next to peers whose TLS is not ours. Our client
/// (Wire's `HTTPClient` and `WebSocketClient`, OpenSSL in the connection) throughout; the
/// servers are ours (Wire's `HTTPServer`, over TLS and plain, in this process) and two peers
/// in processes of their own, all presenting one `LoopbackCertificate` (EC P-256):
/// - handshake: a fresh connection for every `GET` (`Connection: close`): connect, the TLS 1.3
///   handshake (full: the client keeps no session), the request, the response. Peer: `openssl
///   s_server -www` (OpenSSL's own server loop).
/// - echo: one WebSocket, a 64-byte text message in flight at a time. Peer: Python's
///   `websockets` over `ssl` (from `.venv`; skipped without it).
enum TLSFigure {
  struct Counts {
    var handshakes: Int
    var echoes: Int
    static let full = Counts(handshakes: 1_000, echoes: 5_000)
    static let quick = Counts(handshakes: 100, echoes: 500)
  }

  static func run(folder: String, counts: Counts, withPeers: Bool) async throws -> (
    rows: [ResultRow], skipped: [String]
  ) {
    let certificate = try LoopbackCertificate.make(inFolder: folder)
    let trust = try certificate.clientContext()
    var router = Router()
    router.get("/healthz") { _ in .text("ok") }
    router.get("/echo") { _ in
      .webSocket { socket in
        for await text in socket.messages { try? socket.send(text: text) }
      }
    }
    var secureConfiguration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, loopCount: 1)
    secureConfiguration.tls = try certificate.serverContext()
    let secure = HTTPServer(configuration: secureConfiguration, router: router)
    let plain = HTTPServer(
      configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0, loopCount: 1),
      router: router)
    let securePort = try secure.start()
    let plainPort = try plain.start()
    defer {
      Task {
        await secure.shutdown()
        await plain.shutdown()
      }
    }
    progress("B11: TLS handshakes and echoes, ours")
    // Alternating halves, so a change in the machine's load falls on both.
    var tlsHandshakes = Samples()
    var plainHandshakes = Samples()
    var tlsEchoes = Samples()
    var plainEchoes = Samples()
    for _ in 0..<2 {
      tlsHandshakes.append(
        contentsOf: try await handshakes(
          "https://localhost:\(securePort)/healthz", trust: trust, count: counts.handshakes / 2))
      plainHandshakes.append(
        contentsOf: try await handshakes(
          "http://127.0.0.1:\(plainPort)/healthz", trust: nil, count: counts.handshakes / 2))
      tlsEchoes.append(
        contentsOf: try await echoes(
          "wss://localhost:\(securePort)/echo", trust: trust, count: counts.echoes / 2))
      plainEchoes.append(
        contentsOf: try await echoes(
          "ws://127.0.0.1:\(plainPort)/echo", trust: nil, count: counts.echoes / 2))
    }
    let handshakeWorkload = "fresh connection per GET /healthz, TLS 1.3, P-256, loopback"
    let echoWorkload = "one WebSocket, 64-byte text, one in flight, loopback"
    var rows: [ResultRow] = [
      .latency(
        "B11", "TLS connect + request, ours", workload: handshakeWorkload,
        samples: tlsHandshakes, baselineName: "plain", baseline: plainHandshakes, target: "",
        note: "connect, full handshake (no session kept), request, response; Wire both ends"),
      .latency(
        "B11", "baseline: plain connect + request, ours", workload: "the same without TLS",
        samples: plainHandshakes, target: ""),
      .latency(
        "B11", "WebSocket echo over TLS, ours", workload: echoWorkload, samples: tlsEchoes,
        baselineName: "ws", baseline: plainEchoes, target: "", note: "Wire both ends"),
      .latency(
        "B11", "baseline: WebSocket echo, plain", workload: "the same over ws://",
        samples: plainEchoes, target: ""),
    ]
    var skipped: [String] = []
    guard withPeers else {
      skipped.append("B11 peers: --quick skips openssl s_server and Python websockets")
      return (rows, skipped)
    }
    if let peer = try startPeer(
      "openssl s_server", "/usr/bin/openssl",
      [
        "s_server", "-accept", "127.0.0.1:0", "-www", "-cert", certificate.certificateFile,
        "-key", certificate.privateKeyFile,
      ],
      portLine: { line in
        line.hasPrefix("ACCEPT") ? Int(line.split(separator: ":").last ?? "") : nil
      })
    {
      progress("B11: TLS handshakes against openssl s_server")
      let samples = try await handshakes(
        "https://localhost:\(peer.port)/", trust: trust, count: counts.handshakes / 2)
      peer.stop()
      rows.insert(
        .latency(
          "B11", "TLS connect + request, openssl s_server -www",
          workload: "fresh connection per GET /, TLS 1.3, P-256, loopback",
          samples: samples, baselineName: "ours", baseline: tlsHandshakes, target: "",
          note: "our client, OpenSSL's server; -www writes a status page for each GET"),
        at: 2)
    } else {
      skipped.append("B11 peer: /usr/bin/openssl not found (apt-get install -y openssl)")
    }
    let python = FileManager.default.currentDirectoryPath + "/.venv/bin/python"
    if let peer = try startPeer(
      "Python websockets", python,
      ["-c", pythonEchoServer, certificate.certificateFile, certificate.privateKeyFile])
    {
      progress("B11: WebSocket echoes against Python websockets + ssl")
      let samples = try await echoes(
        "wss://localhost:\(peer.port)/echo", trust: trust, count: counts.echoes / 2)
      peer.stop()
      rows.append(
        .latency(
          "B11", "WebSocket echo over TLS, Python websockets", workload: echoWorkload,
          samples: samples, baselineName: "ours", baseline: tlsEchoes, target: "",
          note: "our client, Python's websockets server over its ssl module"))
    } else {
      skipped.append(
        "B11 peer: Python websockets not found in .venv (scripts/bootstrap makes it)")
    }
    return (rows, skipped)
  }

  /// `count` GETs, each on a connection of its own (after 20 not measured).
  static func handshakes(_ url: String, trust: TLSContext?, count: Int) async throws -> Samples {
    var configuration = HTTPClient.Configuration()
    configuration.tls = trust
    let client = HTTPClient(configuration: configuration)
    var samples = Samples()
    for index in 0..<(count + 20) {
      let started = Nanos.now()
      let response = try await client.execute(
        HTTPClientRequest(url: url, headers: ["Connection": "close"]), timeout: .seconds(10))
      guard response.status.code == 200 else { throw BenchError("\(url): \(response.status)") }
      if index >= 20 { samples.add(Nanos.now() - started) }
    }
    await client.shutdown()
    return samples
  }

  /// `count` round trips of a 64-byte text on one WebSocket (after 100 not measured).
  static func echoes(_ url: String, trust: TLSContext?, count: Int) async throws -> Samples {
    let socket = try await WebSocketClient.connect(to: url, tls: trust)
    var replies = socket.messages.makeAsyncIterator()
    let text = String(repeating: "x", count: 64)
    var samples = Samples()
    for index in 0..<(count + 100) {
      let started = Nanos.now()
      try socket.send(text: text)
      guard await replies.next() == text else { throw BenchError("\(url): no echo") }
      if index >= 100 { samples.add(Nanos.now() - started) }
    }
    socket.close()
    await socket.waitUntilClosed()
    return samples
  }

  /// Python's `websockets` echo server over `ssl`: prints `port N`, echoes until its standard
  /// input closes.
  static let pythonEchoServer = """
    import asyncio, ssl, sys
    import websockets

    async def echo(socket):
        async for message in socket:
            await socket.send(message)

    async def main():
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        async with websockets.serve(echo, "127.0.0.1", 0, ssl=context) as server:
            print("port", server.sockets[0].getsockname()[1], flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(main())
    """

  /// A peer server, or nil when its executable is not installed.
  static func startPeer(
    _ name: String, _ executable: String, _ arguments: [String],
    portLine: (String) -> Int? = { $0.hasPrefix("port ") ? Int($0.dropFirst(5)) : nil }
  ) throws -> ServerProcess? {
    guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
    return try ServerProcess.start(
      name: name, executable: executable, arguments: arguments, portLine: portLine)
  }
}
